// Secrets from the user's side: `svc secrets set|list|delete` per workspace, `{{secrets.NAME}}`
// reaching the receiver of a webhook step, and the value never showing anywhere else: not in
// the CLI's output, the execution view, the stored events, webhook deliveries, the daemon log,
// nor in plain text in the database files. A missing secret fails the step, naming it.
import test from 'ava';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { control } from '../helpers/api.js';
import { assertExit, type CliResult } from '../helpers/daemon.js';
import { scopedKeys, sharedDaemon } from '../helpers/setup.js';
import { closeServer, listenLocally } from '../helpers/local-server.js';
import { startReceiver } from '../helpers/receiver.js';
import { activeAgent, allEvents, apiFor, createWorkflow, type Api } from '../helpers/workflows.js';

const d = sharedDaemon(test);

function svc(ws: string, ...args: string[]): Promise<CliResult> {
  return d.cli([...args, '--workspace', ws]);
}

/**
 * Sets a secret over the control channel, as `svc secrets set` does (the command is the first
 * test's): setup for the tests whose subject is where the value goes.
 */
async function setSecret(ws: string, name: string, value: string): Promise<void> {
  await control(d, 'secrets.set', { name, value, workspace_id: ws });
}

/** A value that cannot appear by chance, so that finding it anywhere is a leak. */
function secretValue(label: string): string {
  return `s3cr3t-${label}-${Math.random().toString(36).slice(2)}${Date.now()}`;
}

test('set, list (names only) and delete secrets, per workspace', async (t) => {
  const ws = await d.createWorkspace('secrets-crud');
  const other = await d.createWorkspace('secrets-other');
  const value = secretValue('crud');

  const set = await svc(ws, 'secrets', 'set', 'API_TOKEN', value, '--json');
  assertExit(t, set, 0);
  t.like(set.json(), { name: 'API_TOKEN', workspace_id: ws });
  t.false(set.stdout.includes(value), 'set does not print the value back');
  const human = await svc(ws, 'secrets', 'set', 'SECOND', secretValue('second'));
  assertExit(t, human, 0);
  t.regex(human.stdout, /SECOND/);

  const listed = await svc(ws, 'secrets', 'list', '--json');
  assertExit(t, listed, 0);
  t.deepEqual(
    listed
      .json()
      .data.map((secret: { name: string }) => secret.name)
      .sort(),
    ['API_TOKEN', 'SECOND'],
  );
  t.false(listed.stdout.includes(value));
  t.deepEqual((await svc(other, 'secrets', 'list', '--json')).json().data, [], 'another workspace');

  const replaced = await svc(ws, 'secrets', 'set', 'API_TOKEN', secretValue('again'), '--json');
  assertExit(t, replaced, 0);
  t.is((await svc(ws, 'secrets', 'list', '--json')).json().data.length, 2, 'set replaces');

  const deleted = await svc(ws, 'secrets', 'delete', 'SECOND', '--json');
  assertExit(t, deleted, 0);
  t.deepEqual(
    (await svc(ws, 'secrets', 'list', '--json')).json().data.map((s: { name: string }) => s.name),
    ['API_TOKEN'],
  );
  const unknown = await svc(ws, 'secrets', 'delete', 'SECOND', '--json');
  assertExit(t, unknown, 1);
  assertExit(t, await svc(ws, 'secrets', 'set', 'not-a-name', 'x'), 2);
  assertExit(t, await svc(ws, 'secrets', 'set', 'ONLY_NAME'), 2);
});

function notifyWorkflow(url: string, secret: string) {
  return {
    name: 'Call with a token',
    steps: [
      {
        id: 'call',
        name: 'Call the API',
        type: 'webhook',
        config: {
          url,
          method: 'POST',
          headers: { Authorization: `Bearer {{secrets.${secret}}}` },
          body: { token: `{{secrets.${secret}}}`, order: '{{trigger.payload.order}}' },
        },
        next_step_id: 'echo',
      },
      {
        id: 'echo',
        name: 'Echo the call',
        type: 'webhook',
        config: { url, method: 'POST', body: { previous: '{{call.result}}' } },
      },
    ],
  };
}

test('a secret reaches the receiver and nothing else', async (t) => {
  const ws = await d.createWorkspace('secrets-use');
  const api: Api = await apiFor(d, ws);
  const receiver = await startReceiver(t);
  const value = secretValue('use');
  await setSecret(ws, 'PAYMENTS_TOKEN', value);
  // Every event of the workspace also goes to a webhook: deliveries must not carry the value.
  const hooks = await startReceiver(t);
  const hook = await api('POST', '/webhooks', {
    url: hooks.url,
    events: [
      'workflow.execution.started',
      'workflow.execution.step_completed',
      'workflow.execution.completed',
    ],
  });
  t.is(hook.status, 201);
  const workflowId = await createWorkflow(api, notifyWorkflow(receiver.url, 'PAYMENTS_TOKEN'));

  const run = await svc(
    ws,
    'workflows',
    'run',
    workflowId,
    '--input',
    '{"order": "A-1"}',
    '--wait',
    '--json',
  );
  assertExit(t, run, 0);
  t.false(run.stdout.includes(value), 'run --wait output');
  t.false(run.stderr.includes(value), 'run --wait progress');

  const [call, echo] = receiver.requests;
  t.is(call?.header('authorization'), `Bearer ${value}`, 'the receiver got the real value');
  t.is(call?.json().token, value);
  t.false(echo!.body.includes(value), 'a later step sees [secret:NAME], not the value');

  const execution = run.json();
  const stored = JSON.stringify(
    (await api('GET', `/workflows/${workflowId}/executions/${execution.execution_id}`)).body,
  );
  t.false(stored.includes(value), 'execution view');

  const events = JSON.stringify(await allEvents(api, 'workflow.*'));
  t.true(events.length > 2);
  t.false(events.includes(value), 'stored events');
  await hooks.waitFor((requests) => requests.length >= 3);
  t.false(
    hooks.requests.some((request) => request.body.includes(value)),
    'webhook deliveries',
  );

  const shown = await svc(ws, 'workflows', 'execution', workflowId, execution.execution_id);
  t.false(shown.stdout.includes(value), 'svc workflows execution');

  t.false(readFileSync(join(d.dataDir, 'logs', 'daemon.log'), 'utf8').includes(value), 'log');
  for (const file of readdirSync(d.dataDir).filter((name) => name.startsWith('svc.db'))) {
    t.false(
      readFileSync(join(d.dataDir, file)).includes(Buffer.from(value)),
      `${file} holds no plain text value`,
    );
  }
  t.is(statSync(join(d.dataDir, 'secret.key')).mode & 0o777, 0o600, 'key file mode 0600');
});

test('a missing secret fails the step with a message naming it', async (t) => {
  const ws = await d.createWorkspace('secrets-missing');
  const api = await apiFor(d, ws);
  const receiver = await startReceiver(t);
  const workflowId = await createWorkflow(api, notifyWorkflow(receiver.url, 'NOT_SET'));
  const run = await svc(ws, 'workflows', 'run', workflowId, '--wait');
  assertExit(t, run, 1);
  t.regex(run.stdout + run.stderr, /NOT_SET/);
  t.regex(run.stdout + run.stderr, /failed at step call/);
  t.is(receiver.requests.length, 0, 'the call was not made');

  // Set it in another workspace only: still missing here.
  const other = await d.createWorkspace('secrets-missing-other');
  await setSecret(other, 'NOT_SET', 'x');
  const json = await svc(ws, 'workflows', 'run', workflowId, '--wait', '--json');
  assertExit(t, json, 1);
  t.is(json.json().status, 'failed');
  t.regex(JSON.stringify(json.json()), /NOT_SET/);
});

// Issue 38, item 1: a secret can be used only whole. A key with workflows:write and
// workflows:read used to read a write-only secret one character at a time.
const LEAKS: Array<{ name: string; step: Record<string, unknown>; field: string }> = [
  ...[
    '{{secrets.K[0]}}',
    '{{secrets.K.length}}',
    '{{secrets.K < "T"}}',
    '{{secrets.K[0] == "S" ? "yes" : "no"}}',
    '{{ {k: secrets.K}.k[0] }}',
    '{{"x" + secrets.K}}',
    '{{secrets.K * 1}}',
    '{{secrets.K | lowercase}}',
    '{{trigger.payload.lookup(secrets.K)}}',
    '{{secrets}}',
    '{{this}}',
    '{{secrets["K"]}}',
  ].map((expression) => ({
    name: expression,
    step: { type: 'agent_action', config: { action: 'echo', input_mapping: { v: expression } } },
    field: 'config.input_mapping.v',
  })),
  {
    name: 'webhook URL spelling the secret out',
    step: {
      type: 'webhook',
      config: {
        url:
          'http://127.0.0.1:7997/status/404/' +
          [0, 1, 2, 3, 4, 5].map((i) => `{{secrets.K[${i}]}}`).join('-') +
          '-{{secrets.K.length}}',
      },
    },
    field: 'config.url',
  },
];

test('any use of a secret but the whole value is refused on create and on update (400, step, field, rule)', async (t) => {
  const ws = await d.createWorkspace('secrets-whole');
  const api = await apiFor(d, ws);
  await setSecret(ws, 'K', 'SUPERSECRET123');
  const agent = await activeAgent(api);
  const { writer } = await scopedKeys(d, { writer: 'workflows:read workflows:write' }, ws);
  const asWriter = (method: string, path: string, body: unknown) =>
    d.callJson(method, `/v1${path}`, body, { key: writer, tenant: ws });
  const stepOf = (step: Record<string, unknown>) => ({
    id: 'peek',
    name: 'Peek',
    ...(step.type === 'agent_action' ? { agent_id: agent.id } : {}),
    ...step,
  });
  const valid = await asWriter('POST', '/workflows', {
    name: 'Whole use',
    steps: [
      stepOf({
        type: 'agent_action',
        config: { action: 'echo', input_mapping: { v: 'Bearer {{ secrets.K }}' } },
      }),
    ],
  });
  t.is(valid.status, 201, JSON.stringify(valid.body));
  const workflowId = valid.body.data.id;

  for (const leak of LEAKS) {
    const steps = [stepOf(leak.step)];
    for (const [method, path] of [
      ['POST', '/workflows'],
      ['PATCH', `/workflows/${workflowId}`],
    ] as const) {
      const refused = await asWriter(method, path, { name: 'Peek', steps });
      t.is(refused.status, 400, `${method} ${leak.name}`);
      const error = refused.body.error;
      t.is(error.code, 'invalid_step_config', leak.name);
      t.is(error.param, `steps[0].${leak.field}`, leak.name);
      t.true(error.message.startsWith(`Step 'peek', ${leak.field}: `), error.message);
      // An unknown filter is a syntax error already; every other case states the rule.
      if (!leak.name.includes('|')) t.regex(error.message, /A secret can be used only whole/);
      t.false(error.message.includes('SUPERSECRET123'));
    }
  }
  const kept = await api('GET', `/workflows/${workflowId}`);
  t.is(kept.body.data.steps[0].config.input_mapping.v, 'Bearer {{ secrets.K }}', 'PATCHes refused');
  t.is((await api('GET', '/workflows')).body.data.length, 1, 'no refused workflow was created');
});

/** Values with each character that gets encoded where a secret is placed. */
const ENCODED: Record<string, string> = {
  quote: 'pa"ss"word-Q1',
  backslash: 'c:\\key\\B2',
  slash: 'a/b/c-S3',
  ampersand: 'k=1&user=A4',
  percent: '50%off-P5',
  space: 'two words W6',
  unicode: 'clé-ünïcødé-密码-U7',
};

/**
 * Answers every request 404 with text (not JSON) that quotes the path as sent (URL-encoded) and
 * the body as sent (JSON-escaped), the way error pages do.
 */
async function echoServer(t: { teardown(fn: () => Promise<void>): void }) {
  const seen: Array<{ path: string; body: string }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ path: req.url ?? '', body });
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`Cannot ${req.method} ${req.url} with ${body}`);
    });
  });
  const origin = await listenLocally(server);
  t.teardown(() => closeServer(server));
  return { origin, seen };
}

test('a secret with characters that get encoded is masked in every stored or shown text', async (t) => {
  const ws = await d.createWorkspace('secrets-encoded');
  const api = await apiFor(d, ws);
  const echo = await echoServer(t);
  for (const [label, value] of Object.entries(ENCODED)) {
    await setSecret(ws, `K_${label}`, value);
    const workflowId = await createWorkflow(api, {
      name: `Encoded ${label}`,
      steps: [
        {
          id: 'call',
          name: 'Call',
          type: 'webhook',
          config: {
            url: `${echo.origin}/status/404/{{secrets.K_${label}}}?q={{secrets.K_${label}}}`,
            method: 'POST',
            body: { token: `{{secrets.K_${label}}}` },
          },
        },
      ],
    });
    const run = await svc(ws, 'workflows', 'run', workflowId, '--wait', '--json');
    assertExit(t, run, 1);
    const sent = echo.seen.at(-1)!;
    t.is(JSON.parse(sent.body).token, value, `${label}: the receiver got the value`);
    const execution = run.json();
    const stored = (
      await api('GET', `/workflows/${workflowId}/executions/${execution.execution_id}`)
    ).body.data;
    t.is(stored.status, 'failed');
    t.regex(
      stored.error.message,
      new RegExp(
        `^POST ${echo.origin}/status/404/\\[secret:K_${label}\\]\\?q=\\[secret:K_${label}\\] answered HTTP 404\\.$`,
      ),
      label,
    );
    const shown = await svc(ws, 'workflows', 'execution', workflowId, execution.execution_id);
    const texts = {
      'run --wait': run.stdout + run.stderr,
      'execution view': JSON.stringify(stored),
      'svc workflows execution': shown.stdout + shown.stderr,
      events: JSON.stringify(
        (await allEvents(api, 'workflow.*')).filter(
          (event) => event.data?.execution_id === execution.execution_id,
        ),
      ),
    };
    t.regex(texts.events, /workflow\.execution\.failed/);
    t.regex(texts['execution view'], new RegExp(`Cannot POST /status/404/\\[secret:K_${label}\\]`));
    t.regex(texts['execution view'], new RegExp(`\\{\\\\"token\\\\":\\\\"\\[secret:K_${label}\\]`));
    for (const [where, text] of Object.entries(texts)) {
      for (const form of forms(value, sent.path))
        t.false(text.includes(form), `${label}: ${where} holds '${form}'`);
    }
  }
  const log = readFileSync(join(d.dataDir, 'logs', 'daemon.log'), 'utf8');
  for (const value of Object.values(ENCODED))
    for (const form of forms(value, '')) t.false(log.includes(form), `log holds '${form}'`);
});

/** The value as written, percent-encoded as the receiver saw it in the path, and JSON-escaped. */
function forms(value: string, sentPath: string): string[] {
  const inPath = sentPath.slice('/status/404/'.length).split('?')[0]!;
  return [value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1), inPath].filter(
    (form) => form !== '',
  );
}
