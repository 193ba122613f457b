// Runs are durable (issue 7, decisions §8): a run's state is stored as each step ends, timers only
// wake work up. So 50 runs parked in a `wait` step survive a SIGKILL of the daemon: once it is
// restarted and the clock moved past the wait, each finishes with every step recorded exactly
// once, the final webhook step's receiver called once per run, and exactly one
// workflow.execution.completed event per run. And when the daemon is SIGKILLed in the middle of a
// burst of runs, every run it acknowledged still finishes after the restart (a step in flight
// at the kill may run again; a finished one never does).
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import {
  activeAgent,
  allEvents,
  allExecutions,
  createWorkflow,
  type Api,
  TERMINAL,
} from '../helpers/workflows.js';

const daemons: TestDaemon[] = [];

test.after.always(async () => {
  await Promise.all(daemons.map((d) => d.stop()));
});

interface Running {
  url: string;
  pid: number;
  token: string;
}

/** Where the daemon of this data dir runs now, and its control token (both change on restart). */
function running(d: TestDaemon): Running {
  const runtime = JSON.parse(readFileSync(join(d.dataDir, 'daemon.json'), 'utf8')) as {
    url: string;
    pid: number;
  };
  return {
    url: runtime.url,
    pid: runtime.pid,
    token: readFileSync(join(d.dataDir, 'control-token'), 'utf8').trim(),
  };
}

/** REST with the operator credential of whichever daemon runs now (it is new at each start). */
function restApi(d: TestDaemon): Api {
  let cached: { at: string; key: string; ws: string } | undefined;
  return async (method, path, body) => {
    const at = running(d);
    if (!cached || cached.at !== at.url) {
      const response = await fetch(`${at.url}/trpc/auth.operatorCredential`, {
        headers: { authorization: `Bearer ${at.token}` },
      });
      const answer = (await response.json()) as {
        result: { data: { key: string; default_workspace_id: string } };
      };
      cached = {
        at: at.url,
        key: answer.result.data.key,
        ws: answer.result.data.default_workspace_id,
      };
    }
    const response = await fetch(`${at.url}/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${cached.key}`,
        'x-tenant-id': cached.ws,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
}

async function restart(d: TestDaemon): Promise<Running> {
  const started = await runCli(['daemon', 'start', '--port', '0', '--json'], { env: d.env });
  if (started.code !== 0) {
    throw new Error(`restart failed (exit ${started.code}): ${started.stderr}${started.stdout}`);
  }
  return running(d);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function killHard(pid: number): Promise<void> {
  process.kill(pid, 'SIGKILL');
  const deadline = Date.now() + 5_000;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  if (isAlive(pid)) throw new Error(`daemon ${pid} survived SIGKILL`);
}

/** Polls the executions list until `done` holds for all of `ids` (or the time runs out). */
async function waitForRuns(
  api: Api,
  workflowId: string,
  ids: string[],
  done: (execution: any) => boolean,
  timeoutMs: number,
): Promise<Map<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const byId = new Map((await allExecutions(api, workflowId)).map((e) => [e.execution_id, e]));
    const pending = ids.filter((id) => !byId.has(id) || !done(byId.get(id)));
    if (pending.length === 0) return byId;
    if (Date.now() > deadline) {
      throw new Error(
        `${pending.length} of ${ids.length} run(s) not there yet, e.g. ${JSON.stringify(byId.get(pending[0]!) ?? pending[0])}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** prepare -> check -> [pause ->] notify; without a wait when waitSeconds is undefined. */
function workflowBody(agentId: string, receiver: Receiver, waitSeconds?: number) {
  const afterCheck = waitSeconds === undefined ? 'notify' : 'pause';
  return {
    name: 'Durable',
    status: 'active',
    settings: { timeout_seconds: 86_400 },
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
  const d = await startDaemon();
  daemons.push(d);
  const api = restApi(d);
  const receiver = await startReceiver(t);
  const agent = await activeAgent(api);
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
  const parked = await waitForRuns(api, workflowId, ids, () => true, 10_000);
  t.true([...parked.values()].every((e) => e.status === 'running'));

  const advanced = await d.cli(['clock', 'advance', '2h', '--json']);
  t.is(advanced.code, 0, advanced.stderr);
  const finished = await waitForRuns(
    api,
    workflowId,
    ids,
    (e) => TERMINAL.includes(e.status),
    60_000,
  );

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

  // The receiver: one call per run, and none for anything else. Give late duplicates a chance.
  await receiver.waitFor((requests) => requests.length >= RUNS, 10_000);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const calls = new Map<string, number>();
  for (const request of receiver.requests) {
    const run = request.json().run as string;
    calls.set(run, (calls.get(run) ?? 0) + 1);
  }
  t.is(receiver.requests.length, RUNS, 'one webhook call per run');
  t.true(ids.every((id) => calls.get(id) === 1));

  const completed = await allEvents(api, 'workflow.execution.completed');
  const perRun = new Map<string, number>();
  for (const event of completed)
    perRun.set(event.data.execution_id, (perRun.get(event.data.execution_id) ?? 0) + 1);
  t.true(
    ids.every((id) => perRun.get(id) === 1),
    `exactly one completed event per run (${[...perRun.values()].filter((n) => n !== 1).length} wrong)`,
  );
  const failed = await allEvents(api, 'workflow.execution.failed');
  t.is(failed.length, 0);
});

test('every run acknowledged before a SIGKILL mid-burst finishes after the restart', async (t) => {
  const d = await startDaemon();
  daemons.push(d);
  const api = restApi(d);
  const receiver = await startReceiver(t);
  const agent = await activeAgent(api);
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
  const finished = await waitForRuns(
    api,
    workflowId,
    acknowledged,
    (e) => TERMINAL.includes(e.status),
    60_000,
  );
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
  const completedEvents = await allEvents(api, 'workflow.execution.completed');
  const perRun = new Map<string, number>();
  for (const event of completedEvents)
    perRun.set(event.data.execution_id, (perRun.get(event.data.execution_id) ?? 0) + 1);
  t.true(
    acknowledged.every((id) => perRun.get(id) === 1),
    'one completed event per run',
  );
});
