// The dashboard's route kit: a route's input is parsed by its schema, its answer checked against
// its output schema (what the schema does not name is not sent; an answer that breaks it is a 500,
// not data a page would misread), and a POST needs the session's CSRF token.
import test from 'ava';
import Fastify from 'fastify';
import { z } from 'zod';
import { apiKit, NoBody, route, WorkspaceQuery } from '../../daemon/dashboard/api-kit.js';
import { toApiError } from '../../daemon/http/error-handler.js';

const routes = {
  'GET /things/:thing_id': route(
    WorkspaceQuery.extend({ size: z.coerce.number().int().min(1).optional() }),
    z.object({ id: z.string(), size: z.number().int(), workspace: z.string() }),
  ),
  'POST /things/:thing_id/paint': route(
    z.strictObject({ colour: z.enum(['red', 'blue']) }),
    z.object({ id: z.string(), colour: z.string() }),
  ),
  'POST /broken': route(NoBody, z.object({ count: z.number() })),
};

async function app() {
  const server = Fastify();
  server.setErrorHandler((error, _request, reply) => {
    const api = toApiError(error as Error & { code: string });
    void reply.code(api.status).send({ error: { code: api.code, message: api.message } });
  });
  const kit = apiKit(server, {
    requireSession: () => ({ csrfToken: 'csrf-token-1', lastSeenAt: 0 }),
    workspaceOf: (input) => input.workspace ?? 'ws_default',
  });
  kit.serve(routes, {
    'GET /things/:thing_id': (input, workspaceId, request) => ({
      id: (request.params as { thing_id: string }).thing_id,
      size: input.size ?? 1,
      workspace: workspaceId,
      // Not in the output schema: never sent.
      internal: 'row 42',
    }),
    'POST /things/:thing_id/paint': async (input, _workspaceId, request) => ({
      id: (request.params as { thing_id: string }).thing_id,
      colour: input.colour,
    }),
    // A handler that breaks its schema (only a cast gets it past the compiler).
    'POST /broken': () => ({ count: 'many' }) as unknown as { count: number },
  });
  await server.ready();
  return server;
}

test('a GET parses its query and sends only what its output schema names', async (t) => {
  const server = await app();
  const answer = await server.inject({ url: '/ui/api/things/th_1?size=3&workspace=ws_2' });
  t.is(answer.statusCode, 200);
  t.deepEqual(answer.json(), { id: 'th_1', size: 3, workspace: 'ws_2' });
  t.is(answer.headers['cache-control'], 'no-store');
  const bad = await server.inject({ url: '/ui/api/things/th_1?size=0' });
  t.is(bad.statusCode, 400);
  t.is(bad.json().error.code, 'invalid_parameter');
  t.regex(bad.json().error.message, /^size: /);
});

test('a POST needs the CSRF token and a body its schema takes', async (t) => {
  const server = await app();
  const post = (body: unknown, csrf?: string) =>
    server.inject({
      method: 'POST',
      url: '/ui/api/things/th_1/paint',
      headers: csrf === undefined ? {} : { 'x-csrf-token': csrf },
      payload: body as object,
    });
  t.is((await post({ colour: 'red' })).json().error.code, 'csrf_token_invalid');
  t.is((await post({ colour: 'red' }, 'wrong-token-')).json().error.code, 'csrf_token_invalid');
  const refused = await post({ colour: 'green' }, 'csrf-token-1');
  t.is(refused.statusCode, 400);
  t.is(refused.json().error.code, 'invalid_parameter');
  const painted = await post({ colour: 'blue' }, 'csrf-token-1');
  t.deepEqual(painted.json(), { id: 'th_1', colour: 'blue' });
});

test('an answer that breaks its output schema is a 500, its details kept out of the answer', async (t) => {
  const server = await app();
  const answer = await server.inject({
    method: 'POST',
    url: '/ui/api/broken',
    headers: { 'x-csrf-token': 'csrf-token-1' },
    payload: {},
  });
  t.is(answer.statusCode, 500);
  t.is(answer.json().error.code, 'internal_server_error');
  t.notRegex(answer.json().error.message, /count|many|schema/);
});
