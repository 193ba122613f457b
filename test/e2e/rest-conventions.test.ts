// REST conventions against the real daemon: the success and list envelopes, X-Request-Id,
// the error body (decisions §5, §10), the error reference page, 404/405, strict query
// validation, `limit`, trailing slashes and the routes that need no credential.
import test, { type ExecutionContext } from 'ava';
import { ERROR_CODES, type ErrorCode } from '../../shared/errors.js';
import { startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { assertError, control } from '../helpers/api.js';

let daemon: TestDaemon;
let key: string;
let workspaceId: string;

type Answer = Awaited<ReturnType<TestDaemon['request']>>;

test.before(async () => {
  daemon = await startDaemon();
  ({ key, workspaceId } = await daemon.operator());
  // A couple of events so that the list has items: over the control channel, as `svc events
  // trigger` publishes them (that command is tested in events-api.test.ts), without a CLI process.
  for (const type of ['agent.created', 'workflow.created'])
    await control(daemon, 'events.trigger', { type, workspace_id: workspaceId });
});

test.after.always(async () => {
  await daemon?.stop();
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function assertMeta(t: ExecutionContext, answer: Answer): void {
  const requestId = answer.headers.get('x-request-id');
  t.regex(requestId ?? '', /^req_[A-Za-z0-9]+$/, 'X-Request-Id header');
  t.is(answer.body?.meta?.request_id, requestId, 'meta.request_id = X-Request-Id');
  t.regex(answer.body?.meta?.timestamp ?? '', ISO, 'meta.timestamp is ISO 8601 UTC');
}

/** Checks the decisions' error body, and that code, status and type agree with the table. */
function assertSpecError(
  t: ExecutionContext,
  answer: Answer,
  status: number,
  code: ErrorCode,
  param?: string,
): void {
  const error = assertError(t, answer, status, code, param);
  t.regex(answer.headers.get('content-type') ?? '', /^application\/json/);
  t.truthy(answer.body?.error, `error body: ${answer.text}`);
  t.is(ERROR_CODES[code].status as number, status, 'status is the one of the error table');
  t.is(error.type, ERROR_CODES[code].type);
  t.true(error.message.length > 0);
  assertMeta(t, answer);
  t.is(error.request_id, answer.body.meta.request_id);
  t.is(error.documentation_url, `${daemon.url}/docs/errors#${code}`);
  t.regex(error.documentation_url, /^http:\/\/[^/]+\/docs\/errors#[a-z_]+$/);
}

test('a success answer is {data, meta} with X-Request-Id = meta.request_id', async (t) => {
  const answer = await daemon.request('/v1/auth/me', { key });
  t.is(answer.status, 200);
  t.regex(answer.headers.get('content-type') ?? '', /^application\/json/);
  t.deepEqual(Object.keys(answer.body).sort(), ['data', 'meta']);
  t.is(typeof answer.body.data, 'object');
  assertMeta(t, answer);
});

test('a list answer carries both pagination forms', async (t) => {
  const answer = await daemon.request('/v1/events', { key, tenant: workspaceId });
  t.is(answer.status, 200);
  t.true(Array.isArray(answer.body.data));
  t.is(answer.body.data.length, 2);
  t.is(answer.body.has_more, false);
  t.is(answer.body.total_count, 2);
  t.is(answer.body.meta.has_more, false);
  t.is(answer.body.meta.next_cursor, null);
  assertMeta(t, answer);

  const page = await daemon.request('/v1/events?limit=1', { key, tenant: workspaceId });
  t.is(page.status, 200);
  t.is(page.body.data.length, 1);
  t.is(page.body.has_more, true);
  t.is(page.body.meta.has_more, true);
  t.is(page.body.total_count, 2);
  t.is(page.body.meta.next_cursor, page.body.data[0].id);
});

test('every answer gets its own request id', async (t) => {
  const answers = await Promise.all([
    daemon.request('/v1/auth/me', { key }),
    daemon.request('/v1/auth/me', { key }),
    daemon.request('/healthz'),
    daemon.request('/v1/nope'),
  ]);
  const ids = answers.map((answer) => answer.headers.get('x-request-id'));
  for (const id of ids) t.regex(id ?? '', /^req_/);
  t.is(new Set(ids).size, ids.length);
});

test('error bodies: code, message, type, request_id, documentation_url and meta', async (t) => {
  assertSpecError(t, await daemon.request('/v1/auth/me'), 401, 'missing_authentication');
  assertSpecError(
    t,
    await daemon.request('/v1/auth/me', { key: 'sk_test_nope' }),
    401,
    'invalid_token',
  );
  assertSpecError(t, await daemon.request('/v1/events', { key }), 400, 'missing_required_field');
  assertSpecError(
    t,
    await daemon.request('/v1/events?bogus=1', { key, tenant: workspaceId }),
    400,
    'invalid_parameter',
    'bogus',
  );
  assertSpecError(
    t,
    await daemon.request('/v1/events/evt_doesnotexist', { key, tenant: workspaceId }),
    404,
    'not_found',
  );
});

test('GET /docs/errors is an HTML page with an anchor for every code', async (t) => {
  const answer = await daemon.request('/docs/errors');
  t.is(answer.status, 200);
  t.regex(answer.headers.get('content-type') ?? '', /^text\/html/);
  t.regex(answer.text, /<html/i);
  t.regex(answer.headers.get('x-request-id') ?? '', /^req_/);
  for (const code of Object.keys(ERROR_CODES)) {
    t.true(answer.text.includes(`id="${code}"`), `anchor for ${code}`);
  }
  // The documentation_url of an error points at one of those anchors.
  const error = await daemon.request('/v1/auth/me');
  const anchor = new URL(error.body.error.documentation_url).hash.slice(1);
  t.true(answer.text.includes(`id="${anchor}"`));
});

test('unknown routes are 404 not_found, inside and outside /v1', async (t) => {
  for (const path of ['/v1/nope', '/nope', '/v2/events', '/v1', '/', '/v1/events/x/y']) {
    assertSpecError(t, await daemon.request(path), 404, 'not_found');
    assertSpecError(t, await daemon.request(path, { key, tenant: workspaceId }), 404, 'not_found');
  }
  assertSpecError(t, await daemon.request('/v1/nope', { method: 'POST', key }), 404, 'not_found');
});

test('a wrong method is 405 method_not_allowed with an Allow header', async (t) => {
  const cases: [string, string][] = [
    ['DELETE', '/v1/auth/me'],
    ['POST', '/v1/auth/me'],
    ['POST', '/v1/events'],
    ['PUT', '/v1/events'],
    ['PATCH', '/v1/events/evt_x'],
    ['DELETE', '/v1/events/evt_x'],
    ['POST', '/healthz'],
    ['DELETE', '/openapi.json'],
  ];
  for (const [method, path] of cases) {
    for (const withKey of [true, false]) {
      const answer = await daemon.request(path, {
        method,
        ...(withKey ? { key, tenant: workspaceId } : {}),
      });
      assertSpecError(t, answer, 405, 'method_not_allowed');
      const allow = (answer.headers.get('allow') ?? '').split(',').map((m) => m.trim());
      t.true(allow.includes('GET'), `${method} ${path}: Allow ${allow.join(',')}`);
      t.false(allow.includes(method), `${method} ${path}: Allow lists ${method}`);
    }
  }
});

test('an unknown query parameter is 400 invalid_parameter naming it', async (t) => {
  assertSpecError(
    t,
    await daemon.request('/v1/events?foo=1', { key, tenant: workspaceId }),
    400,
    'invalid_parameter',
    'foo',
  );
  assertSpecError(
    t,
    await daemon.request('/v1/auth/me?verbose=true', { key }),
    400,
    'invalid_parameter',
    'verbose',
  );
  assertSpecError(
    t,
    await daemon.request('/v1/events?limit=5&sort=asc', { key, tenant: workspaceId }),
    400,
    'invalid_parameter',
    'sort',
  );
});

test('limit must be an integer from 1 to 100', async (t) => {
  for (const bad of ['0', '101', 'abc', '1.5', '-1', '', '1e1', ' 1', '1000000']) {
    const answer = await daemon.request(`/v1/events?limit=${encodeURIComponent(bad)}`, {
      key,
      tenant: workspaceId,
    });
    assertSpecError(t, answer, 400, 'invalid_parameter', 'limit');
  }
  for (const good of ['1', '20', '100']) {
    const answer = await daemon.request(`/v1/events?limit=${good}`, { key, tenant: workspaceId });
    t.is(answer.status, 200, `limit=${good}`);
    t.true(answer.body.data.length <= Number(good));
  }
});

test('a trailing slash is tolerated', async (t) => {
  const me = await daemon.request('/v1/auth/me/', { key });
  t.is(me.status, 200);
  t.truthy(me.body.data.user_id);
  const events = await daemon.request('/v1/events/', { key, tenant: workspaceId });
  t.is(events.status, 200);
  t.true(Array.isArray(events.body.data));
  t.is((await daemon.request('/healthz/')).status, 200);
  t.is((await daemon.request('/openapi.json/')).status, 200);
});

test('/healthz, /openapi.json and /docs/errors need no credential', async (t) => {
  const health = await daemon.request('/healthz');
  t.is(health.status, 200);
  t.is(health.body.status, 'ok');
  t.regex(health.headers.get('x-request-id') ?? '', /^req_/);
  for (const path of ['/openapi.json', '/v1/openapi.json']) {
    const doc = await daemon.request(path);
    t.is(doc.status, 200, path);
    t.regex(doc.headers.get('content-type') ?? '', /^application\/json/);
    t.is(doc.body.openapi, '3.1.0');
  }
  t.is((await daemon.request('/docs/errors')).status, 200);
  // A credential sent to a public route does not get in the way, even a bad one.
  t.is((await daemon.request('/healthz', { key: 'garbage' })).status, 200);
  t.is((await daemon.request('/openapi.json', { key })).status, 200);
});
