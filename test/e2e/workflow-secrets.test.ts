// Secrets from the user's side: `svc secrets set|list|delete` per workspace, `{{secrets.NAME}}`
// reaching the receiver of a webhook step, and the value never showing anywhere else: not in
// the CLI's output, the execution view, the stored events, webhook deliveries, the daemon log,
// nor in plain text in the database files. A missing secret fails the step, naming it.
import test from 'ava';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { assertExit, type CliResult } from '../helpers/daemon.js';
import { sharedDaemon } from '../helpers/setup.js';
import { startReceiver } from '../helpers/receiver.js';
import { allEvents, apiFor, createWorkflow, type Api } from '../helpers/workflows.js';

const d = sharedDaemon(test);

function svc(ws: string, ...args: string[]): Promise<CliResult> {
  return d.cli([...args, '--workspace', ws]);
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
      .map((secret: { name: string }) => secret.name)
      .sort(),
    ['API_TOKEN', 'SECOND'],
  );
  t.false(listed.stdout.includes(value));
  t.deepEqual((await svc(other, 'secrets', 'list', '--json')).json(), [], 'another workspace');

  const replaced = await svc(ws, 'secrets', 'set', 'API_TOKEN', secretValue('again'), '--json');
  assertExit(t, replaced, 0);
  t.is((await svc(ws, 'secrets', 'list', '--json')).json().length, 2, 'set replaces');

  const deleted = await svc(ws, 'secrets', 'delete', 'SECOND', '--json');
  assertExit(t, deleted, 0);
  t.deepEqual(
    (await svc(ws, 'secrets', 'list', '--json')).json().map((s: { name: string }) => s.name),
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
  assertExit(t, await svc(ws, 'secrets', 'set', 'PAYMENTS_TOKEN', value), 0);
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
  await hooks.waitFor((requests) => requests.length >= 3, 10_000);
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
  assertExit(t, await svc(other, 'secrets', 'set', 'NOT_SET', 'x'), 0);
  const json = await svc(ws, 'workflows', 'run', workflowId, '--wait', '--json');
  assertExit(t, json, 1);
  t.is(json.json().status, 'failed');
  t.regex(JSON.stringify(json.json()), /NOT_SET/);
});
