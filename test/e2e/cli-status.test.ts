// svc status (issue 41, "Errors and hints that speak CLI"): the daemon, its clock and brain, and
// what the sandbox has under way (runs by what they wait for, pending and held deliveries,
// approvals), with the command that moves each on; without a daemon, exit 1 and how to start one.
import test from 'ava';
import { resolveStoreSetting } from '../../shared/store-url.js';
import { control } from '../helpers/api.js';
import { assertExit, runCli } from '../helpers/daemon.js';
import { sharedDaemon } from '../helpers/setup.js';
import { startReceiver } from '../helpers/receiver.js';
import { tempDir } from '../helpers/temp-dir.js';
import {
  activeAgent,
  apiFor,
  createWorkflow,
  waitForExecution,
  waitStep,
  type Api,
} from '../helpers/workflows.js';
import { HANG_TIMEOUT_MS } from '../helpers/waiting.js';

const d = sharedDaemon(test);

interface Status {
  running: true;
  pid: number;
  version: string;
  url: string;
  data_dir: string;
  clock: { now: string; offset_ms: number; frozen: boolean };
  brain: { mode: string; cassette_dir: string; recording: string | null };
  runs: {
    running: number;
    waiting: number;
    awaiting_approval: number;
    next_wake_at: string | null;
  };
  deliveries: { pending: number; held: number };
  approvals: { pending: number };
}

async function status(): Promise<Status> {
  const result = await d.cli(['status', '--json']);
  if (result.code !== 0) throw new Error(`svc status: exit ${result.code}: ${result.stderr}`);
  return result.json<Status>();
}

/** Polls svc status --json (real time: the daemon works meanwhile) until `done` holds. */
async function statusWhen(done: (status: Status) => boolean): Promise<Status> {
  const deadline = Date.now() + HANG_TIMEOUT_MS;
  for (;;) {
    const seen = await status();
    if (done(seen)) return seen;
    if (Date.now() > deadline) throw new Error(`status never got there: ${JSON.stringify(seen)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('without a daemon: says so, names the command that starts one, exit 1, no stack', async (t) => {
  const dataDir = tempDir('svc-status-none-');
  const env = { SVC_DATA_DIR: dataDir };
  const human = await runCli(['status'], { env });
  assertExit(t, human, 1);
  t.is(
    human.stdout,
    `svc daemon is not running (data dir ${dataDir}). Start it with: svc daemon start\n`,
  );
  t.is(human.stderr, '');

  const flagged = await runCli(['status', '--data-dir', dataDir], { env: {} });
  assertExit(t, flagged, 1);
  t.is(
    flagged.stdout,
    `svc daemon is not running (data dir ${dataDir}). Start it with: svc daemon start --data-dir ${dataDir}\n`,
  );

  const json = await runCli(['status', '--json'], { env });
  assertExit(t, json, 1);
  t.deepEqual(json.json(), { running: false, data_dir: dataDir });
  t.is(json.stderr, '');
});

test.serial(
  'a run waiting for the clock, one awaiting approval, a pending and a held delivery: counted, each with its command',
  async (t) => {
    // Frozen: the wait's wake-up is then exactly 15 minutes of sandbox time away. (The clock
    // over the control channel, as `svc clock freeze|reset|advance` move it: tested in
    // cli-operator; the hint's `svc clock advance 15m` below stays a CLI call.)
    await control(d, 'clock.freeze', undefined, 'mutation');
    const ws = await d.createWorkspace('status-counts');
    const api = await apiFor(d, ws);

    const waiting = await createWorkflow(api, { name: 'Waits', steps: [waitStep('pause', 900)] });
    const waitingRun = await execute(api, waiting);
    await waitForExecution(api, waiting, waitingRun, (run) =>
      run.step_results?.some((step: { status: string }) => step.status === 'waiting'),
    );

    const reviewer = await activeAgent(api, { autonomy_level: 'L2', name: 'Reviewer' });
    const approving = await createWorkflow(api, {
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
    const approvalRun = await execute(api, approving, { text: 'refund 40 EUR' });
    await waitForExecution(
      api,
      approving,
      approvalRun,
      (run) => run.status === 'awaiting_approval',
    );

    // Two webhooks whose receiver fails: each delivery waits for its retry; one webhook is then
    // paused, which holds its delivery.
    const receiver = await startReceiver(t);
    receiver.respondWith(500);
    const hooks: string[] = [];
    for (const name of ['kept', 'paused']) {
      const created = await api('POST', '/webhooks', {
        url: `${receiver.url}/${name}`,
        events: ['agent.created'],
      });
      t.is(created.status, 201, JSON.stringify(created.body));
      hooks.push(created.body.data.id);
    }
    await control({ url: d.url, dataDir: d.dataDir }, 'events.trigger', {
      type: 'agent.created',
      workspace_id: ws,
    });
    await receiver.waitForCount(2);
    const paused = await api('PATCH', `/webhooks/${hooks[1]}`, { status: 'paused' });
    t.is(paused.status, 200, JSON.stringify(paused.body));

    const seen = await statusWhen(
      (s) => s.runs.waiting === 1 && s.runs.awaiting_approval === 1 && s.deliveries.held === 1,
    );
    // On the PostgreSQL pass (SVC_STORE_URL, scripts/test-e2e-pg.mjs): the data dir's sandbox there.
    const store = resolveStoreSetting({ store: process.env.SVC_STORE_URL }, d.dataDir);
    t.like(seen, {
      running: true,
      data_dir: d.dataDir,
      url: d.url,
      brain: {
        mode: 'simulated',
        cassette_dir: `${d.dataDir}/cassettes`,
        cassettes_in: store.kind === 'postgres' ? 'store' : 'folder',
        recording: null,
        replay_cassette: null,
      },
      runs: { running: 0, waiting: 1, awaiting_approval: 1 },
      deliveries: { pending: 1, held: 1 },
      approvals: { pending: 1 },
    });
    t.true(seen.clock.frozen);
    t.is(Date.parse(seen.runs.next_wake_at!) - Date.parse(seen.clock.now), 900_000);

    const human = await d.cli(['status']);
    assertExit(t, human, 0);
    const lines = human.stdout.split('\n');
    t.is(
      lines[0],
      `svc daemon running at ${d.url} (pid ${seen.pid}, sandbox, version ${seen.version})`,
    );
    t.is(lines[1], `data dir    ${d.dataDir}`);
    t.is(
      lines[2],
      store.kind === 'postgres'
        ? `store       PostgreSQL ${store.display}, sandbox ${store.sandbox}`
        : `store       SQLite ${d.dataDir}/svc.db`,
    );
    // A frozen clock falls behind real time as real time goes on: the words say how far.
    t.regex(
      lines[3]!,
      new RegExp(
        `^clock {7}${seen.clock.now.replaceAll('.', '\\.')} \\((real time|[\\d.hms ]+ behind real time), frozen: svc clock resume lets it tick\\)$`,
      ),
    );
    t.is(
      lines[4],
      store.kind === 'postgres'
        ? `brain       simulated, cassettes in the sandbox's store (files of ${d.dataDir}/cassettes taken in when first used)`
        : `brain       simulated, cassettes in ${d.dataDir}/cassettes`,
    );
    t.is(
      lines[5],
      `runs        0 running, 1 waiting for the clock, 1 awaiting approval; the next wakes at ${seen.runs.next_wake_at}: svc clock advance 15m`,
    );
    t.is(
      lines[6],
      'deliveries  1 pending, 1 held (by paused or failed webhooks: svc webhooks update HOOK --status active)',
    );
    t.is(
      lines[7],
      'approvals   1 pending (list them with: svc approvals; decide with: svc approvals approve|reject EXECUTION, or in svc dashboard)',
    );
    if (store.kind === 'postgres') {
      // Team mode lists the sandbox's daemons, this one alone included (none on SQLite).
      t.is(lines[8], 'daemons     1 live of 1 listed (real time)');
      t.regex(lines[9]!, new RegExp(`^  \\* dmn_\\w+ ${d.url} \\(pid ${seen.pid} on `));
    }
    t.is(lines.length, store.kind === 'postgres' ? 11 : 9, human.stdout);
    t.is(human.stderr, '');

    // The hint's command is the one that moves the waiting run on.
    assertExit(t, await d.cli(['clock', 'advance', '15m']), 0);
    await waitForExecution(api, waiting, waitingRun, (run) => run.status === 'completed');
    const after = await statusWhen((s) => s.runs.waiting === 0);
    t.like(after.runs, { running: 0, waiting: 0, awaiting_approval: 1, next_wake_at: null });
  },
);

test.serial(
  'a ticking clock says how far ahead of real time it is; the advance hint is in whole minutes',
  async (t) => {
    await control(d, 'clock.reset', undefined, 'mutation');
    await d.advance('2h');
    const ws = await d.createWorkspace('status-ticking');
    const api = await apiFor(d, ws);
    const waiting = await createWorkflow(api, { name: 'Waits', steps: [waitStep('pause', 600)] });
    const run = await execute(api, waiting);
    await waitForExecution(api, waiting, run, (e) =>
      e.step_results?.some((step: { status: string }) => step.status === 'waiting'),
    );
    const human = await d.cli(['status']);
    assertExit(t, human, 0);
    t.regex(human.stdout, /^clock {7}\S+ \(2h ahead of real time\)$/m);
    // Less than 600 s of sandbox time are left (the clock ticks): the hint rounds what is left
    // up to whole minutes, 10m while under a minute of real time has gone by since the run
    // parked (more on a loaded machine: the printed clock and wake-up say how much is left).
    // (The run awaiting approval of the test before has timed out by now: 2 more hours went by.)
    const clockNow = /^clock {7}(\S+) /m.exec(human.stdout)?.[1] ?? '';
    const hint =
      /^runs {8}0 running, 1 waiting for the clock, \d+ awaiting approval; the next wakes at (\S+): svc clock advance (\d+)m$/m.exec(
        human.stdout,
      );
    t.truthy(hint, human.stdout);
    const left = Date.parse(hint?.[1] ?? '') - Date.parse(clockNow);
    t.true(left > 0 && left <= 600_000, `${left} ms left: ${human.stdout}`);
    t.is(Number(hint?.[2]), Math.ceil(left / 60_000), human.stdout);
    const seen = await status();
    t.like(seen.clock, { frozen: false });
    t.true(Math.abs(seen.clock.offset_ms - 7_200_000) < 1000, `offset ${seen.clock.offset_ms} ms`);
  },
);

async function execute(api: Api, workflowId: string, input: unknown = {}): Promise<string> {
  const started = await api('POST', `/workflows/${workflowId}/execute`, { input });
  if (started.status !== 202 && started.status !== 200)
    throw new Error(`execute: ${started.status} ${JSON.stringify(started.body)}`);
  return started.body.data.execution_id as string;
}
