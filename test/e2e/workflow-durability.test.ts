// Runs are durable (issue 7, decisions §8): a run's state is stored as each step ends, timers only
// wake work up. So 50 runs parked in a `wait` step survive a SIGKILL of the daemon: once it is
// restarted and the clock moved past the wait, each finishes with every step recorded exactly
// once, the final webhook step's receiver called once per run, and exactly one
// workflow.execution.completed event per run. And when the daemon is SIGKILLed in the middle of a
// burst of runs, every run it acknowledged still finishes after the restart (a step in flight
// at the kill may run again, as its next attempt; a finished one never does).
import test, { type ExecutionContext } from 'ava';
import type { TestDaemon } from '../helpers/daemon.js';
import { control } from '../helpers/api.js';
import { HANG_TIMEOUT_MS, readUntil } from '../helpers/events.js';
import { daemonsOfFile, killHard, restart, restNow, running } from '../helpers/processes.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import {
  activeAgent,
  allEvents,
  allExecutions,
  createWorkflow,
  type Api,
  TERMINAL,
} from '../helpers/workflows.js';

const launch = daemonsOfFile(test);

/** A daemon of the test's own, REST on it, a receiver and an active agent. */
async function durable(t: ExecutionContext) {
  const d = await launch();
  const api = restApi(d);
  const receiver = await startReceiver(t);
  const agent = await activeAgent(api);
  return { d, api, receiver, agent };
}

/** REST with the operator credential of whichever daemon runs now (it is new at each start). */
function restApi(d: TestDaemon): Api {
  return restNow(d, '/v1');
}

/**
 * The executions of a workflow once `done` holds for all of `ids`: read again on each run event
 * of the daemon running now (a run that gets there says so with a step or an end event).
 */
function waitForRuns(
  d: TestDaemon,
  api: Api,
  workflowId: string,
  ids: string[],
  done: (execution: any) => boolean,
  timeoutMs: number,
): Promise<Map<string, any>> {
  const pendingIn = (byId: Map<string, any>) =>
    ids.filter((id) => !byId.has(id) || !done(byId.get(id)));
  return readUntil(
    running(d),
    async () => new Map((await allExecutions(api, workflowId)).map((e) => [e.execution_id, e])),
    (byId) => pendingIn(byId).length === 0,
    (event) => ids.includes(String(event.data.execution_id)),
    {
      filter: { types: ['workflow.execution.*'] },
      timeoutMs,
      what: `runs of ${workflowId} getting there`,
    },
  );
}

/** The runs once all of them have ended (a minute at most). */
function finishedRuns(d: TestDaemon, api: Api, workflowId: string, ids: string[]) {
  return waitForRuns(d, api, workflowId, ids, (e) => TERMINAL.includes(e.status), HANG_TIMEOUT_MS);
}

/** How many workflow.execution.completed events each run has. */
async function completedPerRun(api: Api): Promise<Map<string, number>> {
  const perRun = new Map<string, number>();
  for (const event of await allEvents(api, 'workflow.execution.completed'))
    perRun.set(event.data.execution_id, (perRun.get(event.data.execution_id) ?? 0) + 1);
  return perRun;
}

/** prepare -> check -> [pause ->] notify; without a wait when waitSeconds is undefined. */
function workflowBody(agentId: string, receiver: Receiver, waitSeconds?: number) {
  const afterCheck = waitSeconds === undefined ? 'notify' : 'pause';
  return {
    name: 'Durable',
    status: 'active',
    // Two attempts: a call in flight at a kill counts as one (test/e2e/attempts-before-sent.test.ts).
    settings: { timeout_seconds: 86_400, retry_policy: { max_attempts: 2 } },
    steps: [
      {
        id: 'prepare',
        name: 'Prepare',
        type: 'agent_action',
        agent_id: agentId,
        config: { action: 'prepare', input_mapping: { text: 'order {{trigger.payload.n}}' } },
        next_step_id: 'check',
      },
      {
        id: 'check',
        name: 'Check',
        type: 'condition',
        config: { condition: 'trigger.payload.n >= 0', if_true: afterCheck, if_false: afterCheck },
      },
      ...(waitSeconds === undefined
        ? []
        : [
            {
              id: 'pause',
              name: 'Pause',
              type: 'wait',
              config: { duration_seconds: waitSeconds, reason: 'durability' },
              next_step_id: 'notify',
            },
          ]),
      {
        id: 'notify',
        name: 'Notify',
        type: 'webhook',
        config: {
          url: receiver.url,
          method: 'POST',
          body: { run: '{{workflow.execution_id}}', n: '{{trigger.payload.n}}' },
        },
      },
    ],
  };
}

const STEPS = ['prepare', 'check', 'pause', 'notify'];

test('50 runs parked in a wait survive SIGKILL and finish exactly once each', async (t) => {
  const { d, api, receiver, agent } = await durable(t);
  const workflowId = await createWorkflow(api, workflowBody(agent.id, receiver, 3600));

  const RUNS = 50;
  const ids = await Promise.all(
    Array.from({ length: RUNS }, async (_, n) => {
      const started = await api('POST', `/workflows/${workflowId}/execute`, { input: { n } });
      if (started.status !== 202) throw new Error(`execute: ${JSON.stringify(started.body)}`);
      return started.body.data.execution_id as string;
    }),
  );
  t.is(new Set(ids).size, RUNS);
  // Parked: the wait step is the current one and the steps before it are done.
  await waitForRuns(
    d,
    api,
    workflowId,
    ids,
    (e) => e.status === 'running' && e.current_step === 'pause',
    30_000,
  );
  t.is(receiver.requests.length, 0, 'nobody reached the webhook step before the wait ended');

  const before = running(d);
  await killHard(before.pid);
  const after = await restart(d);
  t.not(after.pid, before.pid);

  // Still parked after the restart: the wait is on the daemon clock, which has not moved.
  const parked = await waitForRuns(d, api, workflowId, ids, () => true, HANG_TIMEOUT_MS);
  t.true([...parked.values()].every((e) => e.status === 'running'));

  // The clock over the control channel, as `svc clock advance` moves it (tested in cli-operator).
  await d.advance('2h');
  const finished = await finishedRuns(d, api, workflowId, ids);

  for (const id of ids) {
    const summary = finished.get(id);
    t.is(summary.status, 'completed', `run ${id}`);
    const execution = (await api('GET', `/workflows/${workflowId}/executions/${id}`)).body.data;
    t.deepEqual(
      execution.step_results.map((step: { step_id: string }) => step.step_id),
      STEPS,
      `each step exactly once in ${id}`,
    );
    t.true(execution.step_results.every((step: { status: string }) => step.status === 'completed'));
  }

  // The receiver: one call per run, and none for anything else. A late duplicate would be sent
  // before the call of a run started now, all finished: that run's call is the marker.
  await receiver.waitFor((requests) => requests.length >= RUNS);
  const marker = await api('POST', `/workflows/${workflowId}/execute`, { input: { n: -1 } });
  t.is(marker.status, 202);
  const markerId = marker.body.data.execution_id as string;
  await waitForRuns(
    d,
    api,
    workflowId,
    [markerId],
    (e) => e.current_step === 'pause',
    HANG_TIMEOUT_MS,
  );
  await control(running(d), 'clock.advance', { ms: 2 * 3_600_000 });
  await receiver.waitFor((requests) => requests.some((r) => r.json().run === markerId));
  t.is(
    receiver.requests.findIndex((r) => r.json().run === markerId),
    RUNS,
    'the marker run called after all the others',
  );
  const calls = new Map<string, number>();
  for (const request of receiver.requests) {
    const run = request.json().run as string;
    if (run === markerId) continue;
    calls.set(run, (calls.get(run) ?? 0) + 1);
  }
  t.is(receiver.requests.length, RUNS + 1, 'one webhook call per run (and the marker)');
  t.true(ids.every((id) => calls.get(id) === 1));

  const perRun = await completedPerRun(api);
  t.true(
    ids.every((id) => perRun.get(id) === 1),
    `exactly one completed event per run (${[...perRun.values()].filter((n) => n !== 1).length} wrong)`,
  );
  const failed = await allEvents(api, 'workflow.execution.failed');
  t.is(failed.length, 0);
});

test('every run acknowledged before a SIGKILL mid-burst finishes after the restart', async (t) => {
  const { d, api, receiver, agent } = await durable(t);
  // No wait here: runs go straight through, so the kill lands while steps are in flight.
  const workflowId = await createWorkflow(api, workflowBody(agent.id, receiver));

  const TOTAL = 300;
  const KILL_AFTER = 80;
  const acknowledged: string[] = [];
  let refused = 0;
  let killed: Promise<void> | undefined;
  const pid = running(d).pid;
  await Promise.all(
    Array.from({ length: TOTAL }, async (_, n) => {
      try {
        const started = await api('POST', `/workflows/${workflowId}/execute`, { input: { n } });
        if (started.status !== 202) throw new Error(String(started.status));
        acknowledged.push(started.body.data.execution_id);
        if (acknowledged.length >= KILL_AFTER) killed ??= killHard(pid);
      } catch {
        refused += 1;
      }
    }),
  );
  await (killed ??= killHard(pid));
  t.log(`sent ${TOTAL}, acknowledged ${acknowledged.length}, refused ${refused}`);
  t.true(acknowledged.length >= KILL_AFTER);

  await restart(d);
  const finished = await finishedRuns(d, api, workflowId, acknowledged);
  const notCompleted = acknowledged.filter((id) => finished.get(id).status !== 'completed');
  t.deepEqual(notCompleted, [], 'every acknowledged run completed');

  // Finished steps never ran twice; only the one in flight at the kill may have.
  for (const id of acknowledged) {
    const execution = (await api('GET', `/workflows/${workflowId}/executions/${id}`)).body.data;
    const completedSteps = execution.step_results
      .filter((step: { status: string }) => step.status === 'completed')
      .map((step: { step_id: string }) => step.step_id);
    t.deepEqual(completedSteps, ['prepare', 'check', 'notify'], `run ${id}`);
  }
  const seen = new Set(receiver.requests.map((request) => request.json().run));
  t.true(
    acknowledged.every((id) => seen.has(id)),
    'every acknowledged run called the receiver',
  );
  const perRun = await completedPerRun(api);
  t.true(
    acknowledged.every((id) => perRun.get(id) === 1),
    'one completed event per run',
  );
});
