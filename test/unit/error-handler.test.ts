// The error handler: Fastify's own errors mapped onto the spec's codes, and the error body as
// a client sees it (through app.inject on the real app).
import test from 'ava';
import type { FastifyError } from 'fastify';
import { ApiError } from '../../daemon/domain/errors.js';
import { toApiError } from '../../daemon/http/error-handler.js';
import { ERROR_CODES, type ErrorCode } from '../../shared/errors.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

const SECRET = 'db password is hunter2 at /var/lib/secret.db';

function fastifyError(code: string, statusCode?: number, message = 'boom'): FastifyError {
  const error = new Error(message) as FastifyError;
  error.code = code;
  if (statusCode !== undefined) error.statusCode = statusCode;
  return error;
}

let svc: TestApp;

test.before(async () => {
  svc = await buildTestApp({
    beforeReady: (app) => {
      app.get('/v1/__test/throw', () => {
        throw new TypeError(SECRET);
      });
      app.get('/v1/__test/reject', async () => {
        await Promise.resolve();
        throw Object.assign(new Error(SECRET), { statusCode: 500, stack: SECRET });
      });
      app.post('/v1/__test/echo', (request) => ({ got: request.body ?? null }));
      app.get('/v1/__test/api-error', () => {
        throw new ApiError('conflict', 'It clashes.', {
          param: 'thing',
          extras: { current: 'x' },
          headers: { 'X-Extra': 'yes' },
        });
      });
    },
  });
});

test.after.always(async () => {
  await svc?.cleanup();
});

test('toApiError maps Fastify error codes onto the spec codes', (t) => {
  const cases: [FastifyError, ErrorCode, number][] = [
    [fastifyError('FST_ERR_CTP_BODY_TOO_LARGE', 413), 'payload_too_large', 413],
    [fastifyError('FST_ERR_CTP_INVALID_MEDIA_TYPE', 415), 'invalid_request_body', 400],
    [fastifyError('FST_ERR_CTP_INVALID_JSON_BODY', 400), 'invalid_request_body', 400],
    [fastifyError('FST_ERR_CTP_EMPTY_JSON_BODY', 400), 'invalid_request_body', 400],
    [fastifyError('FST_ERR_CTP_INVALID_CONTENT_LENGTH', 400), 'invalid_request_body', 400],
    [fastifyError('FST_ERR_BAD_URL', 400), 'not_found', 404],
    [fastifyError('SOMETHING_ELSE', 413), 'payload_too_large', 413],
    [fastifyError('SOMETHING_ELSE', 400, 'Unexpected token in JSON'), 'invalid_request_body', 400],
    [fastifyError('SOMETHING_ELSE', 431), 'invalid_request_body', 400],
    [fastifyError('SOMETHING_ELSE', 500), 'internal_server_error', 500],
    [fastifyError('SOMETHING_ELSE'), 'internal_server_error', 500],
  ];
  for (const [error, code, status] of cases) {
    const mapped = toApiError(error);
    t.true(mapped instanceof ApiError);
    t.is(mapped.code, code, `${error.code} ${String(error.statusCode)}`);
    t.is(mapped.status, status);
  }
  const unsupported = toApiError(fastifyError('FST_ERR_CTP_INVALID_MEDIA_TYPE', 415));
  t.is(unsupported.param, 'Content-Type');
});

test('toApiError passes ApiErrors through and hides plain errors', (t) => {
  const original = new ApiError('tenant_forbidden', 'no');
  t.is(toApiError(original), original);

  const plain = toApiError(new Error(SECRET) as FastifyError);
  t.is(plain.code, 'internal_server_error');
  t.is(plain.status, 500);
  t.false(plain.message.includes('hunter2'));

  const syntax = toApiError(new SyntaxError('Unexpected end of JSON input') as FastifyError);
  t.is(syntax.code, 'invalid_request_body');
});

test('toApiError answers a write the full disk refused with 507 insufficient_storage, naming the data dir', (t) => {
  // What better-sqlite3 and node:fs throw: SQLITE_FULL for a write cut short, SQLITE_IOERR_WRITE
  // for one the system refused (EFBIG past ulimit -f), ENOSPC / EDQUOT from the file system.
  for (const code of ['SQLITE_FULL', 'SQLITE_IOERR_WRITE', 'ENOSPC', 'EDQUOT', 'EFBIG']) {
    const error = Object.assign(new Error(SECRET), { code }) as FastifyError;
    const mapped = toApiError(error, '/data/svc');
    t.is(mapped.code, 'insufficient_storage', code);
    t.is(mapped.status, 507);
    t.true(mapped.message.includes('/data/svc'), mapped.message);
    t.regex(mapped.message, /Free space/);
    t.false(mapped.message.includes('hunter2'));
  }
  const other = Object.assign(new Error(SECRET), { code: 'SQLITE_CORRUPT' }) as FastifyError;
  t.is(toApiError(other, '/data/svc').code, 'internal_server_error');
});

test('ApiError takes status from the table unless overridden', (t) => {
  for (const [code, info] of Object.entries(ERROR_CODES)) {
    t.is(new ApiError(code as keyof typeof ERROR_CODES, 'm').status, info.status);
  }
  t.is(new ApiError('invalid_parameter', 'm', { status: 422 }).status, 422);
});

/** A JSON POST to the echo route, the body as given (valid JSON or not). */
function postJson(payload: string) {
  return svc.app.inject({
    method: 'POST',
    url: '/v1/__test/echo',
    headers: { 'content-type': 'application/json' },
    payload,
  });
}

function checkShape(
  t: import('ava').ExecutionContext,
  response: { statusCode: number; headers: Record<string, unknown>; json(): any },
  code: keyof typeof ERROR_CODES,
): any {
  t.is(response.statusCode, ERROR_CODES[code].status);
  t.regex(String(response.headers['content-type']), /^application\/json/);
  const body = response.json();
  const requestId = response.headers['x-request-id'];
  t.regex(String(requestId), /^req_/);
  t.deepEqual(Object.keys(body).sort(), ['error', 'meta']);
  t.is(body.error.code, code);
  t.is(body.error.type, ERROR_CODES[code].type);
  t.is(typeof body.error.message, 'string');
  t.true(body.error.message.length > 0);
  t.is(body.error.request_id, requestId);
  t.is(body.meta.request_id, requestId);
  t.is(body.error.documentation_url, `${svc.urls.app}/docs/errors#${code}`);
  t.true(/^https?:\/\//.test(body.error.documentation_url), 'documentation_url is absolute');
  t.false(Number.isNaN(Date.parse(body.meta.timestamp)));
  return body;
}

test('an unexpected error answers 500 internal_server_error without internals', async (t) => {
  for (const url of ['/v1/__test/throw', '/v1/__test/reject']) {
    const response = await svc.app.inject({ method: 'GET', url });
    const body = checkShape(t, response, 'internal_server_error');
    t.is(body.error.type, 'server_error');
    t.false(response.body.includes('hunter2'), 'no message of the underlying error');
    t.false(response.body.includes('TypeError'), 'no error class');
    t.false(response.body.includes('/var/lib'), 'no paths');
    t.false(/at .*\.ts:\d+/.test(response.body), 'no stack');
    t.is(body.error.param, undefined);
    t.deepEqual(Object.keys(body.error).sort(), [
      'code',
      'documentation_url',
      'message',
      'request_id',
      'type',
    ]);
  }
});

test('an ApiError answers with its code, param, extras and headers', async (t) => {
  const response = await svc.app.inject({ method: 'GET', url: '/v1/__test/api-error' });
  const body = checkShape(t, response, 'conflict');
  t.is(response.statusCode, 409);
  t.is(body.error.param, 'thing');
  t.is(body.error.current, 'x');
  t.is(body.error.message, 'It clashes.');
  t.is(response.headers['x-extra'], 'yes');
});

test('unknown route: 404 not_found', async (t) => {
  const response = await svc.app.inject({ method: 'GET', url: '/v1/nothing-here?x=1' });
  const body = checkShape(t, response, 'not_found');
  t.is(body.error.type, 'resource_error');
});

test('wrong method: 405 method_not_allowed with Allow', async (t) => {
  const response = await svc.app.inject({ method: 'DELETE', url: '/v1/events' });
  checkShape(t, response, 'method_not_allowed');
  t.is(response.headers.allow, 'GET');
});

test('bad JSON: 400 invalid_request_body', async (t) => {
  const response = await postJson('{"a": 1,');
  checkShape(t, response, 'invalid_request_body');
});

test('__proto__ and constructor keys in a JSON body are refused, spelled with escapes too', async (t) => {
  for (const body of [
    '{"__proto__": {"admin": true}}',
    '{"a": {"constructor": {"prototype": {"admin": true}}}}',
    '{"\\u005f_proto__": {"admin": true}}',
    '{"a": {"\\u0063onstructor": {"prototype": {"admin": true}}}}',
  ]) {
    checkShape(t, await postJson(body), 'invalid_request_body');
  }
});

test('body over 1 MiB: 413 payload_too_large', async (t) => {
  const response = await postJson(JSON.stringify({ big: 'x'.repeat(1024 * 1024 + 10) }));
  const body = checkShape(t, response, 'payload_too_large');
  t.is(body.error.type, 'validation_error');
});

test('missing credential: 401 missing_authentication in the same shape', async (t) => {
  const response = await svc.app.inject({ method: 'GET', url: '/v1/auth/me' });
  const body = checkShape(t, response, 'missing_authentication');
  t.is(body.error.type, 'authentication_error');
});

test('missing X-Tenant-ID: 400 missing_required_field with required_fields', async (t) => {
  const { key } = svc.createKey(['webhooks:read']);
  const response = await svc.app.inject({
    method: 'GET',
    url: '/v1/events',
    headers: { authorization: `Bearer ${key}` },
  });
  const body = checkShape(t, response, 'missing_required_field');
  t.is(body.error.param, 'X-Tenant-ID');
  t.deepEqual(body.error.required_fields, ['X-Tenant-ID']);
});

test('a 429 in problem+json form is flat', async (t) => {
  // Put the daemon clock just past a minute boundary: 21 quick requests stay in one minute.
  const clock = svc.services.clock;
  clock.setOffset(Math.ceil(Date.now() / 60_000) * 60_000 + 50 - Date.now());
  const workspace = svc.services.workspaces.create('free ws', 'free');
  const { key } = svc.createKey(['webhooks:read'], { workspaceId: workspace.id });
  let last;
  for (let i = 0; i < 21; i++) {
    last = await svc.app.inject({
      method: 'GET',
      url: '/v1/auth/me',
      headers: { authorization: `Bearer ${key}`, accept: 'application/problem+json' },
    });
    if (last.statusCode === 429) break;
  }
  t.is(last!.statusCode, 429);
  t.regex(String(last!.headers['content-type']), /^application\/problem\+json/);
  const body = last!.json();
  t.deepEqual(Object.keys(body).sort(), ['detail', 'status', 'title', 'type']);
  t.is(body.type, 'rate_limit_exceeded');
  t.is(body.status, 429);
  t.is(typeof body.title, 'string');
  t.is(typeof body.detail, 'string');
  t.regex(String(last!.headers['retry-after']), /^\d+$/);
  t.true(body.detail.includes(String(last!.headers['retry-after'])), 'detail gives the wait');
});
