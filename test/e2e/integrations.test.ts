// /v1/integrations against the real daemon (decisions §9, §10 "Integrations"): connect with
// write-only credentials, list/get/disconnect, the integration.connected/disconnected events,
// scopes, tenant isolation and validation of the provider slug.
import test, { type ExecutionContext } from 'ava';
import { twoTenants, scopedKeys } from '../helpers/setup.js';
import type { IntegrationView as Integration } from '../../shared/schemas/integrations.js';
import { assertError, assertFirstPage, type Auth, createdWith } from '../helpers/api.js';

const tenants = twoTenants(test);
const { call, newWorkspace } = tenants;

function connect(body: Record<string, unknown>, auth: Auth = {}): Promise<Integration> {
  return createdWith(call, '/v1/integrations', body, auth);
}

async function eventsOf(type: string, tenant = tenants.defaultWs) {
  const answer = await call('GET', `/v1/events?type=${type}&limit=100`, undefined, { tenant });
  if (answer.status !== 200) throw new Error(`events: ${answer.status} ${answer.text}`);
  return answer.body.data as { id: string; type: string; workspace_id: string; data: any }[];
}

/** Neither GET nor DELETE finds the integration with these credentials: 404 not_found. */
async function assertNotFound(t: ExecutionContext, id: string, auth: Auth) {
  for (const method of ['GET', 'DELETE']) {
    assertError(t, await call(method, `/v1/integrations/${id}`, undefined, auth), 404, 'not_found');
  }
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

test('POST /v1/integrations connects (201); credentials are stored but never returned', async (t) => {
  const token = 'xoxb-123456-super-secret-token';
  const answer = await call('POST', '/v1/integrations', {
    provider: 'slack',
    name: 'Support Slack',
    config: { channel: '#support', notify: true },
    credentials: { bot_token: token },
  });
  t.is(answer.status, 201, answer.text);
  const integration = answer.body.data as Integration;
  t.regex(integration.id, /^int_/);
  t.like(integration, {
    workspace_id: tenants.defaultWs,
    provider: 'slack',
    name: 'Support Slack',
    status: 'connected',
    config: { channel: '#support', notify: true },
    has_credentials: true,
  });
  t.regex(integration.created_at, ISO);
  t.false('credentials' in integration);
  t.false(answer.text.includes(token), 'the create answer does not echo the credentials');

  const got = await call('GET', `/v1/integrations/${integration.id}`);
  t.is(got.status, 200, got.text);
  t.deepEqual(got.body.data, integration);
  t.false(got.text.includes(token));
  const list = await call('GET', '/v1/integrations?limit=100');
  t.false(list.text.includes(token));
  const events = await call('GET', '/v1/events?limit=100');
  t.false(events.text.includes(token), 'nor do the events');

  const bare = await connect({ provider: 'zendesk' });
  t.like(bare, { provider: 'zendesk', name: 'zendesk', has_credentials: false, config: {} });
});

test('connect and disconnect emit integration.connected and integration.disconnected', async (t) => {
  const ws = await newWorkspace('Events');
  const integration = await connect(
    { provider: 'salesforce', name: 'CRM', credentials: { token: 'sf-secret' } },
    { tenant: ws },
  );
  const connected = await eventsOf('integration.connected', ws);
  t.is(connected.length, 1);
  t.like(connected[0], { type: 'integration.connected', workspace_id: ws });
  t.regex(connected[0]!.id, /^evt_/);
  t.like(connected[0]!.data, { id: integration.id, provider: 'salesforce', name: 'CRM' });
  t.false(JSON.stringify(connected[0]).includes('sf-secret'));

  const deleted = await call('DELETE', `/v1/integrations/${integration.id}`, undefined, {
    tenant: ws,
  });
  t.is(deleted.status, 200, deleted.text);
  t.like(deleted.body.data, { id: integration.id, deleted: true });
  const disconnected = await eventsOf('integration.disconnected', ws);
  t.is(disconnected.length, 1);
  t.like(disconnected[0], { type: 'integration.disconnected', workspace_id: ws });
  t.is(disconnected[0]!.data.id, integration.id);

  t.is(
    (await eventsOf('integration.connected', tenants.defaultWs)).filter(
      (e) => e.data.id === integration.id,
    ).length,
    0,
    'events stay in their workspace',
  );
});

test('list, get and delete; after delete it is 404 not_found', async (t) => {
  const ws = await newWorkspace('Listing');
  const opts = { tenant: ws };
  const made: Integration[] = [];
  for (const provider of ['slack', 'hubspot', 'slack', 'zendesk']) {
    made.push(await connect({ provider }, opts));
  }
  const all = await call('GET', '/v1/integrations', undefined, opts);
  t.is(all.status, 200, all.text);
  t.is(all.body.total_count, 4);
  t.false(all.body.has_more);
  t.deepEqual(
    all.body.data.map((item: Integration) => item.id),
    [...made].reverse().map((item) => item.id),
    'newest first',
  );
  t.true(all.body.data.every((item: Integration) => !('credentials' in item)));

  const first = await call('GET', '/v1/integrations?limit=3', undefined, opts);
  assertFirstPage(t, first.body, 3);
  const rest = await call(
    'GET',
    `/v1/integrations?limit=3&starting_after=${first.body.meta.next_cursor}`,
    undefined,
    opts,
  );
  t.deepEqual(
    rest.body.data.map((item: Integration) => item.id),
    [made[0]!.id],
  );
  t.false(rest.body.has_more);
  t.is(rest.body.meta.next_cursor, null);

  const slack = await call('GET', '/v1/integrations?provider=slack', undefined, opts);
  t.is(slack.status, 200, slack.text);
  t.is(slack.body.total_count, 2);
  t.true(slack.body.data.every((item: Integration) => item.provider === 'slack'));

  const target = made[1]!;
  const deleted = await call('DELETE', `/v1/integrations/${target.id}`, undefined, opts);
  t.is(deleted.status, 200, deleted.text);
  await assertNotFound(t, target.id, opts);
  const after = await call('GET', '/v1/integrations', undefined, opts);
  t.is(after.body.total_count, 3);
  t.false(after.body.data.some((item: Integration) => item.id === target.id));
  assertError(
    t,
    await call('GET', '/v1/integrations/int_doesnotexist', undefined, opts),
    404,
    'not_found',
  );
  const badLimit = await call('GET', '/v1/integrations?limit=101', undefined, opts);
  assertError(t, badLimit, 400, 'invalid_parameter', 'limit');
});

test("another workspace's integration is 404 and not listed", async (t) => {
  const mine = await connect({ provider: 'github' });
  const foreign = { key: tenants.otherKey, tenant: tenants.otherWs };
  await assertNotFound(t, mine.id, foreign);
  const theirs = await call('GET', '/v1/integrations?limit=100', undefined, foreign);
  t.is(theirs.status, 200, theirs.text);
  t.false(theirs.body.data.some((item: Integration) => item.id === mine.id));
  t.is((await call('GET', `/v1/integrations/${mine.id}`)).status, 200, 'still there');
  assertError(
    t,
    await call('GET', '/v1/integrations', undefined, {
      key: tenants.otherKey,
      tenant: tenants.defaultWs,
    }),
    403,
    'tenant_forbidden',
  );
  assertError(
    t,
    await tenants.daemon.request('/v1/integrations', { key: tenants.operatorKey }),
    400,
    'missing_required_field',
    'X-Tenant-ID',
  );
});

test('scopes: integrations:read views, integrations:write connects and disconnects', async (t) => {
  const { reader, writer, unrelated } = await scopedKeys(tenants.daemon, {
    reader: 'integrations:read',
    writer: 'integrations:write',
    unrelated: 'webhooks:write webhooks:read',
  });
  const existing = await connect({ provider: 'jira' });

  t.is((await call('GET', '/v1/integrations', undefined, { key: reader })).status, 200);
  t.is(
    (await call('GET', `/v1/integrations/${existing.id}`, undefined, { key: reader })).status,
    200,
  );
  const denied = await call('POST', '/v1/integrations', { provider: 'jira' }, { key: reader });
  assertError(t, denied, 403, 'insufficient_scope');
  t.is(denied.body.error.type, 'authorization_error');
  assertError(
    t,
    await call('DELETE', `/v1/integrations/${existing.id}`, undefined, { key: reader }),
    403,
    'insufficient_scope',
  );
  for (const [method, path, body] of [
    ['GET', '/v1/integrations', undefined],
    ['POST', '/v1/integrations', { provider: 'jira' }],
    ['DELETE', `/v1/integrations/${existing.id}`, undefined],
  ] as const) {
    assertError(t, await call(method, path, body, { key: unrelated }), 403, 'insufficient_scope');
  }

  const created = await call('POST', '/v1/integrations', { provider: 'asana' }, { key: writer });
  t.is(created.status, 201, created.text);
  const removed = await call('DELETE', `/v1/integrations/${created.body.data.id}`, undefined, {
    key: writer,
  });
  t.is(removed.status, 200, removed.text);
  t.is((await call('GET', `/v1/integrations/${existing.id}`)).status, 200);
});

test('a provider that is not a lowercase slug, or none, is 400 and connects nothing', async (t) => {
  const ws = await newWorkspace('Validation');
  const opts = { tenant: ws };
  for (const provider of ['Slack', 'slack app', 'slack!', '-slack', '', 'x'.repeat(51), 42]) {
    const answer = await call('POST', '/v1/integrations', { provider }, opts);
    t.is(answer.status, 400, `${JSON.stringify(provider)}: ${answer.text}`);
    t.is(answer.body?.error?.type, 'validation_error');
    t.is(answer.body?.error?.param, 'provider', answer.text);
  }
  const missing = await call('POST', '/v1/integrations', { name: 'no provider' }, opts);
  assertError(t, missing, 400, 'missing_required_field', 'provider');
  t.deepEqual(missing.body.error.required_fields, ['provider']);

  const badCredentials = await call(
    'POST',
    '/v1/integrations',
    { provider: 'slack', credentials: { token: 42 } },
    opts,
  );
  t.is(badCredentials.status, 400, badCredentials.text);
  const unknownField = await call(
    'POST',
    '/v1/integrations',
    { provider: 'slack', color: 'red' },
    opts,
  );
  t.is(unknownField.status, 400, unknownField.text);

  const list = await call('GET', '/v1/integrations', undefined, opts);
  t.is(list.body.total_count, 0);
  t.deepEqual(await eventsOf('integration.connected', ws), [], 'no event for a refused connect');
});
