// Credentials, tenants and scopes against the real daemon (decisions §5, §6, §10): 401s,
// the api_key query parameter, GET /v1/auth/me, X-Tenant-ID rules, independent scopes and
// isolation of one workspace's events from another's.
import test from 'ava';
import { sharedDaemon } from '../helpers/setup.js';
import { assertError } from '../helpers/api.js';

const daemon = sharedDaemon(test);
let operatorKey: string;
let defaultWs: string;
let otherWs: string;
/** Admin key of the default workspace and of the other one. */
let keyA: string;
let keyB: string;

test.before(async () => {
  ({ key: operatorKey, workspaceId: defaultWs } = await daemon.operator());
  otherWs = await daemon.createWorkspace('Other tenant', 'business');
  keyA = (await daemon.createKey('admin', { name: 'a-admin' })).key;
  keyB = (await daemon.createKey('admin', { name: 'b-admin', workspace: otherWs })).key;
});

async function trigger(type: string, workspace: string): Promise<{ id: string; type: string }> {
  const result = await daemon.cli(['events', 'trigger', type, '--workspace', workspace, '--json']);
  if (result.code !== 0) throw new Error(`events trigger failed: ${result.stderr}`);
  return result.json();
}

test('no credential: 401 missing_authentication', async (t) => {
  const me = await daemon.request('/v1/auth/me');
  assertError(t, me, 401, 'missing_authentication');
  t.is(me.body.error.type, 'authentication_error');
  // Authentication comes before the tenant check.
  assertError(t, await daemon.request('/v1/events'), 401, 'missing_authentication');
  assertError(
    t,
    await daemon.request('/v1/events', { tenant: defaultWs }),
    401,
    'missing_authentication',
  );
});

test('garbage, Basic and unknown keys: 401 invalid_token', async (t) => {
  const headers: string[] = [
    'Bearer garbage',
    'Basic xyz',
    'Basic ' + Buffer.from(`${keyA}:`).toString('base64'),
    'Bearer',
    'Token ' + keyA,
    `Bearer sk_test_${'A'.repeat(40)}`,
    `Bearer ${keyA}x`,
  ];
  for (const authorization of headers) {
    const answer = await daemon.request('/v1/auth/me', { headers: { authorization } });
    assertError(t, answer, 401, 'invalid_token');
    t.is(answer.body.error.type, 'authentication_error');
    t.false(answer.body.error.message.includes(keyA), 'the message does not echo the key');
  }
});

test('an sk_live_ key on the sandbox daemon: 401 invalid_token naming the environment', async (t) => {
  const live = `sk_live_${'a1B2c3D4'.repeat(5)}`;
  const answer = await daemon.request('/v1/auth/me', { key: live });
  assertError(t, answer, 401, 'invalid_token');
  t.regex(answer.body.error.message, /production/i);
  t.regex(answer.body.error.message, /sandbox/i);
});

test('a revoked key and an expired key: 401 invalid_token (expired adds expires_at)', async (t) => {
  const revoked = await daemon.createKey('admin', { name: 'to-revoke' });
  t.is((await daemon.request('/v1/auth/me', { key: revoked.key })).status, 200);
  const revoke = await daemon.cli(['keys', 'revoke', revoked.id, '--json']);
  t.is(revoke.code, 0, revoke.stderr);
  assertError(t, await daemon.request('/v1/auth/me', { key: revoked.key }), 401, 'invalid_token');

  const expiring = await daemon.createKey('admin', { name: 'short', expiresIn: '1h' });
  t.is((await daemon.request('/v1/auth/me', { key: expiring.key })).status, 200);
  const advanced = await daemon.cli(['clock', 'advance', '2h', '--json']);
  t.is(advanced.code, 0, advanced.stderr);
  const expired = await daemon.request('/v1/auth/me', { key: expiring.key });
  assertError(t, expired, 401, 'invalid_token');
  t.regex(expired.body.error.expires_at ?? '', /^\d{4}-\d{2}-\d{2}T/);
});

test('?api_key= works and the answer carries a Warning header', async (t) => {
  const me = await daemon.request(`/v1/auth/me?api_key=${encodeURIComponent(keyA)}`);
  t.is(me.status, 200, me.text);
  t.is(me.body.data.workspace_id, defaultWs);
  t.truthy(me.headers.get('warning'));
  t.regex(me.headers.get('warning') ?? '', /^\d{3} /, 'Warning is "<code> <agent> <text>"');

  const events = await daemon.request(`/v1/events?api_key=${encodeURIComponent(keyA)}&limit=5`, {
    tenant: defaultWs,
  });
  t.is(events.status, 200, events.text);
  t.truthy(events.headers.get('warning'));

  assertError(t, await daemon.request('/v1/auth/me?api_key=garbage'), 401, 'invalid_token');
  // The header form carries no Warning.
  const bearer = await daemon.request('/v1/auth/me', { key: keyA });
  t.is(bearer.headers.get('warning'), null);
});

test('GET /v1/auth/me describes the credential', async (t) => {
  const key = await daemon.createKey('agents:read webhooks:read', {
    name: 'reader',
    workspace: otherWs,
  });
  const me = await daemon.request('/v1/auth/me', { key: key.key });
  t.is(me.status, 200, me.text);
  const data = me.body.data;
  t.regex(data.user_id, /^usr_/);
  t.is(data.workspace_id, otherWs);
  t.regex(data.workspace_id, /^ws_/);
  t.deepEqual([...data.scopes].sort(), ['agents:read', 'webhooks:read']);
  t.is(data.tier, 'business');
  t.is(data.environment, 'sandbox');
  t.is(data.credential_type, 'api_key');
  for (const field of [
    'user_id',
    'workspace_id',
    'scopes',
    'tier',
    'environment',
    'credential_type',
  ]) {
    t.true(field in data, field);
  }

  const operator = await daemon.request('/v1/auth/me', { key: operatorKey });
  t.is(operator.status, 200);
  t.is(operator.body.data.workspace_id, defaultWs);
  t.is(operator.body.data.tier, 'enterprise');
  t.deepEqual(operator.body.data.scopes, ['admin']);
  t.is(operator.body.data.credential_type, 'operator');
  t.is(operator.body.data.user_id, data.user_id, 'both belong to the local operator user');

  // /auth/me is not tenant-scoped: no X-Tenant-ID needed; the operator may pick one it owns.
  const picked = await daemon.request('/v1/auth/me', { key: operatorKey, tenant: otherWs });
  t.is(picked.status, 200);
  t.is(picked.body.data.workspace_id, otherWs);
  t.is(picked.body.data.tier, 'business');
});

test('tenant routes: no X-Tenant-ID is 400 missing_required_field', async (t) => {
  for (const key of [keyA, operatorKey]) {
    const answer = await daemon.request('/v1/events', { key });
    assertError(t, answer, 400, 'missing_required_field', 'X-Tenant-ID');
    t.is(answer.body.error.type, 'validation_error');
    t.deepEqual(answer.body.error.required_fields, ['X-Tenant-ID']);
  }
  const one = await daemon.request('/v1/events/evt_whatever', { key: keyA });
  assertError(t, one, 400, 'missing_required_field', 'X-Tenant-ID');
  // An empty header is no header.
  const empty = await daemon.request('/v1/events', {
    key: keyA,
    headers: { 'x-tenant-id': '' },
  });
  assertError(t, empty, 400, 'missing_required_field', 'X-Tenant-ID');
});

test("another workspace's id or an unknown one is 403 tenant_forbidden", async (t) => {
  const foreign = await daemon.request('/v1/events', { key: keyA, tenant: otherWs });
  assertError(t, foreign, 403, 'tenant_forbidden');
  t.is(foreign.body.error.type, 'authorization_error');
  assertError(
    t,
    await daemon.request('/v1/events', { key: keyB, tenant: defaultWs }),
    403,
    'tenant_forbidden',
  );
  for (const unknown of ['ws_doesnotexist000000', 'nonsense', 'WS_' + otherWs.slice(3)]) {
    for (const key of [keyA, operatorKey]) {
      assertError(
        t,
        await daemon.request('/v1/events', { key, tenant: unknown }),
        403,
        'tenant_forbidden',
      );
    }
  }
  // Own workspace is fine.
  t.is((await daemon.request('/v1/events', { key: keyA, tenant: defaultWs })).status, 200);
  t.is((await daemon.request('/v1/events', { key: keyB, tenant: otherWs })).status, 200);
});

test('an unknown or foreign X-Tenant-ID on /v1/auth/me is 403 tenant_forbidden', async (t) => {
  assertError(
    t,
    await daemon.request('/v1/auth/me', { key: keyA, tenant: 'ws_doesnotexist000000' }),
    403,
    'tenant_forbidden',
  );
  assertError(
    t,
    await daemon.request('/v1/auth/me', { key: operatorKey, tenant: 'ws_doesnotexist000000' }),
    403,
    'tenant_forbidden',
  );
  assertError(
    t,
    await daemon.request('/v1/auth/me', { key: keyA, tenant: otherWs }),
    403,
    'tenant_forbidden',
  );
  const own = await daemon.request('/v1/auth/me', { key: keyA, tenant: defaultWs });
  t.is(own.status, 200);
  t.is(own.body.data.workspace_id, defaultWs);
});

test('scopes are independent; webhooks:read or admin may read events', async (t) => {
  const cases: [string, number][] = [
    ['agents:read', 403],
    ['webhooks:write', 403],
    ['workflows:read workflows:write workflows:execute', 403],
    ['integrations:read', 403],
    ['webhooks:read', 200],
    ['agents:read webhooks:read', 200],
    ['admin', 200],
  ];
  for (const [scopes, status] of cases) {
    const { key } = await daemon.createKey(scopes, { name: `scopes ${scopes}` });
    const list = await daemon.request('/v1/events', { key, tenant: defaultWs });
    const one = await daemon.request('/v1/events/evt_doesnotexist', { key, tenant: defaultWs });
    if (status === 403) {
      assertError(t, list, 403, 'insufficient_scope');
      t.is(list.body.error.type, 'authorization_error');
      assertError(t, one, 403, 'insufficient_scope');
    } else {
      t.is(list.status, 200, `${scopes}: ${list.text}`);
      assertError(t, one, 404, 'not_found');
    }
    // /auth/me takes any valid credential.
    t.is((await daemon.request('/v1/auth/me', { key })).status, 200, scopes);
  }
});

test("workspace A's events are invisible to workspace B", async (t) => {
  const inA = await trigger('agent.created', defaultWs);
  const inB = await trigger('workflow.created', otherWs);

  // Each admin key lists its own workspace's events only.
  for (const [key, ws, own, foreign] of [
    [keyA, defaultWs, inA, inB],
    [keyB, otherWs, inB, inA],
  ] as const) {
    const list = await daemon.request('/v1/events?limit=100', { key, tenant: ws });
    t.is(list.status, 200);
    const ids = list.body.data.map((event: { id: string }) => event.id);
    t.true(ids.includes(own.id));
    t.false(ids.includes(foreign.id));
    for (const event of list.body.data) t.is(event.workspace_id, ws);
  }

  // A resource of another tenant is 404, never 403.
  const crossA = await daemon.request(`/v1/events/${inA.id}`, { key: keyB, tenant: otherWs });
  assertError(t, crossA, 404, 'not_found');
  const crossB = await daemon.request(`/v1/events/${inB.id}`, { key: keyA, tenant: defaultWs });
  assertError(t, crossB, 404, 'not_found');
  // The operator, acting in B, does not see A's event either.
  const operatorInB = await daemon.request(`/v1/events/${inA.id}`, {
    key: operatorKey,
    tenant: otherWs,
  });
  assertError(t, operatorInB, 404, 'not_found');

  const own = await daemon.request(`/v1/events/${inA.id}`, { key: keyA, tenant: defaultWs });
  t.is(own.status, 200);
  t.is(own.body.data.id, inA.id);
  t.is(own.body.data.workspace_id, defaultWs);
});
