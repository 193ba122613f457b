// The OpenAPI document as the running daemon serves it (decisions §2, §5, §10): one 3.1
// document at two addresses, every route the other e2e files exercise, the security schemes,
// the tenant header, the declared error responses and the whole error-code table.
import test from 'ava';
import { ERROR_CODES } from '../../shared/errors.js';
import { SCOPES } from '../../shared/scopes.js';
import { startDaemon, type TestDaemon } from '../helpers/daemon.js';

let daemon: TestDaemon;
let doc: any;

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'trace'];

/** The routes the e2e suite exercises, with the 4xx statuses each can answer. */
const TESTED_ROUTES: { method: string; path: string; tenant: boolean; statuses: string[] }[] = [
  { method: 'get', path: '/v1/auth/me', tenant: false, statuses: ['400', '401', '403', '429'] },
  { method: 'get', path: '/v1/events', tenant: true, statuses: ['400', '401', '403', '429'] },
  {
    method: 'get',
    path: '/v1/events/{event_id}',
    tenant: true,
    statuses: ['400', '401', '403', '404', '429'],
  },
  { method: 'get', path: '/healthz', tenant: false, statuses: [] },
  { method: 'get', path: '/openapi.json', tenant: false, statuses: [] },
  { method: 'get', path: '/v1/openapi.json', tenant: false, statuses: [] },
  { method: 'get', path: '/docs/errors', tenant: false, statuses: [] },
];

test.before(async () => {
  daemon = await startDaemon();
  const answer = await daemon.request('/openapi.json');
  if (answer.status !== 200) throw new Error(`/openapi.json answered ${answer.status}`);
  doc = answer.body;
});

test.after.always(async () => {
  await daemon?.stop();
});

function operations(): { path: string; method: string; op: any }[] {
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, op]) => ({ path, method, op })),
  );
}

/** Follows a local $ref such as #/components/parameters/TenantId. */
function resolve(node: any): any {
  if (!node || typeof node.$ref !== 'string') return node;
  const ref: string = node.$ref;
  if (!ref.startsWith('#/')) throw new Error(`non-local $ref ${ref}`);
  return ref
    .slice(2)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((value: any, part) => value?.[part], doc);
}

test('/openapi.json and /v1/openapi.json serve the same OpenAPI 3.1 document', async (t) => {
  const root = await daemon.request('/openapi.json');
  const v1 = await daemon.request('/v1/openapi.json');
  t.is(root.status, 200);
  t.is(v1.status, 200);
  t.regex(root.headers.get('content-type') ?? '', /^application\/json/);
  t.regex(v1.headers.get('content-type') ?? '', /^application\/json/);
  t.deepEqual(v1.body, root.body);
  t.regex(doc.openapi, /^3\.1\.\d+$/);
  t.is(typeof doc.info?.title, 'string');
  t.is(typeof doc.info?.version, 'string');
  t.true(Array.isArray(doc.servers) && doc.servers.length > 0);
  t.true(doc.servers.some((server: { url: string }) => server.url.startsWith(daemon.url)));
});

test('every route the e2e suite exercises is in paths', (t) => {
  for (const route of TESTED_ROUTES) {
    t.truthy(doc.paths[route.path]?.[route.method], `${route.method} ${route.path}`);
  }
  // ...and nothing is documented twice under the Fastify :param form.
  for (const path of Object.keys(doc.paths)) t.false(path.includes('/:'), path);
});

test('security schemes: bearerAuth, oauth2 with the 11 scopes, apiKeyQuery', (t) => {
  const schemes = doc.components?.securitySchemes;
  t.truthy(schemes);
  t.is(schemes.bearerAuth?.type, 'http');
  t.is(schemes.bearerAuth?.scheme?.toLowerCase(), 'bearer');

  t.is(schemes.oauth2?.type, 'oauth2');
  const flow = schemes.oauth2?.flows?.authorizationCode;
  t.truthy(flow, 'authorizationCode flow');
  t.is(flow.authorizationUrl, `${daemon.url}/oauth/authorize`);
  t.is(flow.tokenUrl, `${daemon.url}/v1/oauth/token`);
  t.deepEqual(Object.keys(flow.scopes).sort(), [...SCOPES].sort());
  t.is(Object.keys(flow.scopes).length, 11);
  for (const description of Object.values(flow.scopes)) t.is(typeof description, 'string');

  t.is(schemes.apiKeyQuery?.type, 'apiKey');
  t.is(schemes.apiKeyQuery?.in, 'query');
  t.is(schemes.apiKeyQuery?.name, 'api_key');
});

test('authenticated operations name their security; public ones need none', (t) => {
  for (const route of TESTED_ROUTES) {
    const op = doc.paths[route.path][route.method];
    const security = op.security ?? doc.security;
    if (route.statuses.length === 0) {
      t.deepEqual(op.security, [], `${route.path} is public`);
    } else {
      const names = security.flatMap((requirement: object) => Object.keys(requirement));
      t.true(names.includes('bearerAuth'), route.path);
      t.true(names.includes('apiKeyQuery'), route.path);
    }
  }
  const events = doc.paths['/v1/events'].get.security;
  t.true(
    events.some((requirement: { oauth2?: string[] }) =>
      requirement.oauth2?.includes('webhooks:read'),
    ),
    'listEvents asks for webhooks:read',
  );
});

test('tenant-scoped operations take the X-Tenant-ID header; others do not require it', (t) => {
  for (const route of TESTED_ROUTES) {
    const op = doc.paths[route.path][route.method];
    const parameters = ((op.parameters ?? []) as unknown[]).map(resolve);
    const tenant = parameters.find(
      (parameter: { name?: string; in?: string }) =>
        parameter?.in === 'header' && parameter.name?.toLowerCase() === 'x-tenant-id',
    );
    if (route.tenant) {
      t.truthy(tenant, `${route.method} ${route.path} declares X-Tenant-ID`);
      t.is(tenant.required, true);
    } else {
      t.true(tenant === undefined || tenant.required !== true, `${route.path}`);
    }
  }
  // Path parameters are declared.
  const getEvent = doc.paths['/v1/events/{event_id}'].get;
  const eventId = (getEvent.parameters as unknown[])
    .map(resolve)
    .find((parameter: { name?: string }) => parameter.name === 'event_id');
  t.is(eventId?.in, 'path');
  t.is(eventId?.required, true);
  // The list's query parameters are declared (the daemon refuses any other).
  const listNames = (doc.paths['/v1/events'].get.parameters as unknown[])
    .map(resolve)
    .filter((parameter: { in?: string }) => parameter.in === 'query')
    .map((parameter: { name: string }) => parameter.name)
    .sort();
  t.deepEqual(listNames, ['cursor', 'limit', 'starting_after', 'type']);
});

test('every operation has a 4xx response and a default response', (t) => {
  const all = operations();
  t.true(all.length >= TESTED_ROUTES.length);
  for (const { path, method, op } of all) {
    const statuses = Object.keys(op.responses ?? {});
    t.true(
      statuses.some((status) => /^4\d\d$/.test(status)),
      `${method} ${path} declares a 4xx`,
    );
    t.true(statuses.includes('default'), `${method} ${path} declares default`);
    t.true(
      statuses.some((status) => /^2\d\d$/.test(status)),
      `${method} ${path} declares a success`,
    );
    for (const status of statuses.filter((s) => /^[45]/.test(s) || s === 'default')) {
      const response = resolve(op.responses[status]);
      // The consent step is a page for people: its errors are pages (tested below).
      if (path.startsWith('/oauth/')) {
        t.deepEqual(
          Object.keys(response?.content ?? {}),
          ['text/html'],
          `${method} ${path} ${status}`,
        );
        continue;
      }
      const schema = response?.content?.['application/json']?.schema;
      t.truthy(schema, `${method} ${path} ${status} has a JSON schema`);
      // The OAuth token and revoke endpoints answer protocol errors in RFC 6749 form (OAuthError).
      const allowed = [doc.components.schemas.Error];
      if (path.startsWith('/v1/oauth/')) allowed.push(doc.components.schemas.OAuthError);
      const options = (schema?.oneOf ?? [schema]).map(resolve);
      t.true(
        options.every((option: unknown) => allowed.includes(option)),
        `${method} ${path} ${status} is Error`,
      );
    }
  }
});

test('each tested operation declares every 4xx status it can answer', (t) => {
  for (const route of TESTED_ROUTES) {
    const statuses = Object.keys(doc.paths[route.path][route.method].responses);
    for (const status of route.statuses) {
      t.true(statuses.includes(status), `${route.method} ${route.path} declares ${status}`);
    }
  }
  const me429 = doc.paths['/v1/auth/me'].get.responses['429'];
  t.truthy(me429.content['application/problem+json'], '429 offers the problem+json form');
  t.truthy(me429.headers?.['Retry-After'], '429 declares Retry-After');
});

test('the Error schema lists every code of the error table', (t) => {
  const error = resolve(doc.components?.schemas?.Error);
  t.truthy(error, 'components.schemas.Error');
  const inner = resolve(error.properties?.error);
  const codes: string[] = resolve(inner?.properties?.code)?.enum ?? [];
  for (const code of Object.keys(ERROR_CODES)) t.true(codes.includes(code), code);
  t.deepEqual([...codes].sort(), Object.keys(ERROR_CODES).sort());
  for (const field of ['code', 'message', 'type', 'request_id', 'documentation_url']) {
    t.true((inner.required ?? []).includes(field), `${field} is required`);
  }
  t.truthy(inner.properties.param, 'param is described');
  t.truthy(resolve(error.properties?.meta), 'meta is described');
});

test('every $ref in the document resolves', (t) => {
  const refs: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string') refs.push(value);
        else walk(value);
      }
    }
  };
  walk(doc);
  t.true(refs.length > 0);
  for (const ref of new Set(refs)) {
    t.truthy(resolve({ $ref: ref }), `${ref} resolves`);
  }
});

test('operation ids are unique', (t) => {
  const ids = operations().map(({ op }) => op.operationId);
  for (const id of ids) t.is(typeof id, 'string');
  t.is(new Set(ids).size, ids.length);
});

// What the daemon enforces, said by the document (issue 56): typed limits, the hook's body, the
// consent page's HTML answers, enums written as schema, links from each create.

/** The operation at a path and method, its parameters resolved. */
function op(path: string, method: string): any {
  const found = doc.paths[path]?.[method];
  if (!found) throw new Error(`${method} ${path} is not in the document`);
  return { ...found, parameters: (found.parameters ?? []).map(resolve) };
}

test('limit is an integer from 1 to 100 on every list, as the daemon takes it', async (t) => {
  const limits = operations().flatMap(({ path, op: found }) =>
    (found.parameters ?? [])
      .map(resolve)
      .filter((parameter: any) => parameter.name === 'limit')
      .map((parameter: any) => ({ path, schema: parameter.schema })),
  );
  t.true(limits.length >= 9, `${limits.length} list operations`);
  for (const { path, schema } of limits) {
    t.deepEqual(schema, { type: 'integer', minimum: 1, maximum: 100 }, path);
  }
  const { key, workspaceId } = await daemon.operator();
  for (const [limit, status] of [
    ['0', 400],
    ['101', 400],
    ['1.5', 400],
    ['100', 200],
  ] as const) {
    const answer = await daemon.request(`/v1/events?limit=${limit}`, { key, tenant: workspaceId });
    t.is(answer.status, status, `limit=${limit}`);
  }
});

test('no pattern uses \\d (JSON Schema tools differ on Unicode digits)', (t) => {
  const patterns: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'pattern' && typeof value === 'string') patterns.push(value);
        else walk(value);
      }
    }
  };
  walk(doc);
  t.true(patterns.length > 0);
  for (const pattern of patterns) t.false(pattern.includes('\\d'), pattern);
});

test("a hook's body is documented: any JSON value, optional", (t) => {
  const hook = op('/v1/hooks/{workspace_id}/{path}', 'post');
  t.is(hook.requestBody?.required, false);
  const schema = hook.requestBody?.content?.['application/json']?.schema;
  t.truthy(schema, 'a JSON body');
  t.is(schema.type, undefined, 'any JSON value, not only objects');
  t.truthy(hook.responses['413'], 'a body over 1 MiB is refused');
});

test('the consent step documents its required parameters and answers its errors as pages', async (t) => {
  const authorize = op('/oauth/authorize', 'get');
  const byName = Object.fromEntries(authorize.parameters.map((p: any) => [p.name, p]));
  for (const name of ['response_type', 'client_id', 'redirect_uri']) {
    t.true(byName[name]?.required, `${name} is required`);
  }
  for (const parameter of authorize.parameters) t.is(parameter.schema.type, 'string');
  t.truthy(authorize.responses['302'], 'the refusals that go back to the app are redirects');
  for (const [status, answer] of Object.entries<any>(authorize.responses)) {
    if (status === '200' || status === '302') continue;
    t.deepEqual(Object.keys(answer.content), ['text/html'], `${status} is a page`);
  }
  // As documented: no client_id is an HTML page, not the API's JSON.
  const answer = await daemon.request('/oauth/authorize?response_type=code');
  t.is(answer.status, 400);
  t.regex(answer.headers.get('content-type') ?? '', /^text\/html/);
});

test('limits written as schema: step types, event types, webhook url, analytics metrics', async (t) => {
  const steps = op('/v1/workflows', 'post').requestBody.content['application/json'].schema
    .properties.steps.items.properties;
  t.deepEqual(steps.type.enum, ['agent_action', 'condition', 'parallel', 'wait', 'webhook']);
  const webhook = op('/v1/webhooks', 'post').requestBody.content['application/json'].schema;
  t.is(webhook.properties.url.minLength, 1);
  t.true(webhook.properties.events.items.enum.includes('agent.created'));
  const test_ = op('/v1/webhooks/{webhook_id}/test', 'post').requestBody.content['application/json']
    .schema;
  t.deepEqual(test_.properties.event_type.enum, webhook.properties.events.items.enum);
  const metrics = op('/v1/agents/{agent_id}/analytics', 'get').parameters.find(
    (p: any) => p.name === 'metrics',
  );
  const pattern = new RegExp(metrics.schema.pattern);
  t.true(pattern.test('total_interactions,success_rate'));
  t.false(pattern.test('total_interactions,bogus'));
  // The daemon refuses what the schema refuses.
  const { key, workspaceId } = await daemon.operator();
  const auth = { key, tenant: workspaceId };
  const empty = await daemon.callJson(
    'POST',
    '/v1/webhooks',
    { url: '', events: ['agent.created'] },
    auth,
  );
  t.is(empty.status, 400, 'an empty url');
  const unknown = await daemon.callJson(
    'POST',
    '/v1/webhooks',
    { url: 'http://127.0.0.1:9/x', events: ['agent.bogus'] },
    auth,
  );
  t.is(unknown.status, 400, 'an unknown event type');
});

test('each create links to the get, update and delete of what it created', async (t) => {
  const operationIds = new Set(operations().map(({ op: found }) => found.operationId));
  const created = op('/v1/webhooks', 'post').responses['201'];
  t.deepEqual(Object.keys(created.links ?? {}).sort(), [
    'DeleteWebhook',
    'GetWebhook',
    'UpdateWebhook',
  ]);
  for (const { op: found } of operations()) {
    for (const link of Object.values<any>(found.responses?.['201']?.links ?? {})) {
      t.true(operationIds.has(link.operationId), link.operationId);
    }
  }
  // Followed as a client would: the id the create answered is the get's path parameter.
  const { key, workspaceId } = await daemon.operator();
  const auth = { key, tenant: workspaceId };
  const made = await daemon.callJson(
    'POST',
    '/v1/webhooks',
    { url: 'http://127.0.0.1:9/hook', events: ['agent.created'] },
    auth,
  );
  t.is(made.status, 201);
  const get = created.links.GetWebhook;
  t.is(get.parameters.webhook_id, '$response.body#/data/id');
  const pointer = (get.parameters.webhook_id as string).split('#')[1]!.split('/').slice(1);
  const id = pointer.reduce((value: any, part) => value?.[part], made.body);
  const read = await daemon.request(`/v1/webhooks/${id as string}`, auth);
  t.is(read.status, 200);
  t.is(read.body.data.id, id);
});
