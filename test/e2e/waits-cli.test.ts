// What is waiting, and until when, in the CLI (issue 41): a waiting or retrying step shows the
// time it goes on, how far off that is on the sandbox clock and the `svc clock advance` that
// skips there, in `svc workflows execution` (table and --json) and in the live view of `run
// --wait` and `watch`; `svc workflows get|list|create` show a schedule's next run; `svc webhooks
// deliveries|delivery` say `held` and how to release them. The clock is frozen at a known time
// in each test (serial: they share the daemon and its clock), so the printed times are exact.
import { spawn } from 'node:child_process';
import { HANG_TIMEOUT_MS } from '../helpers/waiting.js';
import test, { type ExecutionContext } from 'ava';
import { control } from '../helpers/api.js';
import { assertExit, SVC_BIN, ROOT, type CliResult } from '../helpers/daemon.js';
import { svcEnv } from '../helpers/env.js';
import { reapChild } from '../helpers/reaper.js';
import { sharedDaemon } from '../helpers/setup.js';
import { startReceiver } from '../helpers/receiver.js';
import { CliStream } from '../helpers/cli-stream.js';
import {
  apiFor,
  createWorkflow,
  waitForExecution,
  waitStep,
  workflowFile,
  type Api,
} from '../helpers/workflows.js';

const d = sharedDaemon(test);

function svc(ws: string, ...args: string[]): Promise<CliResult> {
  return d.cli([...args, '--workspace', ws]);
}

async function frozenAt(iso: string): Promise<void> {
  await control(d, 'clock.set', { to: iso, frozen: true });
}

async function setup(name: string): Promise<{ ws: string; api: Api }> {
  const ws = await d.createWorkspace(name);
  return { ws, api: await apiFor(d, ws) };
}

/** A CLI command that runs on while the test acts (no terminal: plain lines on stderr). */
function follow(t: ExecutionContext, ws: string, ...args: string[]): CliStream {
  const stream = new CliStream([...args, '--workspace', ws], d.env);
  t.teardown(() => stream.kill());
  return stream;
}

async function stderrLine(stream: CliStream, pattern: RegExp): Promise<string> {
  const seen = await stream.waitFor(() => pattern.test(stream.stderr), HANG_TIMEOUT_MS);
  if (!seen) throw new Error(`stderr never matched ${pattern}:\n${stream.stderr}`);
  return pattern.exec(stream.stderr)![0];
}

const WAIT_LINE =
  'step wait_ack (wait) waiting, wakes 2031-01-05 09:15:00 (in 15m, sandbox clock); skip there with: svc clock advance 15m';

async function waitingWorkflow(api: Api): Promise<string> {
  return createWorkflow(api, {
    name: 'Wait for an ack',
    steps: [
      waitStep('wait_ack', 900, 'done'),
      { id: 'done', name: 'Done', type: 'wait', config: { duration_seconds: 0 } },
    ],
  });
}

test.serial(
  'run --wait prints when the wait ends and the advance that skips there; execution shows it too',
  async (t) => {
    await frozenAt('2031-01-05T09:00:00Z');
    const { ws, api } = await setup('waits-cli-run');
    const workflowId = await waitingWorkflow(api);
    const run = follow(t, ws, 'workflows', 'run', workflowId, '--wait');
    const line = await stderrLine(run, /^step wait_ack \(wait\) waiting.*$/m);
    t.log(line);
    t.is(line, WAIT_LINE);
    const runId = /^run (wex_\w+) of /m.exec(run.stderr)![1]!;

    const shown = await svc(ws, 'workflows', 'execution', runId);
    assertExit(t, shown, 0);
    t.log(shown.stdout);
    t.regex(
      shown.stdout,
      /^wait_ack +wait +waiting +- +wakes 2031-01-05 09:15:00 \(in 15m, sandbox clock\)$/m,
    );
    t.regex(shown.stdout, /^skip the wait with: svc clock advance 15m$/m);
    t.notRegex(shown.stdout, /null/);
    const json = (await svc(ws, 'workflows', 'execution', runId, '--json')).json();
    t.like(json.step_results.at(-1), {
      step_id: 'wait_ack',
      status: 'waiting',
      wakes_at: '2031-01-05T09:15:00.000Z',
    });

    const waited = await svc(ws, 'workflows', 'wait', runId, '--status', 'running');
    assertExit(t, waited, 0);
    t.regex(waited.stdout, /wakes 2031-01-05 09:15:00 \(in 15m, sandbox clock\)$/m);

    // Parked on the frozen clock, run --wait waits for nothing: it ends (exit 1) saying when the
    // run wakes and the command that moves the clock there (issue 55).
    const { code } = await run.exited;
    t.is(code, 1, run.stderr);
    t.regex(run.stderr, /parked on the frozen sandbox clock[\s\S]*svc clock advance 15m/);
    // The command as printed ends the wait.
    assertExit(t, await svc(ws, 'clock', 'advance', '15m'), 0);
    await waitForExecution(api, workflowId, runId, (execution) => execution.status === 'completed');
  },
);

test.serial(
  'in a terminal the live view shows the wake-up on the row and the advance under it',
  async (t) => {
    await frozenAt('2031-01-05T09:00:00Z');
    const { ws, api } = await setup('waits-cli-terminal');
    const workflowId = await waitingWorkflow(api);
    // A real pseudo-terminal (util-linux script), 120 columns wide.
    const child = spawn(
      'script',
      [
        '-qfec',
        `stty cols 120 rows 40; node ${SVC_BIN} workflows run ${workflowId} --wait --workspace ${ws}`,
        '/dev/null',
      ],
      { cwd: ROOT, env: svcEnv({ ...d.env, CI: '', NO_COLOR: '1', TERM: 'xterm' }) },
    );
    reapChild(child);
    t.teardown(() => child.kill('SIGKILL'));
    let screen = '';
    child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString('utf8')));
    const closed = new Promise((resolve) => child.on('close', resolve));
    const deadline = Date.now() + 15_000;
    while (!screen.includes('skip the wait with:') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    // eslint-disable-next-line no-control-regex
    const text = () => screen.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '');
    t.regex(
      text(),
      /⏸ wait_ack +wait +waiting +\S+ +wakes 2031-01-05 09:15:00 \(in 15m, sandbox clock\)/,
    );
    t.regex(text(), / skip the wait with: svc clock advance 15m/);
    // Parked on the frozen clock, the live view ends with when the run wakes and the command.
    await closed;
    t.regex(text(), /parked on the frozen sandbox clock[\s\S]*svc clock advance 15m/);
    const runId = /Run (wex_\w+) /.exec(text())![1]!;
    // Over the control channel: that the printed command ends the wait is the test before's.
    await d.advance('15m');
    await waitForExecution(api, workflowId, runId, (execution) => execution.status === 'completed');
  },
);

test.serial('watch and execution show a retrying step with when it retries', async (t) => {
  await frozenAt('2031-01-05T09:00:00Z');
  const { ws, api } = await setup('waits-cli-retry');
  const receiver = await startReceiver(t);
  receiver.respondWith(500);
  const workflowId = await createWorkflow(api, {
    name: 'Page until it answers',
    settings: { retry_policy: { max_attempts: 3, backoff_multiplier: 2 } },
    steps: [
      {
        id: 'page',
        name: 'Page',
        type: 'webhook',
        config: { url: receiver.url, method: 'POST', body: { who: 'on-call' } },
      },
    ],
  });
  const started = await api('POST', `/workflows/${workflowId}/execute`, { input: {} });
  const runId = started.body.data.execution_id as string;
  await waitForExecution(api, workflowId, runId, (e) =>
    e.step_results.some((step: any) => step.status === 'retrying'),
  );

  const shown = await svc(ws, 'workflows', 'execution', runId);
  assertExit(t, shown, 0);
  t.regex(
    shown.stdout,
    /^page #2 +webhook +retrying +- +retries 2031-01-05 09:00:01 \(in 1s, sandbox clock\)$/m,
  );
  t.regex(shown.stdout, /^skip the wait with: svc clock advance 1s$/m);

  const watch = follow(t, ws, 'workflows', 'watch', runId);
  const line = await stderrLine(watch, /^step page \(webhook\) retrying.*$/m);
  t.is(
    line,
    'step page (webhook) retrying (attempt 2), retries 2031-01-05 09:00:01 (in 1s, sandbox clock); skip there with: svc clock advance 1s',
  );
  receiver.respondWith(200);
  await d.advance('1s');
  const { code } = await watch.exited;
  t.is(code, 0, watch.stderr);
});

test.serial('workflows create, get and list show when a schedule runs next', async (t) => {
  await frozenAt('2031-01-05T09:00:00Z');
  const { ws } = await setup('waits-cli-schedule');
  const file = workflowFile(
    'hourly.yaml',
    [
      'name: Hourly report',
      'status: active',
      "trigger: { type: schedule, config: { cron: '0 * * * *', timezone: UTC } }",
      'steps:',
      '  - { id: report, name: Report, type: wait, config: { duration_seconds: 0 } }',
    ].join('\n'),
  );
  const created = await svc(ws, 'workflows', 'create', '-f', file);
  assertExit(t, created, 0);
  t.regex(created.stdout, /^next run: 2031-01-05 10:00:00 \(in 1h, sandbox clock\)$/m);
  const workflowId = /^Created (wfl_\w+)/.exec(created.stdout)![1]!;

  await frozenAt('2031-01-05T10:30:00Z');
  const got = await svc(ws, 'workflows', 'get', workflowId);
  assertExit(t, got, 0);
  t.regex(got.stdout, /^next run: 2031-01-05 11:00:00 \(in 30m, sandbox clock\)$/m);
  const json = (await svc(ws, 'workflows', 'get', workflowId, '--json')).json();
  t.is(json.next_run_at, '2031-01-05T11:00:00.000Z');
  const listed = await svc(ws, 'workflows', 'list');
  t.regex(listed.stdout, /NEXT RUN/);
  t.regex(listed.stdout, new RegExp(`^${workflowId} .* 2031-01-05 11:00:00$`, 'm'));

  const paused = await svc(ws, 'workflows', 'pause', workflowId);
  assertExit(t, paused, 0);
  t.notRegex((await svc(ws, 'workflows', 'get', workflowId)).stdout, /next run/);
  const active = await svc(ws, 'workflows', 'activate', workflowId);
  t.regex(active.stdout, /is active; next run 2031-01-05 11:00:00 \(in 30m, sandbox clock\)$/m);
});

test.serial('webhooks deliveries and delivery say held, and how to send them again', async (t) => {
  await frozenAt('2031-01-05T09:00:00Z');
  const { ws, api } = await setup('waits-cli-held');
  const receiver = await startReceiver(t);
  receiver.respondWith(500);
  const hook = await api('POST', '/webhooks', {
    url: receiver.url,
    events: ['agent.updated'],
    settings: { retry_policy: { max_attempts: 3 } },
  });
  const hookId = hook.body.data.id as string;
  await control(d, 'events.trigger', { workspace_id: ws, type: 'agent.updated' });
  await d.advance(0);
  const paused = await api('PATCH', `/webhooks/${hookId}`, { status: 'paused' });
  t.is(paused.status, 200, JSON.stringify(paused.body));

  const list = await svc(ws, 'webhooks', 'deliveries', hookId);
  assertExit(t, list, 0);
  t.log(list.stdout, list.stderr);
  const deliveryId = /^(del_\w+) /m.exec(list.stdout)![1]!;
  t.regex(list.stdout, new RegExp(`^${deliveryId} +agent.updated +held +500 +1 +-$`, 'm'));
  t.true(
    list.stderr.includes(
      `1 held: webhook ${hookId} is paused or failed, so nothing is attempted. svc webhooks update ${hookId} --status active sends every held delivery again; svc webhooks retry ${deliveryId} sends this one now.`,
    ),
    list.stderr,
  );
  const one = await svc(ws, 'webhooks', 'delivery', deliveryId);
  assertExit(t, one, 0);
  t.regex(
    one.stdout,
    new RegExp(
      `^${deliveryId} held: pending, but its webhook is paused or failed, so nothing is attempted \\(svc webhooks update ${hookId} --status active sends every held delivery again; svc webhooks retry ${deliveryId} sends this one now\\)$`,
      'm',
    ),
  );
  t.like((await svc(ws, 'webhooks', 'delivery', deliveryId, '--json')).json(), {
    status: 'pending',
    held: true,
    next_attempt_at: null,
  });

  // The hint as printed releases it.
  receiver.respondWith(200);
  assertExit(t, await svc(ws, 'webhooks', 'update', hookId, '--status', 'active'), 0);
  await d.advance(0);
  t.like((await svc(ws, 'webhooks', 'delivery', deliveryId, '--json')).json(), {
    status: 'delivered',
    held: false,
  });
});
