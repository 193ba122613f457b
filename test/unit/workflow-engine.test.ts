// The workflow engine on the daemon's services, with the injected clock moved by hand: waits and
// retries are timers on that clock, parallel joins, first-wins branches, cancel in a branch, the
// run timeout, and the 60 s bound of wait_for_completion.
import test from 'ava';
import type { Services } from '../../daemon/app/services.js';
import { runningServices } from '../helpers/services.js';
import { stepStates, waitStep } from '../helpers/workflows.js';

async function setUp(t: import('ava').ExecutionContext) {
  const services = runningServices(t);
  const workspaceId = services.workspaces.defaultWorkspaceId;
  /** Moves the daemon clock as `svc clock advance` does: timers, then alarms. */
  const advance = async (ms: number) => {
    services.clock.setOffset(services.clock.offset + ms);
    await services.timers.runDue();
    services.alarms.check();
    await settle(services);
  };
  return { services, workspaceId, advance };
}

/** Lets pending microtasks and group commits (setImmediate) run. */
async function settle(services: Services): Promise<void> {
  for (let i = 0; i < 20; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    await services.timers.runDue();
  }
}

test('a wait parks on the injected clock; the run completes once the clock has passed it', async (t) => {
  const { services, workspaceId, advance } = await setUp(t);
  const workflow = services.workflows.create(workspaceId, {
    name: 'w',
    steps: [waitStep('a', 600, 'b'), waitStep('b', 0)],
  });
  const run = services.engine.start(workspaceId, workflow.id, { input: { x: 1 } });
  await settle(services);
  const row = () => services.engine.find(run.execution_id)!;
  t.is(row().status, 'running');
  t.is(row().step_results[0]!.status, 'waiting');
  // A minute short of the wait's end: the clock also runs in real time, which under load went
  // past a 1 s margin between the start and this check.
  await advance(540_000);
  t.is(row().status, 'running');
  await advance(60_001);
  t.is(row().status, 'completed');
  t.deepEqual(stepStates(row()), [
    ['a', 'completed'],
    ['b', 'completed'],
  ]);
});

test('parallel without wait_for_all: the first chain to end wins, the others are dropped', async (t) => {
  const { services, workspaceId, advance } = await setUp(t);
  const workflow = services.workflows.create(workspaceId, {
    name: 'race',
    steps: [
      {
        id: 'fan',
        name: 'fan',
        type: 'parallel',
        config: { steps: ['fast', 'slow'], wait_for_all: false },
        next_step_id: 'after',
      },
      waitStep('fast', 5),
      waitStep('slow', 500),
      waitStep('after', 0),
    ],
  });
  const run = services.engine.start(workspaceId, workflow.id, { input: {} });
  await settle(services);
  await advance(6_000);
  const view = services.engine.find(run.execution_id)!;
  t.is(view.status, 'completed');
  t.deepEqual(view.step_results.map((step) => step.step_id).sort(), ['after', 'fan', 'fast']);
  t.like(view.step_results.find((step) => step.step_id === 'fan')!.result, {
    branches: 2,
    wait_for_all: false,
  });
  // The dropped branch's timer finds nothing to do.
  await advance(600_000);
  const again = services.engine.find(run.execution_id)!;
  t.is(again.step_results.length, 3);
});

test('cancel inside a parallel branch stops every branch (each kept, marked cancelled) and drops the timers', async (t) => {
  const { services, workspaceId, advance } = await setUp(t);
  const workflow = services.workflows.create(workspaceId, {
    name: 'branches',
    steps: [
      { id: 'fan', name: 'fan', type: 'parallel', config: { steps: ['x', 'y'] } },
      waitStep('x', 60),
      waitStep('y', 120),
    ],
  });
  const pendingBefore = services.timers.pending();
  const run = services.engine.start(workspaceId, workflow.id, { input: {} });
  await settle(services);
  t.true(services.timers.pending() > pendingBefore);
  t.truthy(services.engine.cancel(run.execution_id));
  t.is(services.timers.pending(), pendingBefore);
  await advance(200_000);
  const view = services.engine.find(run.execution_id)!;
  t.is(view.status, 'cancelled');
  // Both branches were waiting: each keeps its step, marked cancelled; neither wait completed.
  t.deepEqual(stepStates(view), [
    ['x', 'cancelled'],
    ['y', 'cancelled'],
  ]);
  t.like(view, { steps_completed: 0, failed_step: 'x', error: { code: 'execution_cancelled' } });
  t.is(services.engine.cancel(run.execution_id), undefined, 'already ended');
});

test('wait_for_completion answers 202 with the running run after 60 s of daemon-clock time', async (t) => {
  const { services, workspaceId, advance } = await setUp(t);
  const workflow = services.workflows.create(workspaceId, {
    name: 'slow',
    steps: [waitStep('long', 600)],
  });
  const answer = services.runs.execute(workspaceId, workflow.id, {
    input: {},
    wait_for_completion: true,
  });
  await settle(services);
  await advance(61_000);
  const { status, execution } = await answer;
  t.is(status, 202);
  t.is(execution.status, 'running');
});

test('a waited-for run leaves nothing behind: ended before the wait, during it, or by its bound', async (t) => {
  const { services, workspaceId, advance } = await setUp(t);
  const workflow = (seconds: number) =>
    services.workflows.create(workspaceId, { name: `w${seconds}`, steps: [waitStep('a', seconds)] })
      .id;
  const wait = (workflowId: string, maxMs: number) => {
    const run = services.engine.start(workspaceId, workflowId, { input: {} });
    return services.engine.waitFor(run.execution_id, maxMs);
  };

  const inline = await wait(workflow(0), 60_000);
  t.is(inline?.status, 'completed', 'a run whose steps need no waiting has ended already');
  t.is(services.engine.waitedRuns, 0);

  const during = wait(workflow(10), 60_000);
  await settle(services);
  t.is(services.engine.waitedRuns, 1);
  await advance(11_000);
  t.is((await during)?.status, 'completed');
  t.is(services.engine.waitedRuns, 0);

  const bounded = wait(workflow(600), 5_000);
  await settle(services);
  await advance(6_000);
  t.is((await bounded)?.status, 'running', 'answered at the bound, still running');
  t.is(services.engine.waitedRuns, 0);
});

test('a step with the deadline passed ends the run timeout, with one failed event', async (t) => {
  const { services, workspaceId, advance } = await setUp(t);
  const workflow = services.workflows.create(workspaceId, {
    name: 'late',
    // Each wait fits in the timeout (a longer one is refused); the second ends past it.
    steps: [waitStep('first', 20, 'long'), waitStep('long', 20, 'next'), waitStep('next', 0)],
    settings: { timeout_seconds: 30 },
  });
  const run = services.engine.start(workspaceId, workflow.id, { input: {} });
  await settle(services);
  await advance(31_000);
  const view = services.engine.find(run.execution_id)!;
  t.is(view.status, 'timeout');
  t.like(view.error, { code: 'workflow_timeout' });
  const failed = services.events
    .list(workspaceId, { type: 'workflow.execution.failed', limit: 100 })
    .items.map((item) => JSON.parse((item as { json: string }).json))
    .filter((event) => event.data.execution_id === run.execution_id);
  t.is(failed.length, 1);
  await advance(600_000);
  const ran = services.engine.find(run.execution_id)!.step_results.map((step) => step.step_id);
  t.false(ran.includes('next'), 'nothing runs after the deadline');
});

/** An active agent (L3 unless told) of the default workspace (the simulated brain answers at once). */
function activeAgent(
  services: Services,
  workspaceId: string,
  autonomy: 'L2' | 'L3' = 'L3',
): string {
  const workspace = services.workspaces.get(workspaceId)!;
  const agent = services.agents.create(workspace, {
    name: 'Helper',
    ontology: 'retail-v1',
    type: 'customer-service',
    autonomy_level: autonomy,
  });
  services.agents.deploy(workspaceId, agent.id);
  return agent.id;
}

const agentStep = (id: string, agentId: string, next?: string) => ({
  id,
  name: id,
  type: 'agent_action',
  agent_id: agentId,
  config: { action: id, input_mapping: { text: '{{trigger.payload.text}}' } },
  ...(next ? { next_step_id: next } : {}),
});

const count = (services: Services, table: string): number =>
  (services.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;

test('steps that need no waiting run in the transaction that starts the run (inline), each once', async (t) => {
  const { services, workspaceId } = await setUp(t);
  const agentId = activeAgent(services, workspaceId);
  const workflow = services.workflows.create(workspaceId, {
    name: 'local',
    steps: [
      agentStep('classify', agentId, 'check'),
      {
        id: 'check',
        name: 'check',
        type: 'condition',
        config: {
          condition: 'classify.result.confidence > 0',
          if_true: 'reply',
          if_false: 'reply',
        },
      },
      agentStep('reply', agentId),
    ],
  });
  const run = services.db.transaction(() =>
    services.engine.start(workspaceId, workflow.id, { input: { text: 'hello' }, inline: true }),
  )();
  // No microtask, no group commit has run yet: the whole run was that one transaction.
  const view = services.engine.find(run.execution_id)!;
  t.is(view.status, 'completed');
  t.deepEqual(stepStates(view), [
    ['classify', 'completed'],
    ['check', 'completed'],
    ['reply', 'completed'],
  ]);
  t.is(count(services, 'agent_executions'), 2);
  await settle(services);
  t.is(services.engine.find(run.execution_id)!.step_results.length, 3);
  t.is(count(services, 'agent_executions'), 2);
});

test('a start that rolls back leaves nothing of the steps it ran inline', async (t) => {
  const { services, workspaceId } = await setUp(t);
  const agentId = activeAgent(services, workspaceId);
  const workflow = services.workflows.create(workspaceId, {
    name: 'rolled back',
    steps: [agentStep('answer', agentId)],
  });
  const runsBefore = count(services, 'workflow_executions');
  const eventsBefore = count(services, 'events');
  t.throws(
    () =>
      services.db.transaction(() => {
        services.engine.start(workspaceId, workflow.id, { input: { text: 'hi' }, inline: true });
        throw new Error('the caller failed after the start');
      })(),
    { message: 'the caller failed after the start' },
  );
  await settle(services);
  t.is(count(services, 'workflow_executions'), runsBefore);
  t.is(count(services, 'agent_executions'), 0);
  t.is(count(services, 'workflow_step_runs'), 0);
  t.is(count(services, 'events'), eventsBefore);
});

test('a condition cannot read secrets: the workflow is refused when written, naming the step', async (t) => {
  const { services, workspaceId } = await setUp(t);
  services.secrets.set(workspaceId, 'TOKEN', 'tok_very_secret');
  const error = t.throws(() =>
    services.workflows.create(workspaceId, {
      name: 'peek',
      steps: [
        waitStep('first', 0, 'peek'),
        {
          id: 'peek',
          name: 'peek',
          type: 'condition',
          config: { condition: "secrets.TOKEN != ''", if_true: 'last', if_false: 'last' },
        },
        waitStep('last', 0),
      ],
    }),
  ) as { code?: string; param?: string; message: string } | undefined;
  t.like(error, { code: 'invalid_step_config', param: 'steps[1].config.condition' });
  t.regex(error!.message, /Step 'peek', config\.condition: .*conditions cannot read secrets/);
  t.false(error!.message.includes('tok_very_secret'));
});

test('a start retried alone after its group commit rolled back stores the run once, whole', async (t) => {
  const { services, workspaceId } = await setUp(t);
  const agentId = activeAgent(services, workspaceId);
  const workflow = services.workflows.create(workspaceId, {
    name: 'retried',
    steps: [agentStep('first', agentId, 'second'), agentStep('second', agentId)],
  });
  // Queued in the same tick: one transaction, which the failing change rolls back; each change
  // then runs again alone.
  const started = services.commits.run(() =>
    services.engine.start(workspaceId, workflow.id, { input: { text: 'hi' }, inline: true }),
  );
  const failing = services.commits.run(() => {
    throw new Error('another change fails');
  });
  await t.throwsAsync(failing, { message: 'another change fails' });
  const run = await started;
  await settle(services);
  const view = services.engine.find(run.execution_id)!;
  t.is(view.status, 'completed');
  t.deepEqual(stepStates(view), [
    ['first', 'completed'],
    ['second', 'completed'],
  ]);
  t.is(count(services, 'workflow_executions'), 1);
  t.is(count(services, 'agent_executions'), 2);
  const started_events = services.db
    .prepare("SELECT COUNT(*) AS n FROM events WHERE type = 'workflow.execution.started'")
    .get() as { n: number };
  t.is(started_events.n, 1);
});

test('a cancel and the cancel of the approval its run waits on are one transaction', async (t) => {
  const { services, workspaceId } = await setUp(t);
  const agentId = activeAgent(services, workspaceId, 'L2');
  const workflow = services.workflows.create(workspaceId, {
    name: 'review',
    steps: [agentStep('review', agentId)],
  });
  const run = services.engine.start(workspaceId, workflow.id, { input: { text: 'refund' } });
  await settle(services);
  const pending = services.engine.find(run.execution_id)!;
  t.is(pending.status, 'awaiting_approval');
  const approvalId = (pending.step_results[0]!.result as { agent_execution_id: string })
    .agent_execution_id;
  const approval = () => services.executions.get(workspaceId, agentId, approvalId).status;

  // The store fails after the approval's cancel (as a crash would): neither change stays.
  const closeWithRun = services.executions.closeWithRun.bind(services.executions);
  services.executions.closeWithRun = (id, closing) => {
    closeWithRun(id, closing);
    throw new Error('disk I/O error');
  };
  t.throws(() => services.engine.cancel(run.execution_id), { message: 'disk I/O error' });
  t.is(services.engine.find(run.execution_id)!.status, 'awaiting_approval');
  t.is(approval(), 'awaiting_approval');

  services.executions.closeWithRun = closeWithRun;
  t.truthy(services.engine.cancel(run.execution_id));
  t.is(approval(), 'cancelled');
  const error = t.throws(() =>
    services.executions.decideApproval(workspaceId, agentId, approvalId, 'approve'),
  );
  t.regex(error!.message, new RegExp(`Workflow run ${run.execution_id} was cancelled`));
});
