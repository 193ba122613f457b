// A cancel is final (issue 38, item 6): a run cancelled while an agent step awaits approval
// cancels that approval with it. Approving or rejecting it afterwards is 409 conflict naming the
// run (REST, CLI, the dashboard's route), it leaves the dashboard's approvals list, the run keeps
// the step it was cancelled at (marked cancelled) and publishes workflow.execution.failed with
// status cancelled. Also: the dashboard's Cancel, an approval asked for after the cancel (a stub's
// delay), and a cancel racing an approve (exactly one wins). One daemon for the file.
import test, { type ExecutionContext } from 'ava';
import { assertExit } from '../helpers/daemon.js';
import { sharedDaemon } from '../helpers/setup.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import {
  activeAgent,
  allEvents,
  apiFor,
  createWorkflow,
  getExecution,
  stepStates,
  waitForExecution,
  waitStep,
  type Api,
} from '../helpers/workflows.js';
import { HANG_TIMEOUT_MS } from '../helpers/waiting.js';

const d = sharedDaemon(test);
let ws: string;
let api: Api;
let receiver: Receiver;
let approver: { id: string };
let refundFlow: string;

test.before(async () => {
  ws = await d.createWorkspace('workflow-cancel');
  api = await apiFor(d, ws);
  receiver = await startReceiver();
  // L2: every execution waits for a person.
  approver = await activeAgent(api, { autonomy_level: 'L2', name: 'Refund approver' });
  refundFlow = await createWorkflow(api, {
    name: 'Refund with review',
    steps: [
      waitStep('lookup', 0, 'refund'),
      {
        id: 'refund',
        name: 'Approve the refund',
        type: 'agent_action',
        agent_id: approver.id,
        config: { action: 'issue_refund', input_mapping: { text: '{{trigger.payload.message}}' } },
        next_step_id: 'pay',
      },
      {
        id: 'pay',
        name: 'Pay out',
        type: 'webhook',
        config: { url: receiver.url, method: 'POST', body: { run: '{{workflow.execution_id}}' } },
      },
    ],
  });
});

test.after.always(async () => {
  await receiver?.close();
});

function svc(...args: string[]) {
  return d.cli([...args, '--workspace', ws, '--json']);
}

/** Starts a refund run and waits until it awaits approval; answers both ids. */
async function awaitingRefund(message = 'refund order A-1') {
  const started = await api('POST', `/workflows/${refundFlow}/execute`, { input: { message } });
  if (started.status !== 202) throw new Error(`execute: ${JSON.stringify(started.body)}`);
  const runId: string = started.body.data.execution_id;
  const parked = await waitForExecution(
    api,
    refundFlow,
    runId,
    (e) => e.status === 'awaiting_approval',
  );
  const awaiting = parked.step_results.find(
    (s: { status: string }) => s.status === 'awaiting_approval',
  );
  return { runId, approvalId: awaiting.result.agent_execution_id as string };
}

/** A dashboard session, as the login link of `svc dashboard` opens one. */
/** A dashboard API answer: status and parsed JSON body. */
interface UiAnswer {
  status: number;
  body: any;
}

async function dashboard() {
  const link = await d.cli(['dashboard', '--no-open', '--json']);
  if (link.code !== 0) throw new Error(`svc dashboard: ${link.stderr}`);
  const login = await fetch(link.json().login_url, { redirect: 'manual' });
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const session = await fetch(`${d.url}/ui/api/session`, { headers: { cookie } });
  const csrf = ((await session.json()) as { csrf_token: string }).csrf_token;
  const answer = async (response: Response): Promise<UiAnswer> => ({
    status: response.status,
    body: await response.json(),
  });
  return {
    get: async (path: string) =>
      answer(await fetch(`${d.url}/ui/api${path}?workspace=${ws}`, { headers: { cookie } })),
    post: async (path: string, body: unknown) => {
      const response = await fetch(`${d.url}/ui/api${path}?workspace=${ws}`, {
        method: 'POST',
        headers: {
          cookie,
          origin: d.url,
          'x-csrf-token': csrf,
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
      });
      return answer(response);
    },
    /** The ids the dashboard's Approvals page lists (the same route it reads). */
    approvals: async (): Promise<string[]> => {
      const listed = await fetch(`${d.url}/ui/api/approvals?workspace=${ws}&limit=50`, {
        headers: { cookie },
      });
      const page = (await listed.json()) as { data: { execution_id: string }[] };
      return page.data.map((e) => e.execution_id);
    },
  };
}

/** Polls (real time) until `done` holds, up to the hang guard. */
async function waitUntil(done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + HANG_TIMEOUT_MS;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The stored events about one id (a run or an agent execution), oldest first. */
async function eventsAbout(types: string, id: string) {
  return (await allEvents(api, types)).filter((e) => e.data.execution_id === id);
}

/** The approval was cancelled with the run, and says so. */
async function assertCancelledWithRun(t: ExecutionContext, approvalId: string, runId: string) {
  const execution = await api('GET', `/agents/${approver.id}/executions/${approvalId}`);
  t.like(execution.body.data, {
    status: 'cancelled',
    approval: null,
    error: { code: 'workflow_run_cancelled' },
  });
  t.true(execution.body.data.error.message.includes(runId), execution.body.data.error.message);
  const events = await eventsAbout('agent.execution.*', approvalId);
  const pairs = events.map((e) => [e.type, e.data.status]);
  // started and awaiting_approval are published in one transaction, at the same daemon-clock
  // millisecond: the list does not order them. The cancellation comes last.
  t.deepEqual(pairs.slice(0, 2).sort(), [
    ['agent.execution.awaiting_approval', 'awaiting_approval'],
    ['agent.execution.started', 'processing'],
  ]);
  t.deepEqual(pairs.slice(2), [['agent.execution.failed', 'cancelled']]);
}

test.serial(
  'svc workflows cancel at an approval: the approval is cancelled, deciding it is 409 naming the run (REST, CLI, dashboard), the run keeps its step and publishes its end',
  async (t) => {
    const ui = await dashboard();
    const { runId, approvalId } = await awaitingRefund();
    t.true((await ui.approvals()).includes(approvalId), 'listed while the run waits');

    const cancelled = await svc('workflows', 'cancel', refundFlow, runId);
    assertExit(t, cancelled, 0);
    t.like(cancelled.json(), { execution_id: runId, status: 'cancelled' });

    // Deciding it afterwards: 409 conflict whose message names the cancelled run, every way in.
    for (const decision of ['approve', 'reject']) {
      const rest = await api('POST', `/agents/${approver.id}/executions/${approvalId}/approve`, {
        decision,
      });
      t.is(rest.status, 409, JSON.stringify(rest.body));
      t.is(rest.body.error.code, 'conflict');
      t.true(rest.body.error.message.includes(runId), rest.body.error.message);
      const cli = await svc('agents', decision, approver.id, approvalId);
      assertExit(t, cli, 1);
      t.is(cli.json().error.code, 'conflict');
      t.true(cli.json().error.message.includes(runId), cli.stdout);
    }
    const fromDashboard = await ui.post(`/approvals/${approvalId}`, {
      agent_id: approver.id,
      decision: 'approve',
    });
    t.is(fromDashboard.status, 409, JSON.stringify(fromDashboard.body));
    t.true(fromDashboard.body.error.message.includes(runId));
    await assertCancelledWithRun(t, approvalId, runId);
    t.false((await ui.approvals()).includes(approvalId), 'gone from the Approvals page');
    const overview = await ui.get('/overview');
    t.false(
      overview.body.awaiting_approval.data.some(
        (e: { execution_id: string }) => e.execution_id === approvalId,
      ),
    );

    // The run keeps every step it reached, the one it was cancelled at marked cancelled.
    const run = await getExecution(api, refundFlow, runId);
    t.like(run, {
      status: 'cancelled',
      steps_completed: 1,
      steps_total: 3,
      failed_step: 'refund',
      error: { code: 'execution_cancelled', details: { step_id: 'refund', agent_id: approver.id } },
    });
    t.deepEqual(stepStates(run), [
      ['lookup', 'completed'],
      ['refund', 'cancelled'],
    ]);
    t.deepEqual(run.step_results[1].result, {
      agent_id: approver.id,
      agent_execution_id: approvalId,
    });
    const shown = await d.cli(['workflows', 'execution', refundFlow, runId, '--workspace', ws]);
    assertExit(t, shown, 0);
    t.regex(shown.stdout, /steps: +1\/3 done/);
    t.regex(shown.stdout, /refund +agent_action +cancelled/);
    t.regex(shown.stdout, /was cancelled at step refund \(Approve the refund\)/);

    // Its end is published once, as workflow.execution.failed with status cancelled.
    const ends = await eventsAbout('workflow.execution.*', runId);
    t.deepEqual(
      ends.map((e) => e.type).filter((type) => type !== 'workflow.execution.step_completed'),
      ['workflow.execution.started', 'workflow.execution.failed'],
    );
    t.like(ends.at(-1)!.data, {
      execution_id: runId,
      status: 'cancelled',
      failed_step: 'refund',
      error: { code: 'execution_cancelled' },
      steps_completed: 1,
      steps_total: 3,
    });
    t.is(receiver.requests.length, 0, 'nothing was paid out');
  },
);

test.serial(
  "the dashboard's Cancel cancels the approval too; it leaves the list at once",
  async (t) => {
    const ui = await dashboard();
    const { runId, approvalId } = await awaitingRefund('refund order B-2');
    t.true((await ui.approvals()).includes(approvalId));
    const cancelled = await ui.post(`/runs/${runId}/cancel`, {});
    t.is(cancelled.status, 200, JSON.stringify(cancelled.body));
    // The answer came after the commit: the very next read of the list no longer has it.
    t.false((await ui.approvals()).includes(approvalId));
    await assertCancelledWithRun(t, approvalId, runId);
    t.is(receiver.requests.length, 0);
  },
);

test.serial(
  'an approval asked for after its run was cancelled (a stub delay) is cancelled too',
  async (t) => {
    assertExit(
      t,
      await svc('agents', 'stub', 'add', approver.id, '--match', 'slow refund', '--delay', '10s'),
      0,
    );
    const started = await api('POST', `/workflows/${refundFlow}/execute`, {
      input: { message: 'slow refund C-3' },
    });
    const runId: string = started.body.data.execution_id;
    // The agent step is in flight: its execution is processing, waiting for the stub's delay.
    const inFlight = await waitForExecution(api, refundFlow, runId, (e) =>
      e.step_results.some((s: { step_id: string }) => s.step_id === 'refund'),
    );
    t.is(inFlight.status, 'running');
    const asked = async () =>
      new Set(
        (await allEvents(api, 'agent.execution.awaiting_approval')).map(
          (e) => e.data.execution_id as string,
        ),
      );
    const askedBefore = await asked();
    assertExit(t, await svc('workflows', 'cancel', refundFlow, runId), 0);
    // The stub's delay passes: the execution asks for approval, for a run that is cancelled.
    await d.advance('11s');
    const [approvalId] = [...(await asked())].filter((id) => !askedBefore.has(id));
    t.truthy(approvalId, 'the delayed execution asked for approval');
    await waitUntil(
      async () =>
        (await api('GET', `/agents/${approver.id}/executions/${approvalId}`)).body.data.status ===
        'cancelled',
    );
    await assertCancelledWithRun(t, approvalId!, runId);
    t.false((await (await dashboard()).approvals()).includes(approvalId!));
    t.deepEqual(stepStates(await getExecution(api, refundFlow, runId)), [
      ['lookup', 'completed'],
      ['refund', 'cancelled'],
    ]);
    assertExit(t, await svc('agents', 'stub', 'clear', approver.id), 0);
  },
);

test.serial('a cancel racing an approve: exactly one of them wins, each time', async (t) => {
  const RACES = 9;
  const runs = await Promise.all(
    Array.from({ length: RACES }, (_, i) => awaitingRefund(`refund race ${i}`)),
  );
  const before = receiver.requests.length;
  let approvedWins = 0;
  for (const [i, { runId, approvalId }] of runs.entries()) {
    const cancelRun = () => api('POST', `/workflows/${refundFlow}/executions/${runId}/cancel`);
    const approveIt = () =>
      api('POST', `/agents/${approver.id}/executions/${approvalId}/approve`, {
        decision: 'approve',
      });
    // Sent together, or one of them a few milliseconds later, so that both orders happen.
    const later = <T>(call: () => Promise<T>) =>
      new Promise<T>((resolve, reject) => {
        setTimeout(() => call().then(resolve, reject), 5);
      });
    const [cancel, approve] = await Promise.all(
      i % 3 === 0
        ? [cancelRun(), approveIt()]
        : i % 3 === 1
          ? [later(cancelRun), approveIt()]
          : [cancelRun(), later(approveIt)],
    );
    const execution = (await api('GET', `/agents/${approver.id}/executions/${approvalId}`)).body
      .data;
    const decided = (await eventsAbout('agent.execution.*', approvalId)).filter(
      (e) => e.type === 'agent.execution.completed' || e.type === 'agent.execution.failed',
    );
    t.is(decided.length, 1, 'one decision event for the execution');
    if (approve.status === 200) {
      // The approval came first: the run went on; the cancel stopped what followed, or found
      // the run already ended.
      approvedWins += 1;
      t.is(execution.status, 'completed');
      t.is(decided[0].type, 'agent.execution.completed');
      t.true([200, 409].includes(cancel.status), JSON.stringify(cancel.body));
    } else {
      t.is(approve.status, 409, JSON.stringify(approve.body));
      t.true(approve.body.error.message.includes(runId));
      t.is(cancel.status, 200, JSON.stringify(cancel.body));
      t.is(execution.status, 'cancelled');
      t.like(decided[0].data, { status: 'cancelled' });
    }
  }
  t.log(`approve won ${approvedWins} of ${RACES}, cancel ${RACES - approvedWins}`);
  // Only the runs whose approval won may have paid out.
  t.true(receiver.requests.length - before <= approvedWins);
});
