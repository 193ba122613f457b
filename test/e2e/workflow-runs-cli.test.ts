// Runs from the user's side where the daemon clock decides: a failed step retried on the clock
// (run --wait shows the attempts), cancel wherever the run is (a parallel branch parked in a
// wait, another awaiting approval: nothing more happens for it, even when the clock moves past
// the wait), and executions gone after 30 days. One daemon of its own, tests in series, because
// they move its clock far.
import test, { type ExecutionContext } from 'ava';
import { assertExit, type CliResult } from '../helpers/daemon.js';
import { sharedDaemon } from '../helpers/setup.js';
import { startReceiver } from '../helpers/receiver.js';
import {
  activeAgent,
  allEvents,
  apiFor,
  createWorkflow,
  firstExecution,
  getExecution,
  waitForExecution,
  type Api,
} from '../helpers/workflows.js';

const d = sharedDaemon(test);
let ws: string;
let api: Api;

test.before(async () => {
  ws = await d.createWorkspace('workflow-runs');
  api = await apiFor(d, ws);
});

function svc(...args: string[]): Promise<CliResult> {
  return d.cli([...args, '--workspace', ws]);
}

/** A run of one webhook step (to a receiver of its own), started now and waited to its end. */
async function markerRun(t: ExecutionContext): Promise<void> {
  const receiver = await startReceiver(t);
  const workflowId = await createWorkflow(api, {
    name: 'Marker',
    steps: [
      { id: 'call', name: 'Call', type: 'webhook', config: { url: receiver.url, method: 'POST' } },
    ],
  });
  const run = await api('POST', `/workflows/${workflowId}/execute`, {
    input: {},
    wait_for_completion: true,
  });
  t.is(run.status, 200, JSON.stringify(run.body));
  t.is(receiver.requests.length, 1, 'the marker run made its call');
}

test.serial(
  'a failed step is retried on the daemon clock; run --wait shows the attempts',
  async (t) => {
    const receiver = await startReceiver(t);
    receiver.failNext(1, 503);
    const workflowId = await createWorkflow(api, {
      name: 'Flaky receiver',
      settings: { retry_policy: { max_attempts: 3, backoff_multiplier: 2 } },
      steps: [
        {
          id: 'call',
          name: 'Call',
          type: 'webhook',
          config: { url: receiver.url, method: 'POST', body: { run: '{{workflow.execution_id}}' } },
        },
      ],
    });
    const waiting = svc('workflows', 'run', workflowId, '--wait');
    const executionId = await firstExecution(d, api, workflowId);
    await waitForExecution(api, workflowId, executionId, (e) =>
      e.step_results.some((step: { status: string }) => step.status === 'failed'),
    );
    await d.advance('5s');
    const result = await waiting;
    assertExit(t, result, 0);
    t.regex(result.stderr, /step call \(webhook\) failed: .*503/);
    t.regex(result.stderr, /step call \(webhook\) retrying \(attempt 2\)/);
    t.regex(result.stderr, /step call \(webhook\) completed in .* \(attempt 2\)/);
    t.is(receiver.requests.length, 2);
    const execution = await getExecution(api, workflowId, executionId);
    t.deepEqual(
      execution.step_results.map((step: { attempt: number; status: string }) => [
        step.attempt,
        step.status,
      ]),
      [
        [1, 'failed'],
        [2, 'completed'],
      ],
    );
  },
);

test.serial(
  'cancel stops a run in a parallel branch and awaiting approval; nothing follows',
  async (t) => {
    const receiver = await startReceiver(t);
    const reviewer = await activeAgent(api, { autonomy_level: 'L2', name: 'Reviewer' });
    const workflowId = await createWorkflow(api, {
      name: 'Two branches',
      settings: { timeout_seconds: 86_400 },
      steps: [
        {
          id: 'fan',
          name: 'Fan out',
          type: 'parallel',
          config: { steps: ['slow', 'review'], wait_for_all: true },
          next_step_id: 'after',
        },
        {
          id: 'slow',
          name: 'Slow branch',
          type: 'wait',
          config: { duration_seconds: 3600 },
          next_step_id: 'branch_call',
        },
        {
          id: 'branch_call',
          name: 'Branch call',
          type: 'webhook',
          config: { url: receiver.url, method: 'POST', body: { from: 'branch' } },
        },
        {
          id: 'review',
          name: 'Human review',
          type: 'agent_action',
          agent_id: reviewer.id,
          config: { action: 'review', input_mapping: { text: 'please review' } },
        },
        {
          id: 'after',
          name: 'After the join',
          type: 'webhook',
          config: { url: receiver.url, method: 'POST', body: { from: 'after' } },
        },
      ],
    });
    const waiting = svc('workflows', 'run', workflowId, '--wait', '--json');
    const executionId = await firstExecution(d, api, workflowId);
    const parked = await waitForExecution(
      api,
      workflowId,
      executionId,
      (e) =>
        e.status === 'awaiting_approval' &&
        e.step_results.some((step: { step_id: string }) => step.step_id === 'slow'),
    );
    t.is(parked.status, 'awaiting_approval');

    const cancelled = await svc('workflows', 'cancel', workflowId, executionId, '--json');
    assertExit(t, cancelled, 0);
    const result = await waiting;
    assertExit(t, result, 1);
    t.is(result.json().status, 'cancelled');

    const eventsOf = async () =>
      (await allEvents(api, 'workflow.execution.*')).filter(
        (event) => event.data.execution_id === executionId,
      ).length;
    const before = await eventsOf();
    await d.advance('2h');
    // A wrongly kept timer fires during the advance and starts its step then: a run started
    // now, whose one step is a call too, ends after that step's call has gone out.
    await markerRun(t);
    t.is(receiver.requests.length, 0, 'neither the branch nor the step after the join ran');
    t.is(await eventsOf(), before, 'no event for the run after its cancel');
    t.is((await getExecution(api, workflowId, executionId)).status, 'cancelled');
  },
);

test.serial('executions are gone after 30 days on the clock', async (t) => {
  const workflowId = await createWorkflow(api, {
    name: 'Short',
    steps: [{ id: 'a', name: 'A', type: 'wait', config: { duration_seconds: 0 } }],
  });
  // The run and the clock over REST and the control channel (`svc workflows run` and `svc clock
  // advance` are tested in workflows-cli and cli-operator); `svc workflows execution` is the
  // subject.
  const run = await api('POST', `/workflows/${workflowId}/execute`, {
    input: {},
    wait_for_completion: true,
  });
  t.is(run.status, 200, JSON.stringify(run.body));
  t.is(run.body.data.status, 'completed');
  const executionId = run.body.data.execution_id;
  assertExit(t, await svc('workflows', 'execution', workflowId, executionId), 0);
  await d.advance('31d');
  // Housekeeping runs as the clock moves, before the advance answers.
  const shown = await svc('workflows', 'execution', workflowId, executionId, '--json');
  assertExit(t, shown, 1);
  t.is(shown.json().error.code, 'execution_not_found');
});
