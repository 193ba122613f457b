// Real durations on a frozen sandbox clock (issue 55, point 2): started_at, completed_at,
// duration_ms and duration_seconds stay on the sandbox clock (0 while it is frozen), and
// elapsed_ms says how long each step attempt and the run took in real time; the CLI's
// "completed in" reads elapsed_ms. A receiver that answers after 80 ms gives a lower bound that
// no machine can beat, so nothing here depends on the machine's speed.
import test from 'ava';
import { control } from '../helpers/api.js';
import { assertExit } from '../helpers/daemon.js';
import { startReceiver } from '../helpers/receiver.js';
import { sharedDaemon } from '../helpers/setup.js';
import { apiFor, createWorkflow, waitStep } from '../helpers/workflows.js';

const d = sharedDaemon(test);

interface Step {
  step_id: string;
  duration_ms: number | null;
  elapsed_ms: number | null;
}
interface Run {
  status: string;
  duration_seconds: number | null;
  elapsed_ms: number | null;
  step_results: Step[];
}

test.serial(
  'a frozen clock: duration_ms 0, elapsed_ms the real time; the CLI reports real time',
  async (t) => {
    // The clock over the control channel, as `svc clock set --frozen|reset|advance` move it
    // (tested in cli-operator); the subjects are the durations and how the CLI shows them.
    await control(d, 'clock.set', { to: '2026-01-05T09:00:00Z', frozen: true });
    t.teardown(() => control(d, 'clock.reset', undefined, 'mutation'));
    const ws = await d.createWorkspace('real-durations');
    const api = await apiFor(d, ws);
    const receiver = await startReceiver(t);
    receiver.delay(80);
    const workflowId = await createWorkflow(api, {
      name: 'Slow call',
      steps: [
        {
          id: 'call',
          name: 'Call',
          type: 'webhook',
          config: { url: `${receiver.url}/slow`, method: 'POST', body: {} },
          next_step_id: 'pause',
        },
        waitStep('pause', 0),
      ],
    });
    const ran = await d.cli([
      'workflows',
      'run',
      workflowId,
      '--wait',
      '--json',
      '--workspace',
      ws,
    ]);
    assertExit(t, ran, 0);
    const run = ran.json<Run>();
    t.is(run.status, 'completed');
    t.is(run.duration_seconds, 0, 'the sandbox clock stood still');
    t.true(run.elapsed_ms! >= 80, `run elapsed_ms ${run.elapsed_ms}`);
    const call = run.step_results.find((step) => step.step_id === 'call')!;
    t.is(call.duration_ms, 0);
    t.true(call.elapsed_ms! >= 80, `step elapsed_ms ${call.elapsed_ms}`);
    t.true(call.elapsed_ms! <= run.elapsed_ms!);
    // The summary says the real time, not 0ms.
    const summary = /completed in (\S+)/.exec(
      ran.stderr.split('\n').find((line) => line.startsWith('Run'))!,
    );
    t.truthy(summary, ran.stderr);
    t.not(summary![1], '0ms');
    t.regex(ran.stderr, /step call \(webhook\) completed in (?!0ms)\S+/);

    // A wait skipped with the clock: 15 minutes on the sandbox clock, little real time.
    const waiting = await createWorkflow(api, {
      name: 'Wait',
      steps: [waitStep('pause', 900)],
    });
    const started = await api('POST', `/workflows/${waiting}/execute`, { input: {} });
    const runId = started.body.data.execution_id as string;
    await d.advance('15m');
    const done = await d.cli(['workflows', 'wait', runId, '--json', '--workspace', ws]);
    assertExit(t, done, 0);
    const waited = done.json<Run>();
    t.is(waited.duration_seconds, 900);
    const pause = waited.step_results.find((step) => step.step_id === 'pause')!;
    t.is(pause.duration_ms, 900_000);
    t.is(typeof pause.elapsed_ms, 'number');
    const shown = await d.cli(['workflows', 'execution', runId, '--workspace', ws]);
    assertExit(t, shown, 0);
    t.regex(shown.stdout, /duration: \S+ \(15m on the sandbox clock\)/);
  },
);
