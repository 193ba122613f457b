// A battery of malformed requests against the running daemon, with a valid admin key: broken
// and oversized bodies, wrong content types, odd unicode, hostile path parameters, invalid
// percent-encoding, duplicate and huge query values. Each must get a 4xx the spec allows with
// the spec's error body (no stack traces, no file paths), and the daemon must stay up.
//
// Requests go over a raw socket (node:net) so that paths reach the daemon byte for byte
// (fetch would normalise ../ and refuse invalid percent-encoding or non-ASCII headers).
import test, { type ExecutionContext } from 'ava';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { ERROR_CODES } from '../../shared/errors.js';
import { ROOT } from '../helpers/daemon.js';
import { sharedDaemon } from '../helpers/setup.js';

const daemon = sharedDaemon(test);
let key: string;
let workspace: string;
let host: string;
let port: number;

test.before(async () => {
  ({ key, workspaceId: workspace } = await daemon.operator());
  const url = new URL(daemon.url);
  host = url.hostname;
  port = Number(url.port);
  // One event so that list answers have something in them.
  const triggered = await daemon.cli(['events', 'trigger', 'agent.created', '--json']);
  if (triggered.code !== 0) throw new Error(`events trigger failed: ${triggered.stderr}`);
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
  body: any;
}

interface RawRequest {
  method?: string;
  /** Sent exactly as given (may contain ../, %zz, raw UTF-8...). */
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Leave out the admin key and the tenant header. */
  anonymous?: boolean;
}

/** One HTTP/1.1 request over a fresh socket; resolves as soon as a complete answer is in. */
function raw(request: RawRequest): Promise<RawAnswer> {
  const body =
    request.body === undefined
      ? undefined
      : Buffer.isBuffer(request.body)
        ? request.body
        : Buffer.from(request.body, 'utf8');
  const headers: Record<string, string> = {
    host: `${host}:${port}`,
    ...(request.anonymous ? {} : { authorization: `Bearer ${key}`, 'x-tenant-id': workspace }),
    ...(body ? { 'content-length': String(body.length) } : {}),
    ...request.headers,
  };
  const head =
    `${request.method ?? 'GET'} ${request.path} HTTP/1.1\r\n` +
    Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('') +
    '\r\n';
  return exchange(Buffer.from(head, 'utf8'), request, body);
}

function exchange(
  head: Buffer,
  request: { method?: string; path: string },
  body?: Buffer,
): Promise<RawAnswer> {
  return new Promise((resolvePromise, reject) => {
    const socket = connect({ host, port });
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (answer: RawAnswer | Error) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      if (answer instanceof Error) reject(answer);
      else resolvePromise(answer);
    };
    socket.setTimeout(15_000, () =>
      finish(new Error(`no answer to ${request.method ?? 'GET'} ${request.path.slice(0, 80)}`)),
    );
    // Like a well-behaved client, give the server a moment to refuse a big body from its
    // headers alone (a 413 from Content-Length) before sending it, and stop sending once it
    // has answered: writing into a connection the server closed would reset it, and node
    // would drop the answer unread.
    const send = async () => {
      socket.write(head);
      if (!body) return;
      if (body.length > 256 * 1024) {
        await new Promise((resolveWait) => {
          const timer = setTimeout(resolveWait, 300);
          socket.once('data', () => {
            clearTimeout(timer);
            resolveWait(undefined);
          });
        });
      }
      for (let offset = 0; offset < body.length && !settled; offset += 64 * 1024) {
        if (!socket.write(body.subarray(offset, offset + 64 * 1024))) {
          await new Promise((drained) => {
            socket.once('drain', drained);
            socket.once('close', drained);
          });
        }
      }
    };
    socket.on('connect', () => void send().catch(finish));
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      try {
        const answer = parse(received, false);
        if (answer) finish(answer);
      } catch (error) {
        finish(error as Error);
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') finish(error);
    });
    socket.on('close', () => {
      try {
        finish(parse(received, true)!);
      } catch (error) {
        finish(error as Error);
      }
    });
  });
}

/** The first final answer in data; undefined while it is incomplete (unless closed). */
function parse(data: Buffer, closed: boolean): RawAnswer | undefined {
  let rest = data;
  // Skip interim answers (100 Continue).
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) {
      if (!closed) return undefined;
      throw new Error(`not an HTTP answer: ${JSON.stringify(rest.toString())}`);
    }
    const lines = rest.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1]);
    if (!status) throw new Error(`bad status line: ${lines[0]}`);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let payload = rest.subarray(end + 4);
    if (status >= 100 && status < 200) {
      rest = payload;
      continue;
    }
    if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      if (
        !closed &&
        payload.indexOf('\r\n0\r\n') === -1 &&
        !payload.subarray(0, 3).equals(Buffer.from('0\r\n'))
      )
        return undefined;
      payload = dechunk(payload);
    } else if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      if (payload.length < length && !closed) return undefined;
      payload = payload.subarray(0, length);
    } else if (!closed) {
      return undefined;
    }
    const text = payload.toString('utf8');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status, headers, text, body };
  }
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', offset);
    if (lineEnd === -1) break;
    const size = parseInt(data.subarray(offset, lineEnd).toString('latin1'), 16);
    if (!size) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** 4xx statuses the spec (and decisions) give to some error code. */
const SPEC_4XX = new Set([
  ...Object.values(ERROR_CODES)
    .map((info) => info.status)
    .filter((status) => status < 500),
  422, // validation errors may be 400 or 422
]);

const LEAKS: [RegExp, string][] = [
  [/\n\s+at /, 'a stack trace'],
  [/\bat [\w.<>]+ \(/, 'a stack frame'],
  [/node_modules/, 'node_modules'],
  [/node:internal/, 'node internals'],
  [/\.[cm]?[jt]s:\d+/, 'a source position'],
  [/\/(?:dist|daemon|shared)\//, 'a source path'],
  [/FST_[A-Z_]+/, 'a Fastify error code'],
  [/SQLITE|better-sqlite/i, 'the store'],
];

function assertSpecError(t: ExecutionContext, answer: RawAnswer, allowed?: number[]): void {
  const where = `${answer.status} ${answer.text.slice(0, 300)}`;
  t.true(SPEC_4XX.has(answer.status), `a 4xx the spec allows: ${where}`);
  if (allowed) t.true(allowed.includes(answer.status), `one of ${allowed.join('/')}: ${where}`);
  t.regex(answer.headers['content-type'] ?? '', /^application\/json/, where);
  const error = answer.body?.error;
  t.truthy(error && typeof error === 'object', `spec error body: ${where}`);
  if (!error || typeof error !== 'object') return;
  t.true(error.code in ERROR_CODES, `known code ${error.code}`);
  t.is(ERROR_CODES[error.code as keyof typeof ERROR_CODES]?.status as number, answer.status, where);
  t.is(typeof error.message, 'string');
  t.true(error.message.length > 0);
  t.regex(error.request_id ?? '', /^req_/);
  t.is(error.request_id, answer.headers['x-request-id'], 'error.request_id = X-Request-Id');
  t.is(answer.body.meta?.request_id, error.request_id);
  t.is(error.documentation_url, `${daemon.url}/docs/errors#${error.code}`);
  for (const [pattern, what] of LEAKS) {
    t.false(pattern.test(answer.text), `the answer leaks ${what}: ${where}`);
  }
  t.false(answer.text.includes(ROOT), 'the answer leaks the install path');
  t.false(answer.text.includes(daemon.dataDir), 'the answer leaks the data dir');
  t.false(answer.text.includes(key), 'the answer echoes the key');
}

/** A GET route may ignore a body; if it does, the answer must still be a normal list. */
function assertIgnoredOrRefused(t: ExecutionContext, answer: RawAnswer): void {
  if (answer.status === 200) {
    t.true(Array.isArray(answer.body?.data), answer.text.slice(0, 200));
    t.is(answer.body.meta.request_id, answer.headers['x-request-id']);
  } else {
    assertSpecError(t, answer);
  }
}

const JSON_TYPE = { 'content-type': 'application/json' };
const deepArrays = '['.repeat(100_000) + ']'.repeat(100_000);
const deepObjects = '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000);

const BODIES: [string, Buffer | string, Record<string, string>][] = [
  ['random bytes', randomBytes(4096), JSON_TYPE],
  ['truncated JSON', '{"name": "agent", "steps": [{"id": "a", "type": ', JSON_TYPE],
  ['truncated string', '{"name": "unterminated', JSON_TYPE],
  ['trailing garbage', '{"a": 1} xyz', JSON_TYPE],
  ['a JSON array', '[1, 2, 3]', JSON_TYPE],
  ['a JSON string', '"hello"', JSON_TYPE],
  ['JSON null', 'null', JSON_TYPE],
  ['a JSON number', '42', JSON_TYPE],
  ['__proto__ key', '{"__proto__": {"polluted": true}}', JSON_TYPE],
  ['constructor.prototype key', '{"constructor": {"prototype": {"polluted": true}}}', JSON_TYPE],
  ['deeply nested arrays', deepArrays, JSON_TYPE],
  ['deeply nested objects', deepObjects, JSON_TYPE],
  ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), JSON_TYPE],
  ['text/plain', 'name=x', { 'content-type': 'text/plain' }],
  ['application/xml', '<agent><name>x</name></agent>', { 'content-type': 'application/xml' }],
  ['multipart without boundary', '--x\r\n\r\n', { 'content-type': 'multipart/form-data' }],
  ['form-encoded', 'a=1&b=2', { 'content-type': 'application/x-www-form-urlencoded' }],
  ['no content type', '{"a":1}', {}],
  ['JSON with an odd charset', '{"a":1}', { 'content-type': 'application/json; charset=utf-7' }],
];

for (const [name, body, headers] of BODIES) {
  test.serial(`body: ${name} to POST /v1/events (no POST route) is refused`, async (t) => {
    const answer = await raw({ method: 'POST', path: '/v1/events', body, headers });
    assertSpecError(t, answer, [400, 405, 413]);
  });
  test.serial(`body: ${name} to a GET route is ignored or refused`, async (t) => {
    assertIgnoredOrRefused(t, await raw({ path: '/v1/events', body, headers }));
  });
}

test.serial('body: 2 MiB is 413 payload_too_large', async (t) => {
  const big = Buffer.from(`{"data":"${'x'.repeat(2 * 1024 * 1024)}"}`);
  const answer = await raw({ method: 'POST', path: '/v1/events', body: big, headers: JSON_TYPE });
  assertSpecError(t, answer, [413]);
  t.is(answer.body?.error?.code, 'payload_too_large');
  const unknown = await raw({ method: 'POST', path: '/v1/nope', body: big, headers: JSON_TYPE });
  assertSpecError(t, unknown, [404, 413]);
  assertIgnoredOrRefused(t, await raw({ path: '/v1/events', body: big, headers: JSON_TYPE }));
});

test.serial('body: invalid JSON to a POST is 400 invalid_request_body', async (t) => {
  for (const path of ['/v1/events', '/v1/nope']) {
    const answer = await raw({ method: 'POST', path, body: '{"a":', headers: JSON_TYPE });
    assertSpecError(t, answer, [400, 404, 405]);
  }
});

test.serial('unicode and emoji in query values', async (t) => {
  for (const value of ['😀', 'agent.créé', '日本語', '\u202e', '\u0000', '%F0%9F%98%80']) {
    const encoded = encodeURIComponent(value);
    const type = await raw({ path: `/v1/events?type=${encoded}` });
    assertSpecError(t, type, [400]);
    t.is(type.body?.error?.param, 'type');
    const cursor = await raw({ path: `/v1/events?starting_after=evt_${encoded}` });
    assertSpecError(t, cursor, [400]);
    const limit = await raw({ path: `/v1/events?limit=${encoded}` });
    assertSpecError(t, limit, [400]);
    t.is(limit.body?.error?.param, 'limit');
    const unknownName = await raw({ path: `/v1/events?${encoded}=1` });
    assertSpecError(t, unknownName, [400]);
  }
});

test.serial('raw (unencoded) UTF-8 in the request line is a 400 without internals', async (t) => {
  // Not valid HTTP (the request-target must be ASCII): node's parser refuses it before there
  // is a request, so only the status and the absence of internals are checked here.
  for (const path of ['/v1/events?type=😀', '/v1/events/evt_😀', '/v1/ëvents']) {
    const answer = await raw({ path });
    t.is(answer.status, 400, answer.text);
    for (const [pattern, what] of LEAKS) {
      t.false(pattern.test(answer.text), `the answer leaks ${what}: ${answer.text}`);
    }
  }
});

test.serial('unicode and emoji in headers', async (t) => {
  const tenant = await raw({ path: '/v1/events', headers: { 'x-tenant-id': 'ws_😀' } });
  assertSpecError(t, tenant, [403]);
  t.is(tenant.body?.error?.code, 'tenant_forbidden');

  const auth = await raw({
    path: '/v1/auth/me',
    anonymous: true,
    headers: { authorization: 'Bearer sk_test_😀😀😀' },
  });
  assertSpecError(t, auth, [401]);
  t.is(auth.body?.error?.code, 'invalid_token');

  const latin = await raw({
    path: '/v1/auth/me',
    anonymous: true,
    headers: { authorization: 'Bearer sk_test_ÄÖÜ' },
  });
  assertSpecError(t, latin, [401]);

  // An unrelated header with emoji is harmless.
  const extra = await raw({ path: '/v1/auth/me', headers: { 'x-note': 'héllo 😀 wörld' } });
  t.is(extra.status, 200, extra.text);
  t.is(extra.body?.data?.workspace_id, workspace);

  const accept = await raw({ path: '/v1/auth/me', headers: { accept: 'application/😀' } });
  t.true(accept.status === 200 || SPEC_4XX.has(accept.status), `${accept.status}`);
});

const HOSTILE_IDS = [
  '..%2F..%2Fetc%2Fpasswd',
  '%2e%2e%2f',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '..%5c..%5cwindows',
  '%00',
  'evt_%00',
  'evt_abc%00.json',
  '%20',
  "evt_'%20OR%201=1--",
  'evt_%22%3E%3Cscript%3E',
  '%F0%9F%98%80',
  'evt_' + 'a'.repeat(150),
];

// Paths that must each end in a spec error of one of the statuses, never a server error.
const HOSTILE_PATHS: [title: string, paths: string[], statuses: number[]][] = [
  [
    'hostile event ids are 404 (or 400), never a server error',
    HOSTILE_IDS.map((id) => `/v1/events/${id}`),
    [400, 404],
  ],
  [
    'raw ../ segments in the path are 404',
    [
      '/v1/events/../../etc/passwd',
      '/v1/events/../auth/me/../../../etc/passwd',
      '/v1/../../../etc/passwd',
      '/../../etc/passwd',
      '/v1/events/./././evt_x',
    ],
    [400, 404],
  ],
  [
    'invalid percent-encoding in the path is a spec error',
    [
      '/v1/events/%zz',
      '/v1/events/evt_%',
      '/v1/events/%E0%A4%A',
      '/v1/%zz',
      '/%zz',
      '/v1/auth/me%zz',
    ],
    [400, 404],
  ],
  [
    'invalid percent-encoding in the query is a spec error',
    ['type=%zz', 'limit=%', 'starting_after=%E0%A4%A', '%zz=1'].map((q) => `/v1/events?${q}`),
    [400],
  ],
];

for (const [title, paths, statuses] of HOSTILE_PATHS) {
  test.serial(title, async (t) => {
    for (const path of paths) assertSpecError(t, await raw({ path }), statuses);
  });
}

test.serial('overlong ids are refused with a spec error', async (t) => {
  for (const length of [201, 1000, 7000]) {
    const answer = await raw({ path: `/v1/events/evt_${'x'.repeat(length)}` });
    assertSpecError(t, answer, [400, 404]);
  }
  const longCursor = await raw({ path: `/v1/events?starting_after=evt_${'x'.repeat(5000)}` });
  assertSpecError(t, longCursor, [400]);
  t.is(longCursor.body?.error?.param, 'starting_after');
  const longType = await raw({ path: `/v1/events?type=${'agent.'.repeat(1000)}created` });
  assertSpecError(t, longType, [400]);
});

test.serial('duplicate query parameters are 400 invalid_parameter', async (t) => {
  const limit = await raw({ path: '/v1/events?limit=5&limit=6' });
  assertSpecError(t, limit, [400]);
  t.is(limit.body?.error?.code, 'invalid_parameter');
  t.is(limit.body?.error?.param, 'limit');
  const type = await raw({ path: '/v1/events?type=agent.created&type=workflow.created' });
  assertSpecError(t, type, [400]);
  t.is(type.body?.error?.param, 'type');
  const sameTwice = await raw({ path: '/v1/events?limit=5&limit=5' });
  assertSpecError(t, sameTwice, [400]);
});

test.serial('duplicate headers are refused or resolved, never a server error', async (t) => {
  // Two X-Tenant-ID lines: node joins them; the daemon must not pick one silently.
  const head =
    `GET /v1/events HTTP/1.1\r\nhost: ${host}:${port}\r\nconnection: close\r\n` +
    `authorization: Bearer ${key}\r\nx-tenant-id: ${workspace}\r\nx-tenant-id: ws_other\r\n\r\n`;
  const answer = await exchange(Buffer.from(head, 'utf8'), { path: '/v1/events' });
  assertSpecError(t, answer, [400, 403]);
});

test.serial('huge and odd limit values are 400 invalid_parameter', async (t) => {
  for (const limit of [
    '99999999999999999999999999',
    '1e400',
    '-0',
    '0x10',
    'Infinity',
    'NaN',
    '1,2',
    '[1]',
    '%2B5',
    '5%00',
    '9'.repeat(5000),
  ]) {
    const answer = await raw({ path: `/v1/events?limit=${limit}` });
    assertSpecError(t, answer, [400]);
    t.is(answer.body?.error?.param, 'limit', `limit=${limit.slice(0, 30)}`);
  }
});

test.serial('odd methods get 404/405, not a crash', async (t) => {
  for (const method of ['PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
    const answer = await raw({ method, path: '/v1/events' });
    if (method === 'OPTIONS' && answer.status === 204) {
      t.pass('OPTIONS answered 204');
      continue;
    }
    assertSpecError(t, answer, [404, 405]);
  }
});

test.serial('the daemon is still responsive after the battery', async (t) => {
  const health = await daemon.request('/healthz');
  t.is(health.status, 200);
  t.is(health.body.status, 'ok');
  const me = await daemon.request('/v1/auth/me', { key });
  t.is(me.status, 200);
  t.is(me.body.data.workspace_id, workspace);
  const events = await daemon.request('/v1/events', { key, tenant: workspace });
  t.is(events.status, 200);
  t.is(events.body.total_count, 1);
  const status = await daemon.cli(['daemon', 'status', '--json']);
  t.is(status.code, 0, status.stderr);
  t.is(status.json<{ pid: number }>().pid, daemon.pid);
});
