// A run that ends closes every approval it holds, whatever ends it (issue 51, row 5): a timeout,
// a parallel sibling failing, its workflow deleted, or the run completing without the approval
// (a first-wins parallel's other branch). In the transaction that ends it, the agent execution
// awaiting approval becomes cancelled with an error naming the run and what became of it; deciding
// it afterwards is 409 conflict naming the run (REST and `svc agents approve|reject`), and
// nothing is recorded as done. (A cancel by hand: workflow-cancel.test.ts.) One daemon for the file.
import test, { type ExecutionContext } from 'ava';
import { assertExit } from '../helpers/daemon.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { sharedDaemon } from '../helpers/setup.js';
import {
  activeAgent,
  allEvents,
  apiFor,
  createWorkflow,
  getExecution,
  waitForExecution,
  type Api,
} from '../helpers/workflows.js';

const d = sharedDaemon(test);
let ws: string;
let api: Api;
let approver: { id: string };
/** Answers every call 500: a webhook step calling it fails. */
let failing: Receiver;

test.before(async () => {
  ws = await d.createWorkspace('approvals-end-with-run');
  api = await apiFor(d, ws);
  failing = await startReceiver();
  failing.respondWith(500);
  // L2: every execution waits for a person.
  approver = await activeAgent(api, { autonomy_level: 'L2', name: 'Refund approver' });
});

test.after.always(async () => {
  await failing?.close();
});

const refundStep = (id = 'refund') => ({
  id,
  name: 'Approve the refund',
  type: 'agent_action',
  agent_id: approver.id,
  config: { action: 'issue_refund', input_mapping: { text: '{{trigger.payload.message}}' } },
});

/** Starts a run of `workflowId`; answers its id and the agent execution it awaits. */
async function awaiting(workflowId: string) {
  const started = await api('POST', `/workflows/${workflowId}/execute`, {
    input: { message: 'refund order A-1' },
  });
  if (started.status !== 202) throw new Error(`execute: ${JSON.stringify(started.body)}`);
  const runId: string = started.body.data.execution_id;
  const parked = await waitForExecution(api, workflowId, runId, (e) =>
    e.step_results.some((s: { status: string }) => s.status === 'awaiting_approval'),
  );
  const step = parked.step_results.find(
    (s: { status: string }) => s.status === 'awaiting_approval',
  );
  return { runId, approvalId: step.result.agent_execution_id as string };
}

/**
 * The approval was closed with its run: cancelled, its error `code` naming the run and saying
 * `what` became of it; approving or rejecting it is 409 naming the run, by REST and by the CLI,
 * and changes nothing (no completed execution, no second decision event).
 */
async function assertClosed(
  t: ExecutionContext,
  approvalId: string,
  runId: string,
  code: string,
  what: RegExp,
) {
  const path = `/agents/${approver.id}/executions/${approvalId}`;
  const closed = (await api('GET', path)).body.data;
  t.like(closed, { status: 'cancelled', approval: null, error: { code } });
  t.true(closed.error.message.includes(runId), closed.error.message);
  t.regex(closed.error.message, what);
  for (const decision of ['approve', 'reject']) {
    const rest = await api('POST', `${path}/approve`, { decision });
    t.is(rest.status, 409, JSON.stringify(rest.body));
    t.is(rest.body.error.code, 'conflict');
    t.true(rest.body.error.message.includes(runId), rest.body.error.message);
    const cli = await d.cli(['agents', decision, approver.id, approvalId, '--workspace', ws]);
    assertExit(t, cli, 1);
    t.true(cli.stderr.includes(runId), cli.stderr);
  }
  t.is((await api('GET', path)).body.data.status, 'cancelled');
  const ends = (await allEvents(api, 'agent.execution.*')).filter(
    (e) =>
      e.data.execution_id === approvalId &&
      (e.type === 'agent.execution.completed' || e.type === 'agent.execution.failed'),
  );
  t.deepEqual(
    ends.map((e) => [e.type, e.data.status]),
    [['agent.execution.failed', 'cancelled']],
  );
  const shown = await d.cli(['agents', 'execution', approver.id, approvalId, '--workspace', ws]);
  assertExit(t, shown, 0);
  t.true(shown.stdout.includes(runId), shown.stdout);
}

test.serial(
  'a run that times out closes its approval: deciding it is 409 naming the run',
  async (t) => {
    const flow = await createWorkflow(api, {
      name: 'Refund with a deadline',
      steps: [refundStep()],
      settings: { timeout_seconds: 60 },
    });
    const { runId, approvalId } = await awaiting(flow);
    await d.advance('61s');
    const run = await getExecution(api, flow, runId);
    t.like(run, { status: 'timeout', error: { code: 'workflow_timeout' } });
    await assertClosed(t, approvalId, runId, 'workflow_run_ended', /timed out/);
  },
);

test.serial(
  'a parallel sibling failing fails the run and closes the approval of the other branch',
  async (t) => {
    const flow = await createWorkflow(api, {
      name: 'Refund and notify',
      steps: [
        {
          id: 'both',
          name: 'Both',
          type: 'parallel',
          config: { steps: ['refund', 'notify'], wait_for_all: true },
        },
        refundStep(),
        {
          id: 'notify',
          name: 'Notify',
          type: 'webhook',
          config: { url: failing.url, method: 'POST' },
        },
      ],
    });
    const { runId, approvalId } = await awaiting(flow);
    const run = await waitForExecution(api, flow, runId, (e) => e.status !== 'awaiting_approval');
    t.like(run, { status: 'failed', failed_step: 'notify' });
    await assertClosed(t, approvalId, runId, 'workflow_run_ended', /failed at step 'notify'/);
  },
);

test.serial(
  'a run that completes without its approval (a first-wins parallel) closes it',
  async (t) => {
    const flow = await createWorkflow(api, {
      name: 'Refund or skip',
      steps: [
        {
          id: 'either',
          name: 'Either',
          type: 'parallel',
          config: { steps: ['refund', 'skip'], wait_for_all: false },
        },
        refundStep(),
        {
          id: 'skip',
          name: 'Skip',
          type: 'condition',
          config: { condition: 'true', if_true: null, if_false: null },
        },
      ],
    });
    const asked = async () =>
      new Set(
        (await allEvents(api, 'agent.execution.awaiting_approval')).map(
          (e) => e.data.execution_id as string,
        ),
      );
    const askedBefore = await asked();
    const started = await api('POST', `/workflows/${flow}/execute`, {
      input: { message: 'refund order B-2' },
    });
    t.is(started.status, 202, JSON.stringify(started.body));
    const runId: string = started.body.data.execution_id;
    const run = await waitForExecution(api, flow, runId, (e) => e.status === 'completed');
    // The approval the dropped branch asked for (the one new awaiting_approval event).
    const fresh = [...(await asked())].filter((id) => !askedBefore.has(id));
    t.is(fresh.length, 1, JSON.stringify(fresh));
    t.is(run.status, 'completed');
    await assertClosed(
      t,
      fresh[0]!,
      runId,
      'workflow_run_ended',
      /went on without it \(another branch of parallel step 'either' finished first\)/,
    );
  },
);

test.serial('deleting the workflow cancels its run and the approval it held', async (t) => {
  const flow = await createWorkflow(api, { name: 'Refund to delete', steps: [refundStep()] });
  const { runId, approvalId } = await awaiting(flow);
  const deleted = await d.cli(['workflows', 'delete', flow, '--workspace', ws]);
  assertExit(t, deleted, 0);
  await assertClosed(
    t,
    approvalId,
    runId,
    'workflow_run_cancelled',
    /was cancelled \(its workflow was deleted\)/,
  );
});
