// `svc workflows ...` from the user's side, against a real daemon and a real receiver: workflow
// files in YAML and JSON, validation errors located by step and field, the lifecycle (activate,
// pause, delete), `run` with and without --wait (the progress lines on stderr, the result on
// stdout, exit 1 when the run fails, is cancelled or times out), waits moved by `svc clock
// advance`, cancel, approvals, and the live view in a terminal.
import test from 'ava';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { assertExit, SVC_BIN, ROOT, type CliResult } from '../helpers/daemon.js';
import { CliStream } from '../helpers/cli-stream.js';
import { svcEnv } from '../helpers/env.js';
import { HANG_TIMEOUT_MS } from '../helpers/waiting.js';
import { sharedDaemon } from '../helpers/setup.js';
import { startReceiver } from '../helpers/receiver.js';
import {
  activeAgent,
  allEvents,
  apiFor,
  cancelRun,
  createWorkflow,
  firstExecution,
  startRun,
  waitForExecution,
  workflowFile,
  type Api,
  waitStep,
} from '../helpers/workflows.js';

const d = sharedDaemon(test);

/** `svc <args> --workspace ws` (add --json yourself). */
function svc(ws: string, ...args: string[]): Promise<CliResult> {
  return d.cli([...args, '--workspace', ws]);
}

/** `svc workflows run ID --input INPUT --wait ...more --workspace ws` */
function runAndWait(ws: string, workflowId: string, input: string, ...more: string[]) {
  return svc(ws, 'workflows', 'run', workflowId, '--input', input, '--wait', ...more);
}

/** A fresh workspace with an active agent and the REST helper. */
async function setup(name: string): Promise<{ ws: string; api: Api; agentId: string }> {
  const ws = await d.createWorkspace(name);
  const api = await apiFor(d, ws);
  const agent = await activeAgent(api);
  return { ws, api, agentId: agent.id };
}

/** agent_action -> condition -> webhook (receiver) | agent_action, as YAML. */
function orderYaml(agentId: string, url: string): string {
  return `
name: Order follow-up
description: Classify, branch on the amount, notify
trigger:
  type: manual
steps:
  - id: classify
    name: Classify the order
    type: agent_action
    agent_id: ${agentId}
    config:
      action: classify
      input_mapping:
        text: "Order {{trigger.payload.order_id}}"
    next_step_id: check
  - id: check
    name: Big order?
    type: condition
    config:
      condition: trigger.payload.amount > 100
      if_true: notify
      if_false: thank
  - id: notify
    name: Notify the receiver
    type: webhook
    config:
      url: ${url}
      method: POST
      headers:
        X-Order: "{{trigger.payload.order_id}}"
      body:
        order: "{{trigger.payload.order_id}}"
        amount: "{{trigger.payload.amount}}"
        run: "{{workflow.execution_id}}"
    next_step_id: thank
  - id: thank
    name: Thank the customer
    type: agent_action
    agent_id: ${agentId}
    config:
      action: respond
      input_mapping:
        text: "Thanks for order {{trigger.payload.order_id}}"
settings:
  timeout_seconds: 3600
`;
}

test('create from YAML, get, list, update from JSON, activate, pause, delete', async (t) => {
  const { ws, agentId } = await setup('wf-cli-lifecycle');
  const receiver = await startReceiver(t);
  const file = workflowFile('order.yaml', orderYaml(agentId, receiver.url));

  const created = await svc(ws, 'workflows', 'create', '-f', file, '--json');
  assertExit(t, created, 0);
  const workflow = created.json();
  t.regex(workflow.id, /^wfl_/);
  t.like(workflow, { name: 'Order follow-up', status: 'draft', workspace_id: ws });
  t.deepEqual(
    workflow.steps.map((step: { id: string }) => step.id),
    ['classify', 'check', 'notify', 'thank'],
  );
  t.is(workflow.steps[1].config.condition, 'trigger.payload.amount > 100');
  t.like(workflow.stats, { total_executions: 0 });
  t.is(workflow.last_executed_at, null);

  const human = await svc(ws, 'workflows', 'get', workflow.id);
  assertExit(t, human, 0);
  t.regex(human.stdout, /Order follow-up/);
  t.regex(human.stdout, /check\s+Big order\?\s+condition/);
  t.regex(human.stdout, /true -> notify\s+false -> thank/);

  const listed = await svc(ws, 'workflows', 'list', '--status', 'draft', '--json');
  assertExit(t, listed, 0);
  t.deepEqual(
    listed.json().data.map((w: { id: string }) => w.id),
    [workflow.id],
  );

  const patch = workflowFile(
    'patch.json',
    JSON.stringify({ description: 'Changed', settings: { timeout_seconds: 120 } }),
  );
  const updated = await svc(ws, 'workflows', 'update', workflow.id, '-f', patch, '--json');
  assertExit(t, updated, 0);
  t.like(updated.json(), { description: 'Changed', settings: { timeout_seconds: 120 } });

  const activated = await svc(ws, 'workflows', 'activate', workflow.id, '--json');
  assertExit(t, activated, 0);
  t.is(activated.json().status, 'active');
  const paused = await svc(ws, 'workflows', 'pause', workflow.id);
  assertExit(t, paused, 0);
  t.regex(paused.stdout, /paused/);

  const refused = await svc(ws, 'workflows', 'run', workflow.id, '--json');
  assertExit(t, refused, 1);
  t.is(refused.json().error.code, 'workflow_not_active');

  const deleted = await svc(ws, 'workflows', 'delete', workflow.id, '--json');
  assertExit(t, deleted, 0);
  const gone = await svc(ws, 'workflows', 'get', workflow.id, '--json');
  assertExit(t, gone, 1);
  t.is(gone.json().error.code, 'workflow_not_found');
  const missingFile = await svc(ws, 'workflows', 'create', '--json');
  assertExit(t, missingFile, 2);

  // `-f -` reads the file from stdin (JSON or YAML).
  const fromStdin = await d.cli(['workflows', 'create', '-f', '-', '--json', '--workspace', ws], {
    input:
      'name: From stdin\nsteps:\n  - {id: only, name: Only, type: wait, config: {duration_seconds: 1}}\n',
  });
  assertExit(t, fromStdin, 0);
  t.like(fromStdin.json(), { name: 'From stdin', status: 'draft' });
});

test('create -f reports a graph error with the step and field; a loop is circular_dependency', async (t) => {
  const { ws, agentId } = await setup('wf-cli-invalid');
  const broken = orderYaml(agentId, 'http://127.0.0.1:9/x').replace(
    'if_false: thank',
    'if_false: nowhere',
  );
  const file = workflowFile('broken.yaml', broken);
  const json = await svc(ws, 'workflows', 'create', '-f', file, '--json');
  assertExit(t, json, 1);
  t.like(json.json().error, { code: 'invalid_step_config', param: 'steps[1].config.if_false' });
  const human = await svc(ws, 'workflows', 'create', '-f', file);
  assertExit(t, human, 1);
  t.regex(human.stderr, /step "check" \(steps\[1\]\), field config\.if_false/);
  t.is(human.stdout, '');

  const loop = workflowFile(
    'loop.json',
    JSON.stringify({
      name: 'Loop',
      steps: [
        { id: 'a', name: 'A', type: 'wait', config: { duration_seconds: 1 }, next_step_id: 'b' },
        { id: 'b', name: 'B', type: 'wait', config: { duration_seconds: 1 }, next_step_id: 'a' },
      ],
    }),
  );
  const circular = await svc(ws, 'workflows', 'create', '-f', loop, '--json');
  assertExit(t, circular, 1);
  t.is(circular.json().error.code, 'circular_dependency');
  t.deepEqual([...new Set(circular.json().error.cycle as string[])].sort(), ['a', 'b']);
  const circularHuman = await svc(ws, 'workflows', 'create', '-f', loop);
  assertExit(t, circularHuman, 1);
  t.regex(circularHuman.stderr, /loop: (a -> b -> a|b -> a -> b)/);

  const notYaml = workflowFile('bad.yaml', 'name: [unclosed\n');
  const usage = await svc(ws, 'workflows', 'create', '-f', notYaml);
  assertExit(t, usage, 2);
  t.regex(usage.stderr, /not valid YAML at line/);
});

test('run --wait prints each step and the result; the webhook step got the interpolated call', async (t) => {
  const { ws, api, agentId } = await setup('wf-cli-run');
  const receiver = await startReceiver(t);
  const workflowId = await createWorkflow(api, (await yamlBody(orderYaml(agentId, receiver.url)))!);
  const inputFile = workflowFile('input.json', JSON.stringify({ order_id: 'A-1', amount: 150 }));

  const run = await svc(ws, 'workflows', 'run', workflowId, '--input', `@${inputFile}`, '--wait');
  assertExit(t, run, 0);
  for (const step of ['classify', 'check', 'notify', 'thank']) {
    t.regex(run.stderr, new RegExp(`step ${step} \\(\\w+\\) started`), step);
    t.regex(run.stderr, new RegExp(`step ${step} \\(\\w+\\) completed in`), step);
  }
  t.regex(run.stderr, /Run wex_\w+ completed in/);
  t.notThrows(() => JSON.parse(run.stdout), 'stdout carries the result alone');

  t.is(receiver.requests.length, 1);
  const call = receiver.requests[0]!;
  t.is(call.header('x-order'), 'A-1');
  const body = call.json();
  t.is(body.order, 'A-1');
  t.is(body.amount, 150, 'a lone {{expr}} keeps the type of the value');
  t.regex(body.run, /^wex_/);

  // --json: exactly the completed execution on stdout.
  const json = await runAndWait(ws, workflowId, '{"order_id": "B-2", "amount": 20}', '--json');
  assertExit(t, json, 0);
  const execution = json.json();
  t.like(execution, { workflow_id: workflowId, status: 'completed', steps_total: 4 });
  t.deepEqual(
    execution.step_results.map((step: { step_id: string }) => step.step_id),
    ['classify', 'check', 'thank'],
    'amount 20 takes the false branch',
  );
  t.is(receiver.requests.length, 1, 'no webhook call on the false branch');

  const listed = await svc(
    ws,
    'workflows',
    'executions',
    workflowId,
    '--status',
    'completed',
    '--json',
  );
  assertExit(t, listed, 0);
  t.is(listed.json().data.length, 2);
  const shown = await svc(ws, 'workflows', 'execution', workflowId, execution.execution_id);
  assertExit(t, shown, 0);
  t.regex(shown.stdout, /completed/);
  t.regex(shown.stdout, /thank\s+agent_action\s+completed/);

  // The stats as stored (REST; `svc workflows get` is the first test's).
  const stats = (await api('GET', `/workflows/${workflowId}`)).body.data;
  t.like(stats.stats, { total_executions: 2, success_rate: 1 });
  t.truthy(stats.last_executed_at);
});

test('run --wait exits 1 naming the failed step and its error', async (t) => {
  const { ws, api, agentId } = await setup('wf-cli-fail');
  const receiver = await startReceiver(t);
  receiver.respondWith(500);
  const workflowId = await createWorkflow(api, (await yamlBody(orderYaml(agentId, receiver.url)))!);

  const human = await runAndWait(ws, workflowId, '{"order_id": "C-3", "amount": 500}');
  assertExit(t, human, 1);
  t.regex(human.stderr, /step notify \(webhook\) failed/);
  t.regex(human.stdout + human.stderr, /failed at step notify \(Notify the receiver\)/);

  const json = await runAndWait(ws, workflowId, '{"order_id": "C-4", "amount": 500}', '--json');
  assertExit(t, json, 1);
  const execution = json.json();
  t.is(execution.status, 'failed');
  t.false(
    execution.step_results.some((step: { step_id: string }) => step.step_id === 'thank'),
    'the run stopped at the failed step',
  );
  const failed = (await allEvents(api, 'workflow.execution.failed')).find(
    (event) => event.data.execution_id === execution.execution_id,
  );
  t.like(failed?.data, { failed_step: 'notify', status: 'failed', workflow_id: workflowId });
});

test('a wait parks the run until the clock moves; cancel stops a parked run', async (t) => {
  const { ws, api } = await setup('wf-cli-wait');
  const workflowId = await createWorkflow(api, {
    name: 'Wait an hour',
    settings: { timeout_seconds: 7200 },
    steps: [
      {
        id: 'pause',
        name: 'Cool-off',
        type: 'wait',
        config: { duration_seconds: 3600, reason: 'cool-off' },
        next_step_id: 'done',
      },
      { id: 'done', name: 'Done', type: 'wait', config: { duration_seconds: 0 } },
    ],
  });
  const started = await svc(ws, 'workflows', 'run', workflowId, '--json');
  assertExit(t, started, 0);
  const run = started.json();
  t.like(run, { workflow_id: workflowId, status: 'running' });
  t.regex(run.execution_id, /^wex_/);
  await waitForExecution(api, workflowId, run.execution_id, (e) => e.current_step === 'pause');

  const other = await startRun(api, workflowId);
  await waitForExecution(api, workflowId, other.execution_id, (e) => e.current_step === 'pause');
  const cancelled = await svc(ws, 'workflows', 'cancel', workflowId, other.execution_id, '--json');
  assertExit(t, cancelled, 0);
  t.like(cancelled.json(), { execution_id: other.execution_id, status: 'cancelled' });
  t.truthy(cancelled.json().cancelled_at);
  const again = await svc(ws, 'workflows', 'cancel', workflowId, other.execution_id, '--json');
  assertExit(t, again, 1);
  t.is(again.json().error.code, 'execution_not_cancellable');

  // The clock over the control channel, as `svc clock advance` moves it (tested in cli-operator).
  await d.advance('30m');
  t.is((await waitForExecution(api, workflowId, run.execution_id, () => true)).status, 'running');
  await d.advance('31m');
  const done = await waitForExecution(
    api,
    workflowId,
    run.execution_id,
    (e) => e.status !== 'running',
  );
  t.is(done.status, 'completed');
  const stillCancelled = await waitForExecution(api, workflowId, other.execution_id, () => true);
  t.is(stillCancelled.status, 'cancelled', 'the cancelled run did not wake up');
});

test('run --wait follows a parked run to its end and exits 1 when it is cancelled', async (t) => {
  const { ws, api } = await setup('wf-cli-wait-cancel');
  const workflowId = await createWorkflow(api, {
    name: 'Long wait',
    settings: { timeout_seconds: 172_800 },
    steps: [{ id: 'pause', name: 'Pause', type: 'wait', config: { duration_seconds: 86400 } }],
  });
  const waiting = d.cli(['workflows', 'run', workflowId, '--wait', '--workspace', ws]);
  const execution = await firstExecution(d, api, workflowId);
  await waitForExecution(api, workflowId, execution, (e) => e.current_step === 'pause');
  // Cancelled over REST: `svc workflows cancel` is the test before's.
  t.is((await cancelRun(api, workflowId, execution)).status, 'cancelled');
  const result = await waiting;
  assertExit(t, result, 1);
  t.regex(result.stdout + result.stderr, /was cancelled/);
});

test('run --wait exits 1 on a timeout moved by the clock', async (t) => {
  const { ws, api } = await setup('wf-cli-timeout');
  const workflowId = await createWorkflow(api, {
    name: 'Too slow',
    settings: { timeout_seconds: 60 },
    // Each wait fits in the timeout (a longer one is refused); the two together do not.
    steps: [
      waitStep('warm_up', 30, 'pause'),
      { id: 'pause', name: 'Pause', type: 'wait', config: { duration_seconds: 50 } },
    ],
  });
  const waiting = d.cli(['workflows', 'run', workflowId, '--wait', '--json', '--workspace', ws]);
  const execution = await firstExecution(d, api, workflowId);
  await waitForExecution(api, workflowId, execution, (e) => e.current_step === 'warm_up');
  await d.advance('2m');
  const result = await waiting;
  assertExit(t, result, 1);
  t.like(result.json(), { status: 'timeout', failed_step: 'pause' });
});

test('an agent step awaiting approval holds run --wait until approved', async (t) => {
  const { ws, api } = await setup('wf-cli-approval');
  const reviewer = await activeAgent(api, { autonomy_level: 'L2', name: 'Reviewer' });
  const workflowId = await createWorkflow(api, {
    name: 'Needs a human',
    steps: [
      {
        id: 'review',
        name: 'Review',
        type: 'agent_action',
        agent_id: reviewer.id,
        config: { action: 'review', input_mapping: { text: '{{trigger.payload.text}}' } },
      },
    ],
  });
  // Followed as it runs: the decision is made once run --wait has printed the command that
  // makes it (a decision made before the CLI looked would end the run before any hint).
  const waiting = new CliStream(
    [
      'workflows',
      'run',
      workflowId,
      '--input',
      '{"text": "refund 40 EUR"}',
      '--wait',
      '--json',
      '--workspace',
      ws,
    ],
    d.env,
  );
  t.teardown(() => waiting.kill());
  let stdout = '';
  waiting.child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const executionId = await firstExecution(d, api, workflowId);
  await waitForExecution(api, workflowId, executionId, (e) => e.status === 'awaiting_approval');
  const pause = (await allEvents(api, 'agent.execution.awaiting_approval')).at(-1);
  t.truthy(pause, 'the agent execution announced it awaits approval');
  const hint = `decide with: svc approvals approve|reject ${pause.data.execution_id}`;
  t.true(
    await waiting.waitFor(() => waiting.stderr.includes(hint), HANG_TIMEOUT_MS),
    waiting.stderr,
  );
  // Approved over REST (`svc agents approve` is tested in agents-cli.test.ts).
  const approved = await api(
    'POST',
    `/agents/${pause.data.agent_id}/executions/${pause.data.execution_id}/approve`,
    { decision: 'approve' },
  );
  t.is(approved.status, 200, JSON.stringify(approved.body));
  const { code } = await waiting.exited;
  t.is(code, 0, waiting.stderr);
  t.like(JSON.parse(stdout), { execution_id: executionId, status: 'completed' });
});

test('in a terminal, run --wait draws a live view on stderr; stdout keeps the result', async (t) => {
  const { ws, api } = await setup('wf-cli-tty');
  const workflowId = await createWorkflow(api, {
    name: 'Two waits',
    steps: [
      waitStep('first', 0, 'second'),
      { id: 'second', name: 'Second', type: 'wait', config: { duration_seconds: 0 } },
    ],
  });
  // `script` gives the CLI a pseudo-terminal; its output is everything the terminal showed.
  const command = [
    process.execPath,
    SVC_BIN,
    'workflows',
    'run',
    workflowId,
    '--wait',
    '--workspace',
    ws,
  ]
    .map((part) => `'${part}'`)
    .join(' ');
  const transcript = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
    const env = svcEnv({ ...d.env, TERM: 'xterm' });
    delete env.NO_COLOR;
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      cwd: ROOT,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
    child.stdin.end();
  });
  t.is(transcript.code, 0, transcript.out);
  t.true(transcript.out.includes('\u001b[2K'), 'rows are redrawn in place');
  t.regex(transcript.out, /✔/);
  t.regex(transcript.out, /first/);
  t.regex(transcript.out, /second/);
  t.regex(transcript.out, /Run .*wex_\w+.* completed in/);
});

test('--input that is not a JSON object is a usage error', async (t) => {
  const { ws } = await setup('wf-cli-input');
  const result = await svc(ws, 'workflows', 'run', 'wfl_whatever', '--input', '[1, 2]');
  assertExit(t, result, 2);
  t.regex(result.stderr, /JSON object/);
  const file = workflowFile('in.json', 'not json');
  writeFileSync(file, 'not json');
  assertExit(t, await svc(ws, 'workflows', 'run', 'wfl_whatever', '--input', `@${file}`), 2);
});

async function yamlBody(text: string): Promise<Record<string, unknown> | undefined> {
  const { parse } = await import('yaml');
  return parse(text) as Record<string, unknown>;
}
