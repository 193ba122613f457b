// svc/client against a daemon app in this process: auth and workspace headers on every request,
// typed paths and bodies (this file typechecks only if the generated types fit), errors as data.
import test from 'ava';
import { createClient } from '../../client/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

let svc: TestApp;
let baseUrl: string;

test.before(async () => {
  svc = await buildTestApp();
  baseUrl = await svc.app.listen({ port: 0, host: '127.0.0.1' });
});

test.after.always(async () => {
  await svc?.cleanup();
});

function operator() {
  return {
    key: svc.services.keys.operatorCredential(),
    workspace: svc.services.workspaces.defaultWorkspaceId,
  };
}

test('requests carry the key and the workspace; answers are typed data', async (t) => {
  const api = createClient({ baseUrl: `${baseUrl}/v1/`, ...operator() });
  const created = await api.POST('/v1/workflows', {
    body: {
      name: 'Typed',
      steps: [{ id: 'w', name: 'W', type: 'wait', config: { duration_seconds: 0 } }],
    },
  });
  t.is(created.response.status, 201, JSON.stringify(created.error));
  const id = created.data!.data.id;
  const got = await api.GET('/v1/workflows/{workflow_id}', {
    params: { path: { workflow_id: id } },
  });
  t.is(got.data?.data.name, 'Typed');
  const me = await api.GET('/v1/auth/me');
  t.is(me.data?.data.workspace_id, operator().workspace);
});

test('an API error is the error document, not a throw', async (t) => {
  const api = createClient({ baseUrl, ...operator() });
  const missing = await api.GET('/v1/workflows/{workflow_id}', {
    params: { path: { workflow_id: 'wfl_nope' } },
  });
  t.is(missing.response.status, 404);
  // The error bodies of each status are typed too (a 429 is problem+json, the rest {error}).
  const error = missing.error;
  t.is(error && 'error' in error ? error.error.code : undefined, 'workflow_not_found');
  const anonymous = createClient({ baseUrl, key: 'sk_test_wrong' });
  const refused = await anonymous.GET('/v1/workflows');
  t.is(refused.response.status, 401);
});

test('createClient says what is missing', (t) => {
  t.throws(() => createClient({ baseUrl: '', key: 'k' }), { message: /needs baseUrl/ });
  t.throws(() => createClient({ baseUrl, key: '' }), { message: /needs key/ });
});

test('a misspelt body field is a type error; the API names it at run time', async (t) => {
  const api = createClient({ baseUrl, ...operator() });
  const typo = await api.POST('/v1/workflows', {
    body: {
      name: 'Typo',
      steps: [{ id: 'w', name: 'W', type: 'wait', config: { duration_seconds: 0 } }],
      // @ts-expect-error -- `descripton` is no field of the body (description is)
      descripton: 'misspelt',
    },
  });
  t.is(typo.response.status, 400);
  const body = typo.error as { error: { code: string; message: string } };
  t.regex(body.error.message, /descripton/);
  const agent = await api.POST('/v1/agents', {
    body: { name: 'A', ontology: 'retail-v1' },
  });
  t.is(agent.response.status, 201);
  const patched = await api.PATCH('/v1/agents/{agent_id}', {
    params: { path: { agent_id: agent.data!.data.id } },
    // @ts-expect-error -- `stauts` is no field of the body (status is)
    body: { stauts: 'paused' },
  });
  t.is(patched.response.status, 400);
});
