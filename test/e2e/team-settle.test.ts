// Team mode, svc settle (issue 54): settle asked of any daemon of a sandbox waits for what the
// whole sandbox has to do now, not only for what runs on the daemon asked. Steps in flight and
// due timers are read from the store (a step another daemon runs shows as ready in its run's
// stored state); work another daemon holds on the sandbox clock (an injected latency) is left
// out, as that daemon leaves it out: only a clock move ends it. Two daemons on a throwaway
// PostgreSQL cluster of this file's own.
import test from 'ava';
import { trpc } from '../helpers/api.js';
import type { TestDaemon } from '../helpers/daemon.js';
import { throwawayPostgres, twoDaemonsOn, type TestPostgres } from '../helpers/postgres.js';
import { startReceiver } from '../helpers/receiver.js';
import { apiFor, createWorkflow, waitForExecution, type Api } from '../helpers/workflows.js';

let pg: Required<TestPostgres>;
test.before(async () => {
  pg = await throwawayPostgres();
});

const started: TestDaemon[] = [];
test.afterEach.always(async () => {
  await Promise.all(started.splice(0).map((daemon) => daemon.stop().catch(() => undefined)));
});

let sandboxes = 0;

/** settle on `daemon` through the control channel: its answer or its error. */
async function settle(daemon: TestDaemon, timeoutMs: number) {
  const answer = await trpc(daemon, 'settle', { timeout_ms: timeoutMs }, { method: 'POST' });
  return { data: answer.data, error: answer.error };
}

/** A workflow of one webhook step calling `url`; answers its id. */
function oneCall(api: Api, url: string): Promise<string> {
  return createWorkflow(api, {
    name: 'One call',
    steps: [
      {
        id: 'call',
        name: 'Call',
        type: 'webhook',
        config: { url, method: 'POST', timeout_seconds: 30 },
      },
    ],
  });
}

async function execute(api: Api, workflowId: string): Promise<string> {
  const answer = await api('POST', `/workflows/${workflowId}/execute`, {
    input: {},
    wait_for_completion: false,
  });
  if (answer.status !== 202) throw new Error(`execute: ${JSON.stringify(answer.body)}`);
  return answer.body.data.execution_id as string;
}

test.serial(
  'settle on A waits for a step in flight on B, names it at its timeout, and settles once it ended',
  async (t) => {
    const [a, b] = await twoDaemonsOn(pg.url, `settle_${++sandboxes}`, started);
    const { workspaceId } = await b.operator();
    const onB = await apiFor(b, workspaceId);
    const receiver = await startReceiver(t);
    // Long enough for the early settle below to look while the call is held, on a loaded machine.
    receiver.delay(8000);
    const workflowId = await oneCall(onB, receiver.url);
    const executionId = await execute(onB, workflowId);
    await receiver.waitForCount(1);

    const early = await settle(a, 200);
    t.regex(early.error?.message ?? '', /^Not settled after 200ms; still pending: /);
    t.regex(early.error?.message ?? '', new RegExp(`run ${executionId} \\(step call running\\)`));

    const settled = await settle(a, 60_000);
    t.true(settled.data?.settled, JSON.stringify(settled));
    const onA = await apiFor(a, workspaceId);
    const run = await onA('GET', `/workflows/${workflowId}/executions/${executionId}`);
    t.is(run.body.data.status, 'completed', 'settled on A means the step on B has finished');
  },
);

test.serial(
  'a step B holds on an injected latency does not hold settle on A; a clock move on A ends it',
  async (t) => {
    const [a, b] = await twoDaemonsOn(pg.url, `settle_${++sandboxes}`, started);
    const { workspaceId } = await b.operator();
    const onB = await apiFor(b, workspaceId);
    const receiver = await startReceiver(t);
    // Added on B, which makes the call (a daemon reads fault rules at its start and keeps
    // those added through it: a rule added on A is not seen by B yet), holding it ten minutes.
    const rule = await trpc(
      b,
      'faults.add',
      { workspace_id: workspaceId, url_prefix: receiver.origin, latency_ms: 600_000 },
      { method: 'POST' },
    );
    t.falsy(rule.error, JSON.stringify(rule.error));
    const workflowId = await oneCall(onB, receiver.url);
    const executionId = await execute(onB, workflowId);
    // B settles: it holds the step until the sandbox clock passes the latency.
    const onItsOwn = await settle(b, 60_000);
    t.true(onItsOwn.data?.settled, JSON.stringify(onItsOwn));

    // A leaves B's held step out as B does (before: it waited for it until its timeout).
    const elsewhere = await settle(a, 60_000);
    t.true(elsewhere.data?.settled, JSON.stringify(elsewhere));
    t.is(receiver.requests.length, 0, 'the call is still held');

    // The clock moved on A releases it on B: the call is made and the run completes.
    const moved = await trpc(a, 'clock.advance', { ms: 660_000 }, { method: 'POST' });
    t.falsy(moved.error, JSON.stringify(moved.error));
    const run = await waitForExecution(onB, workflowId, executionId, (execution) =>
      ['completed', 'failed'].includes(execution.status),
    );
    t.is(run.status, 'completed', JSON.stringify(run));
    t.is(receiver.requests.length, 1);
  },
);
