// Input that used to make the daemon do unbounded work or fail with a 500 (issue 10, items 5
// and 6): JSON nested thousands deep in any body, and multipart bodies the parser cannot read.
// Each answers a 400 with the spec's error body, stores nothing, and the daemon stays up.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sharedDaemon } from '../helpers/setup.js';
import { createAgent } from '../helpers/agents.js';

const d = sharedDaemon(test);
let auth: { key: string; tenant: string };

test.before(async () => {
  const operator = await d.operator();
  auth = { key: operator.key, tenant: operator.workspaceId };
});

/** `{"a":{"a":...}}` with `levels` objects. */
function nested(levels: number): string {
  return '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);
}

function postRaw(path: string, body: string, contentType = 'application/json') {
  return d.request(path, {
    method: 'POST',
    key: auth.key,
    tenant: auth.tenant,
    headers: { 'content-type': contentType },
    body,
  });
}

/** A deployed L3 agent of the default workspace. */
function activeAgent(): Promise<string> {
  return createAgent((method, path, body) => d.callJson(method, path, body, auth), {
    name: 'Bounded',
  });
}

test.serial(
  'JSON nested 10,000 deep in integration config: 400 invalid_parameter naming config, nothing stored',
  async (t) => {
    const before = await d.callJson('GET', '/v1/integrations', undefined, auth);
    const answer = await postRaw(
      '/v1/integrations',
      `{"provider":"slack","config":${nested(10_000)}}`,
    );
    t.is(answer.status, 400, answer.text);
    t.is(answer.body.error.code, 'invalid_parameter');
    t.is(answer.body.error.param, 'config');
    t.regex(answer.body.error.message, /nested more than 64 levels/);
    const after = await d.callJson('GET', '/v1/integrations', undefined, auth);
    t.is(after.body.data.length, before.body.data.length);
  },
);

test('JSON nested 10,000 deep in execute context: 400 naming context; arrays count too', async (t) => {
  const agentId = await activeAgent();
  const deepObject = await postRaw(
    `/v1/agents/${agentId}/execute`,
    `{"input":"hi","context":${nested(10_000)}}`,
  );
  t.is(deepObject.status, 400, deepObject.text);
  t.is(deepObject.body.error.param, 'context');
  const deepArray = await postRaw(
    `/v1/agents/${agentId}/execute`,
    `{"input":"hi","context":{"list":${'['.repeat(5_000)}${']'.repeat(5_000)}}}`,
  );
  t.is(deepArray.status, 400, deepArray.text);
  t.is(deepArray.body.error.code, 'invalid_parameter');
  t.is(deepArray.body.error.param, 'context');
  // Brackets inside strings are text, not nesting.
  const brackets = await postRaw(
    `/v1/agents/${agentId}/execute`,
    JSON.stringify({ input: 'x', context: { note: '{['.repeat(500) }, wait_for_completion: true }),
  );
  t.is(brackets.status, 200, brackets.text);
});

test.serial('64 levels are accepted, 65 are not', async (t) => {
  // The body object is level 1: config holds the other 63 (then 64).
  const atLimit = await postRaw('/v1/integrations', `{"provider":"slack","config":${nested(63)}}`);
  t.is(atLimit.status, 201, atLimit.text);
  const over = await postRaw('/v1/integrations', `{"provider":"slack","config":${nested(64)}}`);
  t.is(over.status, 400, over.text);
  t.is(over.body.error.param, 'config');
});

test('a deep JSON body on any route and on the control channel is refused, and the daemon stays up', async (t) => {
  const webhooks = await postRaw('/v1/webhooks', nested(20_000));
  t.is(webhooks.status, 400, webhooks.text);
  t.is(webhooks.body.error.code, 'invalid_parameter');
  const authorization = `Bearer ${readFileSync(join(d.dataDir, 'control-token'), 'utf8').trim()}`;
  const deepData = `{"type":"agent.created","data":${nested(20_000)}}`;
  const control = await d.request('/trpc/events.trigger', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization },
    body: deepData,
  });
  t.is(control.status, 400, control.text);
  t.is(control.body.error.data.code, 'BAD_REQUEST');
  const query = await d.request(
    `/trpc/keys.list?input=${encodeURIComponent('['.repeat(100) + ']'.repeat(100))}`,
    {
      headers: { authorization },
    },
  );
  t.is(query.status, 400, query.text.slice(0, 300));
  t.is((await d.request('/healthz')).status, 200);
});

const BROKEN_MULTIPART: [string, string, string | Buffer][] = [
  ['no boundary parameter', 'multipart/form-data', '--x\r\n\r\n'],
  [
    'wrong boundary',
    'multipart/form-data; boundary=expected',
    '--other\r\nContent-Disposition: form-data; name="type"\r\n\r\nfaq\r\n--other--\r\n',
  ],
  [
    'no closing boundary',
    'multipart/form-data; boundary=b0',
    '--b0\r\nContent-Disposition: form-data; name="type"\r\n\r\nfaq\r\n' +
      '--b0\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nSome text',
  ],
  [
    'truncated part headers',
    'multipart/form-data; boundary=b1',
    '--b1\r\nContent-Disposition: form-data; name="file"; filena',
  ],
  [
    'garbage',
    'multipart/form-data; boundary=b2',
    Buffer.from([0x00, 0xff, 0x13, 0x37, 0x2d, 0x2d, 0x62, 0x32, 0x0d, 0x0a, 0xfe, 0x00]),
  ],
];

test('malformed multipart on a knowledge upload: 400 invalid_request_body, nothing stored', async (t) => {
  const agentId = await activeAgent();
  for (const [name, contentType, body] of BROKEN_MULTIPART) {
    const answer = await d.request(`/v1/agents/${agentId}/knowledge`, {
      method: 'POST',
      key: auth.key,
      tenant: auth.tenant,
      headers: { 'content-type': contentType },
      body: typeof body === 'string' ? body : new Uint8Array(body),
    });
    t.is(answer.status, 400, `${name}: ${answer.text}`);
    t.is(answer.body?.error?.code, 'invalid_request_body', name);
    t.false(/at |node_modules|\.js:\d+/.test(answer.text), `${name}: internals leaked`);
  }
  const listed = await d.callJson('GET', `/v1/agents/${agentId}/knowledge`, undefined, auth);
  t.is(listed.status, 200);
  t.deepEqual(listed.body.data, []);
  t.is((await d.request('/healthz')).status, 200);
});

test('a multipart body to a JSON route: 400 invalid_request_body naming Content-Type, nothing stored', async (t) => {
  const answer = await d.request('/v1/agents', {
    method: 'POST',
    key: auth.key,
    tenant: auth.tenant,
    headers: { 'content-type': 'multipart/form-data; boundary=b3' },
    body: '--b3\r\nContent-Disposition: form-data; name="name"\r\n\r\nmulti\r\n--b3--\r\n',
  });
  t.is(answer.status, 400, answer.text);
  t.is(answer.body?.error?.code, 'invalid_request_body');
  t.is(answer.body?.error?.param, 'Content-Type');
  const listed = await d.callJson('GET', '/v1/agents?limit=100', undefined, auth);
  t.false(listed.body.data.some((agent: { name: string }) => agent.name === 'multi'));
});
