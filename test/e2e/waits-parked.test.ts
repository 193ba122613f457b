// Waits and the run timeout (issue 55, points 3 and 4): a wait as long as the run's timeout is
// refused when the workflow is written; a wake-up and the deadline at the same instant end the
// run timeout; a wait on a run parked on the frozen sandbox clock ends at once with when it
// wakes and the command that moves it on; --timeout on every --wait.
import test from 'ava';
import { control } from '../helpers/api.js';
import { assertExit } from '../helpers/daemon.js';
import { sharedDaemon } from '../helpers/setup.js';
import {
  activeAgent,
  apiFor,
  createWorkflow,
  waitForExecution,
  waitStep,
  workflowFile,
  type Api,
} from '../helpers/workflows.js';

const d = sharedDaemon(test);

async function setup(name: string) {
  const ws = await d.createWorkspace(name);
  const api = await apiFor(d, ws);
  const svc = (...args: string[]) => d.cli([...args, '--workspace', ws]);
  return { ws, api, svc };
}

async function execute(api: Api, workflowId: string): Promise<string> {
  const started = await api('POST', `/workflows/${workflowId}/execute`, { input: {} });
  if (started.status !== 202) throw new Error(JSON.stringify(started.body));
  return started.body.data.execution_id as string;
}

/**
 * The sandbox clock over the control channel, as `svc clock set --frozen` and `svc clock reset`
 * move it (those commands are tested in cli-operator and waits-cli; the subjects here are the
 * waits and the hints that name `svc clock advance`).
 */
async function frozenAt(iso: string): Promise<void> {
  await control(d, 'clock.set', { to: iso, frozen: true });
}

test.afterEach.always(async () => {
  await control(d, 'clock.reset', undefined, 'mutation');
});

test.serial(
  'a wait as long as the run timeout, or longer, is refused with both numbers',
  async (t) => {
    const { api, svc } = await setup('wait-vs-timeout');
    const refused = await api('POST', '/workflows', {
      name: 'Never ends',
      steps: [waitStep('follow_up', 3600)],
    });
    t.is(refused.status, 400);
    t.like(refused.body.error, {
      code: 'invalid_step_config',
      param: 'steps[0].config.duration_seconds',
      message:
        "Step 'follow_up' waits 3600 s, as long as a run may take (settings.timeout_seconds 3600): every run would end timeout in that wait. Wait less than 3600 s, or raise settings.timeout_seconds above 3600.",
    });

    // From a file, the CLI names the step and the field.
    const file = workflowFile(
      'long-wait.yaml',
      'name: Long\nsettings:\n  timeout_seconds: 60\nsteps:\n  - id: pause\n    name: Pause\n    type: wait\n    config:\n      duration_seconds: 90\n',
    );
    const created = await svc('workflows', 'create', '-f', file);
    assertExit(t, created, 1);
    t.regex(
      created.stderr,
      /waits 90 s, longer than a run may take \(settings\.timeout_seconds 60\)/,
    );

    // Under the timeout it is accepted; lowering the timeout to it afterwards is refused.
    const fits = await createWorkflow(api, {
      name: 'Fits',
      settings: { timeout_seconds: 7200 },
      steps: [waitStep('pause', 3600)],
    });
    const lowered = await api('PATCH', `/workflows/${fits}`, {
      settings: { timeout_seconds: 3600 },
    });
    t.is(lowered.status, 400);
    t.is(lowered.body.error.code, 'invalid_step_config');
    const renamed = await api('PATCH', `/workflows/${fits}`, { name: 'Still fits' });
    t.is(renamed.status, 200);
  },
);

test.serial(
  'on a frozen clock, a wake-up at the deadline ends the run timeout, every time',
  async (t) => {
    const { api } = await setup('wait-tie');
    await frozenAt('2026-01-05T09:00:00Z');
    // Two waits of 60 s under a 120 s timeout: the second wakes exactly at the deadline.
    const workflowId = await createWorkflow(api, {
      name: 'Tie',
      settings: { timeout_seconds: 120 },
      steps: [
        waitStep('first', 60, 'second'),
        { id: 'second', name: 'Second', type: 'wait', config: { duration_seconds: 60 } },
      ],
    });
    const runs = [await execute(api, workflowId), await execute(api, workflowId)];
    for (const run of runs)
      await waitForExecution(api, workflowId, run, (e) => e.current_step === 'first');
    await d.advance('2m');
    for (const run of runs) {
      const ended = await waitForExecution(api, workflowId, run, (e) => e.status !== 'running');
      t.like(ended, { status: 'timeout', failed_step: 'second' });
    }
  },
);

test.serial(
  'workflows wait on a run parked on the frozen clock ends at once, with when it wakes and the advance',
  async (t) => {
    const { api, svc } = await setup('wait-parked');
    await frozenAt('2026-01-05T09:00:00Z');
    const workflowId = await createWorkflow(api, {
      name: 'Pause',
      steps: [waitStep('pause', 900)],
    });
    const run = await execute(api, workflowId);
    await waitForExecution(api, workflowId, run, (e) => e.current_step === 'pause');
    // The timeout would be 4 minutes: the answer is the parked one, not the timeout's.
    const waited = await svc('workflows', 'wait', run, '--status', 'completed', '--timeout', '4m');
    assertExit(t, waited, 1);
    t.true(
      waited.stderr.includes(
        `Run ${run} is parked on the frozen sandbox clock: step pause wakes at 2026-01-05T09:15:00.000Z (15m from now on the sandbox clock); move the clock there with: svc clock advance 15m. (waited for completed)`,
      ),
      waited.stderr,
    );
    // Its command moves it on.
    assertExit(t, await d.cli(['clock', 'advance', '15m']), 0);
    const done = await svc('workflows', 'wait', run, '--json');
    assertExit(t, done, 0);
    t.is(done.json<{ status: string }>().status, 'completed');
  },
);

test.serial(
  'run --wait and rerun --wait end at once on a parked run: the wait, or the approval to decide',
  async (t) => {
    const { api, svc } = await setup('run-wait-parked');
    await frozenAt('2026-01-05T09:00:00Z');
    const workflowId = await createWorkflow(api, {
      name: 'Pause',
      steps: [waitStep('pause', 900)],
    });
    const parked = await svc('workflows', 'run', workflowId, '--wait', '--json');
    assertExit(t, parked, 1);
    const run = parked.json<{ execution_id: string; status: string }>();
    t.is(run.status, 'running');
    t.regex(parked.stderr, /step pause wakes at 2026-01-05T09:15:00\.000Z/);
    t.regex(parked.stderr, /move the clock there with: svc clock advance 15m/);
    t.true(parked.stderr.includes(`Follow it again with: svc workflows watch ${run.execution_id}`));

    const again = await svc('workflows', 'rerun', run.execution_id, '--wait');
    assertExit(t, again, 1);
    t.regex(again.stderr, /is parked on the frozen sandbox clock: step pause wakes at/);

    const reviewer = await activeAgent(api, { autonomy_level: 'L2' });
    const approving = await createWorkflow(api, {
      name: 'Needs a human',
      steps: [
        {
          id: 'review',
          name: 'Review',
          type: 'agent_action',
          agent_id: reviewer.id,
          config: { action: 'review' },
        },
      ],
    });
    const held = await svc('workflows', 'run', approving, '--wait', '--json');
    assertExit(t, held, 1);
    t.is(held.json<{ status: string }>().status, 'awaiting_approval');
    const decide =
      /step review awaits a decision on (exec_\w+): svc approvals approve\|reject (exec_\w+)/.exec(
        held.stderr,
      );
    t.truthy(decide, held.stderr);
    t.is(decide![1], decide![2]);
    // The execution named is the reviewer's, awaiting a decision (`svc approvals approve` is
    // tested in approvals-cli).
    const approved = await api('POST', `/agents/${reviewer.id}/executions/${decide![1]!}/approve`, {
      decision: 'approve',
    });
    t.is(approved.status, 200, JSON.stringify(approved.body));
  },
);

test.serial('--timeout on run, trigger and rerun --wait; only with --wait', async (t) => {
  const { api, svc } = await setup('run-wait-timeout');
  // A ticking clock: the run is not parked, it waits for real time to pass.
  const workflowId = await createWorkflow(api, {
    name: 'Long',
    status: 'active',
    trigger: { type: 'webhook', config: { path: 'run-wait-timeout' } },
    settings: { timeout_seconds: 7200 },
    steps: [waitStep('pause', 3600)],
  });
  const followed = await svc('workflows', 'run', workflowId, '--wait', '--timeout', '1s', '--json');
  assertExit(t, followed, 1);
  const run = followed.json<{ execution_id: string; status: string }>();
  t.is(run.status, 'running');
  t.true(
    followed.stderr.includes(
      `Stopped following run ${run.execution_id} after 1s (--timeout); it goes on.`,
    ),
    followed.stderr,
  );
  const triggered = await svc('workflows', 'trigger', workflowId, '--wait', '--timeout', '1s');
  assertExit(t, triggered, 1);
  t.regex(triggered.stderr, /Stopped following run wex_\w+ after 1s \(--timeout\); it goes on\./);
  const rerun = await svc('workflows', 'rerun', run.execution_id, '--wait', '--timeout', '1s');
  assertExit(t, rerun, 1);
  t.regex(rerun.stderr, /Stopped following run wex_\w+ after 1s/);

  const alone = await svc('workflows', 'run', workflowId, '--timeout', '1s');
  assertExit(t, alone, 2);
  t.regex(alone.stderr, /--timeout goes with --wait/);
});

test('agents create --help says the default autonomy and what L2 means', async (t) => {
  const help = await d.cli(['agents', 'create', '--help']);
  assertExit(t, help, 0);
  t.regex(
    help.stdout.replace(/\s+/g, ' '),
    /default L2, where every action waits for a person \(svc approvals\)/,
  );
});
