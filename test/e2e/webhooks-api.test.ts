// /v1/webhooks against the real daemon (spec Webhooks endpoints, decisions §5, §9, §10): create
// with its one-time secret, URL and event-type validation, list/get/patch/delete, tenant
// isolation, scopes, and the OpenAPI document's webhook and integration routes.
import test from 'ava';
import { twoTenants, scopedKeys } from '../helpers/setup.js';
import type { WebhookView as Webhook } from '../../shared/schemas/webhooks.js';
import { assertError, assertFirstPage, createdWith, type Auth } from '../helpers/api.js';

const tenants = twoTenants(test, { otherKeyName: 'other-admin' });
const { call, newWorkspace } = tenants;

function createHook(body: Record<string, unknown> = {}, auth: Auth = {}): Promise<Webhook> {
  const defaults = { url: 'http://127.0.0.1:9/hooks', events: ['agent.created'] };
  return createdWith(call, '/v1/webhooks', { ...defaults, ...body }, auth);
}

test('POST /v1/webhooks creates an active webhook (201) and shows the secret this once', async (t) => {
  const answer = await call('POST', '/v1/webhooks', {
    url: 'http://127.0.0.1:9/hooks/orders',
    events: ['agent.created', 'workflow.execution.failed'],
    description: 'orders',
  });
  t.is(answer.status, 201, answer.text);
  t.regex(answer.headers.get('x-request-id') ?? '', /^req_/);
  const hook = answer.body.data as Webhook;
  t.regex(hook.id, /^hook_/);
  t.like(hook, {
    workspace_id: tenants.defaultWs,
    url: 'http://127.0.0.1:9/hooks/orders',
    description: 'orders',
    events: ['agent.created', 'workflow.execution.failed'],
    status: 'active',
    last_triggered_at: null,
    settings: { retry_policy: { max_attempts: 5, backoff_multiplier: 2 }, timeout_seconds: 10 },
    stats: { total_deliveries: 0, success_rate: 0, last_failure_at: null },
  });
  t.regex(hook.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  t.is(typeof hook.secret, 'string');
  t.regex(hook.secret!, /^whsec_[A-Za-z0-9]{24,}$/);

  const secret = hook.secret!;
  const got = await call('GET', `/v1/webhooks/${hook.id}`);
  t.is(got.status, 200, got.text);
  t.false('secret' in got.body.data, 'GET must not return the secret');
  t.false(got.text.includes(secret));
  t.is(got.body.data.id, hook.id);

  const list = await call('GET', '/v1/webhooks?limit=100');
  t.is(list.status, 200, list.text);
  t.true(list.body.data.some((item: Webhook) => item.id === hook.id));
  t.true(list.body.data.every((item: Webhook) => !('secret' in item)));
  t.false(list.text.includes(secret), 'list must not return the secret');

  const patched = await call('PATCH', `/v1/webhooks/${hook.id}`, { description: 'renamed' });
  t.is(patched.status, 200, patched.text);
  t.false('secret' in patched.body.data, 'PATCH must not return the secret');
  t.false(patched.text.includes(secret));

  const second = await createHook();
  t.not(second.secret, secret, 'each webhook has its own secret');
});

test('settings given at creation are kept; a partial retry_policy keeps the other default', async (t) => {
  const hook = await createHook({
    settings: { retry_policy: { max_attempts: 3 }, timeout_seconds: 5 },
  });
  t.deepEqual(hook.settings, {
    retry_policy: { max_attempts: 3, backoff_multiplier: 2 },
    timeout_seconds: 5,
  });
  const got = await call('GET', `/v1/webhooks/${hook.id}`);
  t.deepEqual(got.body.data.settings, hook.settings);
});

test('a URL that is not a valid http(s) URL is 400 invalid_url', async (t) => {
  for (const url of [
    'not a url',
    'example.com/hooks',
    'ftp://example.com/hooks',
    'http://user:pass@example.com/hooks',
    'https://user@example.com/hooks',
  ]) {
    const answer = await call('POST', '/v1/webhooks', { url, events: ['agent.created'] });
    assertError(t, answer, 400, 'invalid_url', 'url');
    t.is(answer.body.error.type, 'validation_error');
  }
  const hook = await createHook();
  const patched = await call('PATCH', `/v1/webhooks/${hook.id}`, { url: 'ftp://example.com/x' });
  assertError(t, patched, 400, 'invalid_url', 'url');
  const got = await call('GET', `/v1/webhooks/${hook.id}`);
  t.is(got.body.data.url, hook.url, 'a refused PATCH changes nothing');
});

test('an unknown event type is 400 invalid_event_type naming the offending entry', async (t) => {
  const answer = await call('POST', '/v1/webhooks', {
    url: 'http://127.0.0.1:9/hooks',
    events: ['agent.created', 'agent.exploded'],
  });
  assertError(t, answer, 400, 'invalid_event_type');
  t.is(answer.body.error.type, 'validation_error');
  t.regex(answer.body.error.param ?? '', /^events/);
  t.regex(answer.body.error.message, /agent\.exploded/);

  for (const events of [['*'], ['agent.*'], ['Agent.Created']]) {
    const refused = await call('POST', '/v1/webhooks', {
      url: 'http://127.0.0.1:9/hooks',
      events,
    });
    assertError(t, refused, 400, 'invalid_event_type');
  }

  const hook = await createHook();
  const patched = await call('PATCH', `/v1/webhooks/${hook.id}`, { events: ['nope.never'] });
  assertError(t, patched, 400, 'invalid_event_type');
  t.regex(patched.body.error.param ?? '', /^events/);
});

test('missing url or events is 400 missing_required_field with required_fields', async (t) => {
  const noUrl = await call('POST', '/v1/webhooks', { events: ['agent.created'] });
  assertError(t, noUrl, 400, 'missing_required_field', 'url');
  t.deepEqual(noUrl.body.error.required_fields, ['url']);

  const noEvents = await call('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/hooks' });
  assertError(t, noEvents, 400, 'missing_required_field', 'events');
  t.deepEqual(noEvents.body.error.required_fields, ['events']);

  const neither = await call('POST', '/v1/webhooks', {});
  assertError(t, neither, 400, 'missing_required_field');
  t.deepEqual([...neither.body.error.required_fields].sort(), ['events', 'url']);
});

test('list: status filter, newest first, pagination with has_more, total_count and cursors', async (t) => {
  const ws = await newWorkspace('Listing');
  const opts = { tenant: ws };
  const created: Webhook[] = [];
  for (let i = 0; i < 5; i++) created.push(await createHook({ description: `hook ${i}` }, opts));
  const paused = await call('PATCH', `/v1/webhooks/${created[1]!.id}`, { status: 'paused' }, opts);
  t.is(paused.status, 200, paused.text);
  t.is(paused.body.data.status, 'paused');

  const all = await call('GET', '/v1/webhooks', undefined, opts);
  t.is(all.status, 200, all.text);
  t.is(all.body.total_count, 5);
  t.false(all.body.has_more);
  t.false(all.body.meta.has_more);
  t.is(all.body.meta.next_cursor, null);
  t.deepEqual(
    all.body.data.map((hook: Webhook) => hook.id),
    [...created].reverse().map((hook) => hook.id),
    'newest first',
  );

  const first = await call('GET', '/v1/webhooks?limit=2', undefined, opts);
  t.is(first.status, 200, first.text);
  assertFirstPage(t, first.body, 2, 5);

  const seen: string[] = first.body.data.map((hook: Webhook) => hook.id);
  let cursor: string | null = first.body.meta.next_cursor;
  let alias = false;
  while (cursor) {
    const param: string = alias ? 'cursor' : 'starting_after';
    alias = !alias;
    const page = await call('GET', `/v1/webhooks?limit=2&${param}=${cursor}`, undefined, opts);
    t.is(page.status, 200, page.text);
    t.is(page.body.total_count, 5);
    seen.push(...page.body.data.map((hook: Webhook) => hook.id));
    cursor = page.body.meta.next_cursor;
    t.is(page.body.has_more, cursor !== null);
  }
  t.deepEqual(
    seen,
    all.body.data.map((hook: Webhook) => hook.id),
  );

  const onlyPaused = await call('GET', '/v1/webhooks?status=paused', undefined, opts);
  t.is(onlyPaused.status, 200, onlyPaused.text);
  t.deepEqual(
    onlyPaused.body.data.map((hook: Webhook) => hook.id),
    [created[1]!.id],
  );
  t.is(onlyPaused.body.total_count, 1);
  const active = await call('GET', '/v1/webhooks?status=active', undefined, opts);
  t.is(active.body.total_count, 4);
  t.true(active.body.data.every((hook: Webhook) => hook.status === 'active'));
  const failed = await call('GET', '/v1/webhooks?status=failed', undefined, opts);
  t.is(failed.body.total_count, 0);
  t.deepEqual(failed.body.data, []);

  const badStatus = await call('GET', '/v1/webhooks?status=sleeping', undefined, opts);
  assertError(t, badStatus, 400, 'invalid_parameter', 'status');
  const badLimit = await call('GET', '/v1/webhooks?limit=0', undefined, opts);
  assertError(t, badLimit, 400, 'invalid_parameter', 'limit');
});

test('PATCH changes events, url, description, settings and status', async (t) => {
  const hook = await createHook({ events: ['agent.created'] });

  const events = await call('PATCH', `/v1/webhooks/${hook.id}`, {
    events: ['agent.updated', 'integration.connected'],
  });
  t.is(events.status, 200, events.text);
  t.deepEqual(events.body.data.events, ['agent.updated', 'integration.connected']);
  t.is(events.body.data.url, hook.url, 'fields not given stay');

  const url = await call('PATCH', `/v1/webhooks/${hook.id}`, {
    url: 'http://localhost:4000/other',
  });
  t.is(url.status, 200, url.text);
  t.is(new URL(url.body.data.url).href, 'http://localhost:4000/other');
  t.deepEqual(url.body.data.events, ['agent.updated', 'integration.connected']);

  const settings = await call('PATCH', `/v1/webhooks/${hook.id}`, {
    settings: { timeout_seconds: 3, retry_policy: { max_attempts: 8, backoff_multiplier: 3 } },
  });
  t.is(settings.status, 200, settings.text);
  t.deepEqual(settings.body.data.settings, {
    retry_policy: { max_attempts: 8, backoff_multiplier: 3 },
    timeout_seconds: 3,
  });
  const partial = await call('PATCH', `/v1/webhooks/${hook.id}`, {
    settings: { retry_policy: { max_attempts: 2 } },
  });
  t.deepEqual(partial.body.data.settings, {
    retry_policy: { max_attempts: 2, backoff_multiplier: 3 },
    timeout_seconds: 3,
  });

  const paused = await call('PATCH', `/v1/webhooks/${hook.id}`, { status: 'paused' });
  t.is(paused.status, 200, paused.text);
  t.is(paused.body.data.status, 'paused');
  t.is((await call('GET', `/v1/webhooks/${hook.id}`)).body.data.status, 'paused');
  const active = await call('PATCH', `/v1/webhooks/${hook.id}`, { status: 'active' });
  t.is(active.body.data.status, 'active');

  const got = await call('GET', `/v1/webhooks/${hook.id}`);
  t.like(got.body.data, {
    id: hook.id,
    status: 'active',
    events: ['agent.updated', 'integration.connected'],
    settings: { retry_policy: { max_attempts: 2, backoff_multiplier: 3 }, timeout_seconds: 3 },
  });
  t.true(got.body.data.updated_at >= hook.updated_at);
  t.is(got.body.data.created_at, hook.created_at);
});

test('PATCH refuses what it cannot set', async (t) => {
  const hook = await createHook();
  for (const body of [
    { status: 'failed' },
    { status: 'deleted' },
    { events: [] },
    { settings: { timeout_seconds: 0 } },
    { settings: { timeout_seconds: 61 } },
    { settings: { retry_policy: { max_attempts: 0 } } },
    { secret: 'whsec_mine' },
  ]) {
    const answer = await call('PATCH', `/v1/webhooks/${hook.id}`, body);
    t.is(answer.status, 400, `${JSON.stringify(body)}: ${answer.text}`);
    t.is(answer.body?.error?.type, 'validation_error');
  }
  t.is((await call('GET', `/v1/webhooks/${hook.id}`)).body.data.status, 'active');
});

test('DELETE removes the webhook; afterwards it is 404 webhook_not_found', async (t) => {
  const hook = await createHook();
  const deleted = await call('DELETE', `/v1/webhooks/${hook.id}`);
  t.is(deleted.status, 200, deleted.text);
  t.like(deleted.body.data, { id: hook.id, deleted: true });

  assertError(t, await call('GET', `/v1/webhooks/${hook.id}`), 404, 'webhook_not_found');
  assertError(
    t,
    await call('PATCH', `/v1/webhooks/${hook.id}`, { status: 'paused' }),
    404,
    'webhook_not_found',
  );
  assertError(t, await call('DELETE', `/v1/webhooks/${hook.id}`), 404, 'webhook_not_found');
  assertError(t, await call('GET', `/v1/webhooks/${hook.id}/deliveries`), 404, 'webhook_not_found');
  assertError(
    t,
    await call('POST', `/v1/webhooks/${hook.id}/test`, { event_type: 'agent.created' }),
    404,
    'webhook_not_found',
  );
  const notFound = await call('GET', `/v1/webhooks/${hook.id}`);
  t.is(notFound.body.error.type, 'resource_error');
  const list = await call('GET', '/v1/webhooks?limit=100');
  t.false(list.body.data.some((item: Webhook) => item.id === hook.id));
  assertError(t, await call('GET', '/v1/webhooks/hook_doesnotexist'), 404, 'webhook_not_found');
});

test("another workspace's webhook is 404, never 403, and not listed", async (t) => {
  const mine = await createHook({ description: 'default workspace' });
  const foreign = { key: tenants.otherKey, tenant: tenants.otherWs };
  for (const [method, path, body] of [
    ['GET', `/v1/webhooks/${mine.id}`, undefined],
    ['PATCH', `/v1/webhooks/${mine.id}`, { status: 'paused' }],
    ['DELETE', `/v1/webhooks/${mine.id}`, undefined],
    ['GET', `/v1/webhooks/${mine.id}/deliveries`, undefined],
    ['POST', `/v1/webhooks/${mine.id}/test`, { event_type: 'agent.created' }],
  ] as const) {
    assertError(t, await call(method, path, body, foreign), 404, 'webhook_not_found');
  }
  // The operator credential, asked about the other workspace, does not see it either.
  assertError(
    t,
    await call('GET', `/v1/webhooks/${mine.id}`, undefined, { tenant: tenants.otherWs }),
    404,
    'webhook_not_found',
  );
  const theirs = await call('GET', '/v1/webhooks?limit=100', undefined, foreign);
  t.is(theirs.status, 200, theirs.text);
  t.false(theirs.body.data.some((hook: Webhook) => hook.id === mine.id));
  t.true(theirs.body.data.every((hook: Webhook) => hook.workspace_id === tenants.otherWs));

  const still = await call('GET', `/v1/webhooks/${mine.id}`);
  t.is(still.body.data.status, 'active', 'the foreign PATCH changed nothing');

  // A key of the other workspace may not name this one.
  assertError(
    t,
    await call('GET', '/v1/webhooks', undefined, {
      key: tenants.otherKey,
      tenant: tenants.defaultWs,
    }),
    403,
    'tenant_forbidden',
  );
  assertError(
    t,
    await call('GET', '/v1/webhooks', undefined, { tenant: '' }),
    400,
    'missing_required_field',
    'X-Tenant-ID',
  );
});

test('scopes: webhooks:read lists but may not write; webhooks:write creates', async (t) => {
  const { reader, writer, other } = await scopedKeys(tenants.daemon, {
    reader: 'webhooks:read',
    writer: 'webhooks:write',
    other: 'agents:read integrations:write',
  });
  const hook = await createHook();

  const listed = await call('GET', '/v1/webhooks', undefined, { key: reader });
  t.is(listed.status, 200, listed.text);
  t.is((await call('GET', `/v1/webhooks/${hook.id}`, undefined, { key: reader })).status, 200);
  t.is(
    (await call('GET', `/v1/webhooks/${hook.id}/deliveries`, undefined, { key: reader })).status,
    200,
  );

  const body = { url: 'http://127.0.0.1:9/hooks', events: ['agent.created'] };
  for (const [method, path, payload] of [
    ['POST', '/v1/webhooks', body],
    ['PATCH', `/v1/webhooks/${hook.id}`, { status: 'paused' }],
    ['DELETE', `/v1/webhooks/${hook.id}`, undefined],
    ['POST', `/v1/webhooks/${hook.id}/test`, { event_type: 'agent.created' }],
  ] as const) {
    const answer = await call(method, path, payload, { key: reader });
    assertError(t, answer, 403, 'insufficient_scope');
    t.is(answer.body.error.type, 'authorization_error');
  }
  assertError(
    t,
    await call('POST', '/v1/webhooks', body, { key: other }),
    403,
    'insufficient_scope',
  );
  assertError(
    t,
    await call('GET', '/v1/webhooks', undefined, { key: other }),
    403,
    'insufficient_scope',
  );

  const created = await call('POST', '/v1/webhooks', body, { key: writer });
  t.is(created.status, 201, created.text);
  t.regex(created.body.data.secret, /^whsec_/);
  const patched = await call(
    'PATCH',
    `/v1/webhooks/${created.body.data.id}`,
    { status: 'paused' },
    {
      key: writer,
    },
  );
  t.is(patched.status, 200, patched.text);
  const deleted = await call('DELETE', `/v1/webhooks/${created.body.data.id}`, undefined, {
    key: writer,
  });
  t.is(deleted.status, 200, deleted.text);
  t.is((await call('GET', `/v1/webhooks/${hook.id}`)).body.data.status, 'active');
});

test('missing or bad credentials on webhook routes are 401', async (t) => {
  const none = await tenants.daemon.request('/v1/webhooks', { tenant: tenants.defaultWs });
  assertError(t, none, 401, 'missing_authentication');
  const wrong = await tenants.daemon.request('/v1/webhooks', {
    key: 'sk_test_' + 'x'.repeat(32),
    tenant: tenants.defaultWs,
  });
  assertError(t, wrong, 401, 'invalid_token');
});

test('the OpenAPI document lists every webhook and integration route', async (t) => {
  const answer = await tenants.daemon.request('/openapi.json');
  t.is(answer.status, 200);
  const paths = answer.body.paths as Record<string, Record<string, any>>;
  const expected: [string, string, string, number[]][] = [
    ['/v1/webhooks', 'get', 'webhooks:read', [200, 400, 401, 403, 429]],
    ['/v1/webhooks', 'post', 'webhooks:write', [201, 400, 401, 403, 429]],
    ['/v1/webhooks/{webhook_id}', 'get', 'webhooks:read', [200, 401, 403, 404]],
    ['/v1/webhooks/{webhook_id}', 'patch', 'webhooks:write', [200, 400, 401, 403, 404]],
    ['/v1/webhooks/{webhook_id}', 'delete', 'webhooks:write', [200, 401, 403, 404]],
    ['/v1/webhooks/{webhook_id}/test', 'post', 'webhooks:write', [200, 400, 401, 403, 404]],
    ['/v1/webhooks/{webhook_id}/deliveries', 'get', 'webhooks:read', [200, 400, 401, 403, 404]],
    [
      '/v1/webhooks/{webhook_id}/deliveries/{delivery_id}',
      'get',
      'webhooks:read',
      [200, 401, 403, 404],
    ],
    [
      '/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/retry',
      'post',
      'webhooks:write',
      [200, 401, 403, 404],
    ],
    ['/v1/integrations', 'get', 'integrations:read', [200, 400, 401, 403]],
    ['/v1/integrations', 'post', 'integrations:write', [201, 400, 401, 403]],
    ['/v1/integrations/{integration_id}', 'get', 'integrations:read', [200, 401, 403, 404]],
    ['/v1/integrations/{integration_id}', 'delete', 'integrations:write', [200, 401, 403, 404]],
  ];
  for (const [path, method, scope, statuses] of expected) {
    const operation = paths[path]?.[method];
    t.truthy(operation, `${method.toUpperCase()} ${path} is missing from the document`);
    if (!operation) continue;
    t.is(typeof operation.operationId, 'string');
    const declared = Object.keys(operation.responses ?? {});
    for (const status of statuses) {
      t.true(declared.includes(String(status)), `${method} ${path} declares ${status}`);
    }
    t.true(declared.includes('default'), `${method} ${path} declares a default response`);
    t.true(
      JSON.stringify(operation.security ?? []).includes(scope),
      `${method} ${path} names scope ${scope}`,
    );
  }
  const create = paths['/v1/webhooks']?.post;
  const schemaText = JSON.stringify(answer.body.components ?? {}) + JSON.stringify(create ?? {});
  t.true(schemaText.includes('invalid_event_type'), 'invalid_event_type is documented');
  t.true(schemaText.includes('invalid_url'), 'invalid_url is documented');
});
