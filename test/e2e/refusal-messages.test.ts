// Refusals that say what was refused and how to fix it (issue 38 item 9, issue 39): a valid JSON
// or YAML document with a __proto__ or constructor.prototype key (REST body, hook body, workflow
// file), a URL scheme outside what the environment accepts, and out-of-range values on the
// control channel (raw and through the CLI's flags), which tRPC used to answer with zod's issues
// as JSON for a message.
import test, { type ExecutionContext } from 'ava';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAgent } from '../helpers/agents.js';
import { apiCaller, trpc } from '../helpers/api.js';
import { assertExit, type CliResult } from '../helpers/daemon.js';
import { sharedDaemon } from '../helpers/setup.js';
import { tempDir } from '../helpers/temp-dir.js';

const d = sharedDaemon(test);
let key: string;
let ws: string;
let agent: string;
const files = tempDir('svc-refusals-');

test.before(async () => {
  ({ key, workspaceId: ws } = await d.operator());
  agent = await createAgent(
    apiCaller(() => ({ daemon: d, key, tenant: ws })),
    {},
    false,
  );
});

/** POSTs `text` as it is (a JS object literal would turn "__proto__" into a prototype). */
function postText(path: string, text: string, auth = true) {
  return d.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: text,
    ...(auth ? { key, tenant: ws } : {}),
  });
}

const POLLUTION = /prototype pollution\)\. Rename or remove the key\.$/;

/** A usage error (exit 2) whose message is exactly `message`, on stderr and in --json. */
async function refusedUsage(t: ExecutionContext, args: string[], message: string) {
  const plain = await d.cli([...args, '--workspace', ws]);
  assertExit(t, plain, 2);
  t.is(plain.stderr.trim(), `Error: ${message}`);
  const json = await d.cli([...args, '--workspace', ws, '--json']);
  assertExit(t, json, 2);
  t.like(json.json().error, { code: 'usage_error', message });
}

function errorOf(result: CliResult) {
  return result.json().error as { code: string; message: string; param?: string };
}

test('REST: a __proto__ or constructor.prototype key is named, valid JSON is not called invalid', async (t) => {
  const workflow = await postText(
    '/v1/workflows',
    '{"name": "W", "steps": [{"id": "w", "name": "W", "type": "wait", "config": {"duration_seconds": 0, "__proto__": {"admin": true}}}]}',
  );
  t.is(workflow.status, 400, workflow.text);
  t.like(workflow.body.error, {
    code: 'invalid_request_body',
    param: 'steps[0].config.__proto__',
  });
  t.regex(
    workflow.body.error.message,
    /^The request body is valid JSON, but the key 'steps\[0\]\.config\.__proto__' is refused: a __proto__ key could rewrite the prototype shared by all objects/,
  );
  t.regex(workflow.body.error.message, POLLUTION);

  const webhook = await postText(
    '/v1/webhooks',
    '{"url": "http://127.0.0.1:9/x", "events": ["agent.created"], "metadata": {"constructor": {"prototype": {"admin": true}}}}',
  );
  t.is(webhook.status, 400, webhook.text);
  t.like(webhook.body.error, { code: 'invalid_request_body', param: 'metadata.constructor' });
  t.regex(
    webhook.body.error.message,
    /^The request body is valid JSON, but the key 'metadata\.constructor' holds a 'prototype' key, which is refused: constructor\.prototype could rewrite/,
  );

  // Spelled with an escape, at the top level.
  const escaped = await postText('/v1/agents', '{"\\u005f_proto__": {"admin": true}}');
  t.is(escaped.status, 400, escaped.text);
  t.like(escaped.body.error, { code: 'invalid_request_body', param: '__proto__' });

  // A constructor key holding no prototype is data like any other; broken JSON is still named so.
  const broken = await postText('/v1/agents', '{"name": "x",');
  t.like(broken.body.error, {
    code: 'invalid_request_body',
    message: 'The request body is not valid JSON. Check quotes, commas and brackets.',
  });
  const list = await d.callJson('GET', '/v1/workflows', undefined, { key, tenant: ws });
  t.false(
    list.body.data.some((workflow: { name: string }) => workflow.name === 'W'),
    'the refused workflow was not created',
  );
});

test('a hook body with a __proto__ key is refused naming it, and starts no run', async (t) => {
  const created = await d.callJson(
    'POST',
    '/v1/workflows',
    {
      name: 'Intake',
      status: 'active',
      trigger: { type: 'webhook', config: { path: 'intake' } },
      steps: [{ id: 'w', name: 'W', type: 'wait', config: { duration_seconds: 0 } }],
    },
    { key, tenant: ws },
  );
  t.is(created.status, 201, created.text);
  const hook = await postText(
    `/v1/hooks/${ws}/intake`,
    '{"order": {"id": 7, "__proto__": {"admin": true}}}',
    false,
  );
  t.is(hook.status, 400, hook.text);
  t.like(hook.body.error, { code: 'invalid_request_body', param: 'order.__proto__' });
  t.regex(hook.body.error.message, /the key 'order\.__proto__' is refused/);
  const runs = await d.callJson(
    'GET',
    `/v1/workflows/${created.body.data.id}/executions`,
    undefined,
    { key, tenant: ws },
  );
  t.is(runs.body.data.length, 0, runs.text);
  // The same body without the key starts a run.
  const fine = await postText(`/v1/hooks/${ws}/intake`, '{"order": {"id": 7}}', false);
  t.is(fine.status, 202, fine.text);
});

test('svc workflows create -f: a __proto__ or constructor.prototype key in YAML or JSON is named', async (t) => {
  const yaml = join(files, 'proto.yaml');
  writeFileSync(
    yaml,
    'name: Polluting\nsteps:\n  - id: w\n    name: W\n    type: wait\n    config:\n      duration_seconds: 0\n      __proto__:\n        admin: true\n',
  );
  await refusedUsage(
    t,
    ['workflows', 'create', '-f', yaml],
    `-f ${yaml}: the key 'steps[0].config.__proto__' is refused: a __proto__ key could rewrite the prototype shared by all objects (prototype pollution). Rename or remove the key.`,
  );

  const json = join(files, 'proto.json');
  writeFileSync(
    json,
    JSON.stringify({ name: 'Polluting', steps: [] }).replace('{', '{"__proto__": {"admin": true},'),
  );
  await refusedUsage(
    t,
    ['workflows', 'create', '-f', json],
    `-f ${json}: the key '__proto__' is refused: a __proto__ key could rewrite the prototype shared by all objects (prototype pollution). Rename or remove the key.`,
  );

  const ctor = join(files, 'constructor.yml');
  writeFileSync(
    ctor,
    'name: Polluting\nsettings:\n  constructor:\n    prototype:\n      admin: true\n',
  );
  await refusedUsage(
    t,
    ['workflows', 'create', '-f', ctor],
    `-f ${ctor}: the key 'settings.constructor' holds a 'prototype' key, which is refused: constructor.prototype could rewrite the prototype shared by all objects (prototype pollution). Rename or remove the key.`,
  );
});

test('file: and ftp: webhook and step URLs: the message names what the sandbox accepts', async (t) => {
  for (const url of ['file:///etc/passwd', 'ftp://example.com/hooks']) {
    const scheme = new URL(url).protocol;
    const message = `The URL must use http:// or https:// in the sandbox environment (got ${scheme}).`;
    const hook = await d.callJson(
      'POST',
      '/v1/webhooks',
      { url, events: ['agent.created'] },
      { key, tenant: ws },
    );
    t.is(hook.status, 400, hook.text);
    t.like(hook.body.error, { code: 'invalid_url', param: 'url', message });

    const step = await d.callJson(
      'POST',
      '/v1/workflows',
      {
        name: 'Caller',
        steps: [{ id: 'call', name: 'Call', type: 'webhook', config: { url, method: 'POST' } }],
      },
      { key, tenant: ws },
    );
    t.is(step.status, 400, step.text);
    t.like(step.body.error, { param: 'steps[0].config.url', message });

    const cli = await d.cli([
      'webhooks',
      'create',
      '--url',
      url,
      '--events',
      'agent.created',
      '--workspace',
      ws,
      '--json',
    ]);
    assertExit(t, cli, 1);
    t.like(errorOf(cli), { code: 'invalid_url', message });
  }
});

test('svc agents stub add --match over 500 characters: one sentence with the limit', async (t) => {
  const long = 'x'.repeat(501);
  await refusedUsage(
    t,
    ['agents', 'stub', 'add', agent, '--match', long, '--fail', 'external_api_error'],
    '--match takes at most 500 characters; this one has 501.',
  );
  // The control channel itself, as any client reaches it.
  const raw = await trpc(d, 'agents.stubs.add', {
    agent_id: agent,
    match: long,
    fail: 'external_api_error',
  });
  t.is(raw.status, 400, raw.text);
  t.is(
    raw.error?.message,
    "The field 'match' is too long: it takes at most 500 characters (got 501).",
  );
  t.like(raw.error?.data, { svc_code: 'invalid_parameter', svc_param: 'match' });
  // 500 characters are fine.
  const fits = await d.cli([
    'agents',
    'stub',
    'add',
    agent,
    '--match',
    'x'.repeat(500),
    '--fail',
    'external_api_error',
    '--json',
  ]);
  assertExit(t, fits, 0);
});

test('svc faults add: out-of-range flags are one sentence naming the flag and its range', async (t) => {
  const where = ['faults', 'add', '--url-prefix', 'http://127.0.0.1:9/'];
  await refusedUsage(
    t,
    [...where, '--status', '503', '--attempts', '1-1000000'],
    '--attempts takes N or FROM-TO with 1 <= FROM <= TO <= 1000, e.g. 1-2; got "1-1000000".',
  );
  await refusedUsage(
    t,
    [...where, '--status', '503', '--times', '0'],
    '--times takes an integer from 1 to 1000000; got "0".',
  );
  await refusedUsage(
    t,
    [...where, '--status', '700'],
    '--status takes an HTTP status from 100 to 599; got "700".',
  );
  await refusedUsage(
    t,
    [...where, '--latency', '25h'],
    '--latency takes a duration from 1ms to 1d, such as 500ms, 2s or 1m; got "25h".',
  );
  await refusedUsage(
    t,
    [...where, '--reset', '--match', 'y'.repeat(501)],
    '--match takes at most 500 characters; this one has 501.',
  );
  // The bounds themselves are accepted.
  const edge = await d.cli([
    ...where,
    '--status',
    '599',
    '--attempts',
    '1-1000',
    '--times',
    '1000000',
    '--latency',
    '24h',
    '--workspace',
    ws,
    '--json',
  ]);
  assertExit(t, edge, 0);
  t.like(edge.json(), {
    when: { attempts: { from: 1, to: 1000 }, times: 1_000_000 },
    what: { status: 599, latency_ms: 86_400_000 },
  });
});

test('control channel: every refused input is one sentence naming the field and its bound', async (t) => {
  const base = { workspace_id: ws, url_prefix: 'http://127.0.0.1:9/' };
  const cases: [Record<string, unknown>, string, string][] = [
    [{ status: 503, attempts_to: 1_000_000 }, 'attempts_to', 'must be at most 1000 (got 1000000)'],
    [{ status: 503, times: 0 }, 'times', 'must be at least 1 (got 0)'],
    [{ status: 700 }, 'status', 'must be at most 599 (got 700)'],
    [{ latency_ms: 90_000_000 }, 'latency_ms', 'must be at most 86400000 (got 90000000)'],
  ];
  for (const [fields, param, bound] of cases) {
    const answer = await trpc(d, 'faults.add', { ...base, ...fields });
    t.is(answer.status, 400, answer.text);
    const small = bound.includes('least') ? 'small' : 'big';
    t.is(answer.error?.message, `The field '${param}' is too ${small}: it ${bound}.`);
    t.like(answer.error?.data, { svc_code: 'invalid_parameter', svc_param: param });
  }
  // Other kinds of issue read the same way as the REST API's.
  const unknown = await trpc(d, 'faults.add', { ...base, status: 503, colour: 'red' });
  t.is(
    unknown.error?.message,
    "Unknown field 'colour'. Remove it; see /openapi.json for the accepted fields.",
  );
  const missing = await trpc(d, 'agents.stubs.add', { agent_id: agent, fail: 'x' });
  t.like(missing.error?.data, { svc_code: 'missing_required_field', svc_param: 'match' });
  const wrongType = await trpc(d, 'faults.add', { ...base, status: '503' });
  t.is(wrongType.error?.message, "The field 'status' must be a number.");
  // The attempts range names the control channel's fields first (the testing kit and the
  // dashboard send them), then the CLI's flag.
  const noFrom = await trpc(d, 'faults.add', { ...base, status: 503, attempts_to: 1 });
  t.is(
    noFrom.error?.message,
    'attempts_to needs attempts_from (the CLI: --attempts N or FROM-TO, e.g. 1-2).',
  );
  const backwards = await trpc(d, 'faults.add', {
    ...base,
    status: 503,
    attempts_from: 3,
    attempts_to: 2,
  });
  t.like(backwards.error, {
    message:
      'attempts_from must not exceed attempts_to (the CLI: --attempts FROM-TO with FROM <= TO, e.g. 1-2).',
  });
});
