// The error code table (shared/errors.ts) against the spec's types and statuses, and against
// the generated OpenAPI document: every code is documented, every route declares its errors.
import test from 'ava';
import { buildOpenApiDocument, routeErrorCodes } from '../../daemon/http/openapi.js';
import {
  ERROR_CODES,
  type ErrorCode,
  type ErrorCodeInfo,
  type ErrorType,
} from '../../shared/errors.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

/** The spec's "Types and status ranges" table, plus the two types decisions.md adds. */
const TYPE_STATUSES: Record<ErrorType, (status: number) => boolean> = {
  authentication_error: (s) => s === 401,
  authorization_error: (s) => s === 403,
  resource_error: (s) => s === 404,
  validation_error: (s) => s === 400 || s === 422,
  rate_limit_error: (s) => s === 429,
  server_error: (s) => s >= 500 && s <= 599,
  integration_error: (s) => s === 502 || s === 503,
  conflict_error: (s) => s === 409,
  timeout_error: (s) => s === 408,
};

/** Added codes whose status the spec's type table has no row for (decisions 5). */
const ADDED_OUTSIDE_TYPE_RANGES: Partial<Record<ErrorCode, number>> = {
  method_not_allowed: 405,
  payload_too_large: 413,
};

/** The spec's code table (status as given; "400 or 422" and "502 or 503" allow both). */
const SPEC_CODES: Record<string, number[]> = {
  invalid_token: [401],
  missing_authentication: [401],
  insufficient_scope: [403],
  tier_restriction: [403],
  guardrail_violation: [403],
  agent_not_found: [404],
  workflow_not_found: [404],
  webhook_not_found: [404],
  execution_not_found: [404],
  invalid_request_body: [400],
  missing_required_field: [400, 422],
  invalid_parameter: [400, 422],
  invalid_autonomy_level: [400],
  invalid_step_config: [400],
  circular_dependency: [400],
  invalid_url: [400],
  invalid_event_type: [400],
  rate_limit_exceeded: [429],
  execution_timeout: [408],
  agent_not_active: [409],
  workflow_timeout: [408],
  step_failed: [500],
  external_api_error: [502, 503],
  integration_not_configured: [502, 503],
  integration_auth_failed: [502, 503],
  internal_server_error: [500],
  service_unavailable: [503],
  delivery_failed: [500],
  invalid_client: [401],
  unauthorized: [401],
};

/** Codes decisions.md and the README add, with their statuses. */
const ADDED_CODES: Record<string, number> = {
  not_found: 404,
  payload_too_large: 413,
  tenant_forbidden: 403,
  workflow_not_active: 409,
  execution_not_cancellable: 409,
  webhook_replayed: 409,
  conflict: 409,
  method_not_allowed: 405,
  insufficient_storage: 507,
  // Step and run codes (the underlying_error of a failed step, a cancelled run's and approval's
  // error) and the dashboard's CSRF refusal: in the
  // table like every code the daemon answers, so that svc faults add --fail takes them.
  secret_not_found: 404,
  invalid_expression: 400,
  approval_rejected: 403,
  execution_cancelled: 409,
  workflow_run_cancelled: 409,
  workflow_run_ended: 409,
  csrf_token_invalid: 403,
  wait_timeout: 408,
  run_parked: 409,
};

let svc: TestApp;
let doc: any;

test.before(async () => {
  svc = await buildTestApp();
  doc = buildOpenApiDocument(svc.routes, svc.urls, svc.tags);
});

test.after.always(async () => {
  await svc?.cleanup();
});

test('every code has a status inside the range of its type', (t) => {
  for (const [code, info] of Object.entries(ERROR_CODES) as [ErrorCode, ErrorCodeInfo][]) {
    const added = ADDED_OUTSIDE_TYPE_RANGES[code];
    if (added !== undefined) {
      t.is(info.status, added, code);
      continue;
    }
    t.true(TYPE_STATUSES[info.type](info.status), `${code}: ${info.status} is not a ${info.type}`);
    t.true(info.description.length > 0, `${code} has a description`);
  }
});

test('the spec codes have the spec statuses, and every code is in the spec or added', (t) => {
  for (const [code, statuses] of Object.entries(SPEC_CODES)) {
    const info = (ERROR_CODES as Record<string, { status: number }>)[code];
    t.truthy(info, `${code} is in the table`);
    if (info) t.true(statuses.includes(info.status), `${code}: ${info.status}`);
  }
  for (const [code, status] of Object.entries(ADDED_CODES)) {
    t.is((ERROR_CODES as Record<string, { status: number }>)[code]?.status, status, code);
  }
  for (const code of Object.keys(ERROR_CODES)) {
    t.true(code in SPEC_CODES || code in ADDED_CODES, `${code} is neither spec nor decided`);
  }
  // Type per spec category.
  t.is(ERROR_CODES.tenant_forbidden.type, 'authorization_error');
  t.is(ERROR_CODES.rate_limit_exceeded.type, 'rate_limit_error');
  t.is(ERROR_CODES.invalid_token.type, 'authentication_error');
  t.is(ERROR_CODES.not_found.type, 'resource_error');
  t.is(ERROR_CODES.internal_server_error.type, 'server_error');
});

test('every code appears in the generated document (the Error schema enumerates them)', (t) => {
  const schema = doc.components.schemas.Error;
  const codeSchema = schema.properties.error.properties.code;
  t.deepEqual([...codeSchema.enum].sort(), Object.keys(ERROR_CODES).sort());
  const text = JSON.stringify(doc);
  for (const code of Object.keys(ERROR_CODES)) t.true(text.includes(code), code);
});

test('every added code is in the document', (t) => {
  const codes = doc.components.schemas.Error.properties.error.properties.code.enum as string[];
  for (const code of Object.keys(ADDED_CODES)) t.true(codes.includes(code), code);
});

test('every route carries the tag of a REST module, each module a tag of its own, each tag described', (t) => {
  // The document's tags and their descriptions come from the module list (app/resources.ts):
  // a route whose tag no module declares, or two modules with one tag, would document a group
  // with no description or with the wrong one.
  const declared = svc.tags.map((tag) => tag.name);
  t.deepEqual([...new Set(declared)].sort(), [...declared].sort(), 'no tag is declared twice');
  const used = new Set(svc.routes.map((route) => route.tag));
  for (const route of svc.routes) t.true(declared.includes(route.tag), `${route.operationId}`);
  for (const name of declared) t.true(used.has(name), `${name} has routes`);
  t.deepEqual(
    doc.tags.map((tag: { name: string }) => tag.name),
    [...declared].sort(),
    'the document lists each module tag once, by name',
  );
  for (const tag of svc.tags) {
    const described = doc.tags.find((entry: { name: string }) => entry.name === tag.name);
    t.is(described.description, tag.description ?? tag.name, tag.name);
  }
});

test('each operation declares every 4xx status it can answer, and a default', (t) => {
  let operations = 0;
  for (const route of svc.routes) {
    const path = route.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const op = doc.paths[path]?.[route.method.toLowerCase()];
    t.truthy(op, `${route.method} ${route.path} is documented`);
    if (!op) continue;
    operations += 1;
    t.truthy(op.responses.default, `${route.operationId} has a default response`);
    t.is(op.operationId, route.operationId);
    for (const code of routeErrorCodes(route)) {
      const status = String(ERROR_CODES[code].status);
      const response = op.responses[status];
      t.truthy(response, `${route.operationId} declares ${status} for ${code}`);
      if (response) t.true(response.description.includes(code), `${route.operationId}: ${code}`);
    }
    if (route.auth.kind === 'credential') {
      for (const status of ['401', '429'])
        t.truthy(op.responses[status], `${route.operationId} ${status}`);
      t.truthy(op.responses['429'].content['application/problem+json']);
      t.truthy(op.responses['429'].headers['Retry-After']);
      if (route.auth.tenant) {
        t.true(op.responses['400'].description.includes('missing_required_field'));
        t.true(op.responses['403'].description.includes('tenant_forbidden'));
        t.true(
          op.parameters.some((p: any) => p.$ref === '#/components/parameters/TenantId'),
          `${route.operationId} takes X-Tenant-ID`,
        );
      }
      if (route.auth.scope) t.true(op.responses['403'].description.includes('insufficient_scope'));
    } else {
      t.deepEqual(op.security, [], `${route.operationId} needs no credential`);
    }
    // Query strings are strict everywhere: 400 invalid_parameter.
    t.true(op.responses['400'].description.includes('invalid_parameter'));
  }
  t.true(operations >= 7);
});

test('the document is the one the daemon serves', async (t) => {
  for (const url of ['/openapi.json', '/v1/openapi.json']) {
    const response = await svc.app.inject({ method: 'GET', url });
    t.is(response.statusCode, 200);
    t.deepEqual(response.json(), JSON.parse(JSON.stringify(doc)));
  }
  t.is(doc.openapi, '3.1.0');
  t.truthy(doc.paths['/v1/events'].get);
  t.truthy(doc.paths['/v1/events/{event_id}'].get);
  t.truthy(doc.paths['/v1/auth/me'].get);
  t.truthy(doc.paths['/healthz'].get);
});

test('the error reference page lists every code with its status and type', async (t) => {
  const response = await svc.app.inject({ method: 'GET', url: '/docs/errors' });
  t.is(response.statusCode, 200);
  t.regex(String(response.headers['content-type']), /^text\/html/);
  for (const [code, info] of Object.entries(ERROR_CODES)) {
    t.true(response.body.includes(`id="${code}"`), `anchor for ${code}`);
    t.true(response.body.includes(`<td>${info.status}</td><td>${info.type}</td>`), `${code} row`);
  }
});
