// Fault injection (svc faults, issue 18): a rule makes deliveries, webhook steps and agents fail
// as real failures would (same retry schedule, same events), marked with the rule's id in the
// delivery attempt, the step result and the daemon log. Rules are per workspace, stored (they
// survive a restart), refused in production, and seeded rules repeat their outcomes exactly.
import test from 'ava';
import { assertExit, startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { control } from '../helpers/api.js';
import { readLog, waitForLog } from '../helpers/logs.js';
import { restart, running } from '../helpers/processes.js';
import {
  answerStep,
  apiFor,
  createWorkflow,
  getExecution,
  waitForExecution,
  type Api,
} from '../helpers/workflows.js';

let d: TestDaemon;
let api: Api;
let ws: string;

test.before(async () => {
  d = await startDaemon();
  ws = await d.createWorkspace('faults');
  api = await apiFor(d, ws);
});

test.after.always(async () => {
  await d?.stop();
});

async function addFault(...args: string[]): Promise<any> {
  const result = await d.cli(['faults', 'add', ...args, '--workspace', ws, '--json']);
  if (result.code !== 0) throw new Error(`faults add: ${result.stderr}`);
  return result.json();
}

/**
 * The workspace's rules, removing one, removing all: over the control channel of the daemon
 * running now (tests restart it, which moves it), as `svc faults list|remove|clear` do (each
 * command is tested through the CLI once in this file: list and remove in the first test,
 * clear in 'rules are stored').
 */
function listFaults(): Promise<any[]> {
  return control(running(d), 'faults.list', { workspace_id: ws }, 'query');
}
async function removeFault(id: string): Promise<void> {
  await control(running(d), 'faults.remove', { id, workspace_id: ws });
}
async function clearFaults(): Promise<void> {
  await control(running(d), 'faults.clear', { workspace_id: ws });
}

/** A rule on the step `charge` of webhookFlow's workflow, for the given attempts. */
function chargeFault(flow: string, attempts: string, ...what: string[]): Promise<any> {
  return addFault('--workflow', flow, '--step', 'charge', '--attempts', attempts, ...what);
}

/** Starts a run of the workflow without waiting; its execution id. */
async function startRun(flow: string): Promise<string> {
  const started = await api('POST', `/workflows/${flow}/execute`, {
    input: { n: 1 },
    wait_for_completion: false,
  });
  return started.body.data.execution_id as string;
}

async function createHook(receiver: Receiver, fields: Record<string, unknown> = {}) {
  const answer = await api('POST', '/webhooks', {
    url: receiver.url,
    events: ['agent.created'],
    ...fields,
  });
  if (answer.status !== 201) throw new Error(`create webhook: ${JSON.stringify(answer.body)}`);
  return answer.body.data.id as string;
}

async function deliveryOf(hookId: string): Promise<any> {
  const list = await api('GET', `/webhooks/${hookId}/deliveries`);
  const [first] = list.body.data as any[];
  const detail = await api('GET', `/webhooks/${hookId}/deliveries/${first.id}`);
  return detail.body.data;
}

function webhookFlow(receiver: Receiver, maxAttempts: number) {
  return createWorkflow(api, {
    name: 'Charge',
    status: 'active',
    settings: { retry_policy: { max_attempts: maxAttempts, backoff_multiplier: 2 } },
    steps: [
      {
        id: 'charge',
        name: 'Charge',
        type: 'webhook',
        config: { url: receiver.url, method: 'POST', body: { n: '{{trigger.payload.n}}' } },
      },
    ],
  });
}

test.serial(
  'a webhook answering 503 on attempts 1-2 is delivered on attempt 3, at the spec retry times',
  async (t) => {
    const receiver = await startReceiver(t);
    const hook = await createHook(receiver);
    const fault = await addFault('--webhook', hook, '--attempts', '1-2', '--status', '503');
    t.regex(fault.id, /^flt_/);
    const event = await control<{ id: string }>(d, 'events.trigger', {
      type: 'agent.created',
      workspace_id: ws,
    });
    await d.advance(0);
    let delivery = await deliveryOf(hook);
    t.like(delivery, { status: 'pending', attempts: 1, http_status: 503 });
    await d.advance('1m');
    delivery = await deliveryOf(hook);
    t.like(delivery, { status: 'pending', attempts: 2, http_status: 503 });
    t.is(receiver.requests.length, 0, 'injected attempts never reach the receiver');
    await d.advance('5m');
    const [received] = await receiver.waitForCount(1);
    t.is(received!.header('x-svc-event-id'), event.id);
    delivery = await deliveryOf(hook);
    t.like(delivery, { status: 'delivered', attempts: 3, http_status: 200 });
    const history = delivery.attempts_history as any[];
    t.deepEqual(
      history.map((a) => [a.attempt, a.http_status, a.injected_fault]),
      [
        [1, 503, fault.id],
        [2, 503, fault.id],
        [3, 200, null],
      ],
    );
    // The spec's schedule on the daemon clock: 1 min after the first attempt, then 5 min. Never
    // earlier; later by how late the machine ran the timer (the clock also runs in real time),
    // so the upper bound is the schedule's next step, which tells the steps apart at any load.
    const at = (i: number) => Date.parse(history[i].attempted_at);
    const first = at(1) - at(0);
    const second = at(2) - at(1);
    t.true(first >= 60_000 && first < 300_000, String(first));
    t.true(second >= 300_000 && second < 900_000, String(second));
    t.true(await waitForLog(d.dataDir, (log) => log.includes(`injected fault ${fault.id}`)));
    const listed = (await d.cli(['faults', 'list', '--workspace', ws, '--json'])).json().data;
    t.like(
      listed.find((f: any) => f.id === fault.id),
      { seen: 2, hits: 2 },
    );
    assertExit(t, await d.cli(['faults', 'remove', fault.id, '--workspace', ws]), 0);
  },
);

test.serial(
  'a step with an injected timeout retries per retry_policy; its result names the fault',
  async (t) => {
    const receiver = await startReceiver(t);
    const flow = await webhookFlow(receiver, 3);
    const fault = await chargeFault(flow, '1', '--timeout');
    const id = await startRun(flow);
    await waitForExecution(api, flow, id, (e) =>
      e.step_results.some((s: any) => s.status === 'retrying'),
    );
    await d.advance('1s');
    const done = await waitForExecution(api, flow, id, (e) => e.status !== 'running');
    t.is(done.status, 'completed');
    t.like(done.step_results[0], {
      step_id: 'charge',
      attempt: 1,
      status: 'failed',
      injected_fault: fault.id,
      error: { code: 'external_api_error' },
    });
    t.regex(done.step_results[0].error.message, /No answer within 30 s/);
    t.like(done.step_results[1], { attempt: 2, status: 'completed', injected_fault: null });
    t.is(receiver.requests.length, 1, 'only the second attempt reached the receiver');
    await clearFaults();
  },
);

test.serial('--latency holds a webhook step until the daemon clock has moved on', async (t) => {
  const receiver = await startReceiver(t);
  const flow = await webhookFlow(receiver, 1);
  const fault = await addFault('--workflow', flow, '--step', 'charge', '--latency', '10m');
  const started = await api('POST', `/workflows/${flow}/execute`, {
    input: { n: 2 },
    wait_for_completion: false,
  });
  const id = started.body.data.execution_id as string;
  await d.advance(0);
  t.is((await getExecution(api, flow, id)).status, 'running');
  t.is(receiver.requests.length, 0, 'held before the call');
  await d.advance('10m');
  const done = await waitForExecution(api, flow, id, (e) => e.status !== 'running');
  t.is(done.status, 'completed');
  t.like(done.step_results[0], { status: 'completed', injected_fault: fault.id });
  t.true(done.step_results[0].duration_ms >= 600_000, String(done.step_results[0].duration_ms));
  t.is(receiver.requests.length, 1, 'then the real call');
  await clearFaults();
});

test.serial('a seeded 30% rule gives the same outcomes over two identical runs', async (t) => {
  const receiver = await startReceiver(t);
  const flow = await webhookFlow(receiver, 1);
  const outcomes = async () => {
    const fault = await addFault(
      '--url-prefix',
      receiver.origin,
      '--rate',
      '0.3',
      '--seed',
      '42',
      '--status',
      '500',
    );
    const statuses: string[] = [];
    for (let n = 0; n < 12; n++) {
      const run = await api('POST', `/workflows/${flow}/execute`, {
        input: { n },
        wait_for_completion: true,
      });
      statuses.push(run.body.data?.status ?? run.body.error?.code);
    }
    await removeFault(fault.id);
    return statuses;
  };
  const first = await outcomes();
  const second = await outcomes();
  t.deepEqual(first, second);
  t.true(first.includes('step_failed') && first.includes('completed'), first.join());
});

test.serial(
  'an agent rule fails executions with the code, then retires after --times',
  async (t) => {
    const created = await api('POST', '/agents', {
      name: 'Support',
      ontology: 'retail-v1',
      type: 'customer-service',
      autonomy_level: 'L3',
    });
    const agent = created.body.data.id as string;
    await api('POST', '/agents/deploy', { agent_id: agent });
    const fault = await addFault('--agent', agent, '--times', '1', '--fail', 'external_api_error');
    const execute = () =>
      api('POST', `/agents/${agent}/execute`, {
        input: 'Where is my order?',
        wait_for_completion: true,
      });
    const failed = await execute();
    t.is(failed.status, 502);
    t.like(failed.body.error, { code: 'external_api_error', injected_fault: fault.id });
    const ok = await execute();
    t.is(ok.status, 200, JSON.stringify(ok.body));
    const listed = await listFaults();
    t.like(
      listed.find((f: any) => f.id === fault.id),
      { hits: 1, retired: true },
    );

    // In a workflow: the agent step's first attempt fails with the agent's fault; a --fail rule
    // on the step fails its second attempt (whatever the step type); the third completes.
    const flow = await createWorkflow(api, {
      name: 'Agent flow',
      status: 'active',
      settings: { retry_policy: { max_attempts: 3, backoff_multiplier: 2 } },
      steps: answerStep(agent),
    });
    const agentFault = await addFault(
      '--agent',
      agent,
      '--attempts',
      '1',
      '--fail',
      'external_api_error',
    );
    const stepFault = await addFault(
      '--workflow',
      flow,
      '--step',
      'answer',
      '--attempts',
      '2',
      '--fail',
      'invalid_parameter',
    );
    const started = await api('POST', `/workflows/${flow}/execute`, {
      input: { q: 'Where is my order?' },
      wait_for_completion: false,
    });
    const id = started.body.data.execution_id as string;
    for (const [made, delay] of [
      [1, '1s'],
      [2, '2s'],
    ] as const) {
      await waitForExecution(
        api,
        flow,
        id,
        (e) => e.step_results.filter((s: any) => s.status === 'failed').length >= made,
      );
      await d.advance(delay);
    }
    const done = await waitForExecution(api, flow, id, (e) => e.status !== 'running');
    t.is(done.status, 'completed');
    t.deepEqual(
      done.step_results.map((s: any) => [
        s.attempt,
        s.status,
        s.error?.code ?? null,
        s.injected_fault,
      ]),
      [
        [1, 'failed', 'external_api_error', agentFault.id],
        [2, 'failed', 'invalid_parameter', stepFault.id],
        [3, 'completed', null, null],
      ],
    );
    await clearFaults();
  },
);

test.serial(
  'the step codes of the table are injected exactly: secret_not_found, then invalid_expression',
  async (t) => {
    const receiver = await startReceiver(t);
    const flow = await webhookFlow(receiver, 2);
    const first = await chargeFault(flow, '1', '--fail', 'secret_not_found');
    const second = await chargeFault(flow, '2', '--fail', 'invalid_expression');
    t.is(first.what.fail, 'secret_not_found');
    const id = await startRun(flow);
    await waitForExecution(api, flow, id, (e) =>
      e.step_results.some((s: any) => s.status === 'failed'),
    );
    await d.advance('1s');
    const done = await waitForExecution(api, flow, id, (e) => e.status !== 'running');
    t.is(done.status, 'failed');
    t.deepEqual(
      done.step_results.map((s: any) => [s.attempt, s.status, s.error?.code, s.injected_fault]),
      [
        [1, 'failed', 'secret_not_found', first.id],
        [2, 'failed', 'invalid_expression', second.id],
      ],
    );
    t.like(done.error, { code: 'invalid_expression', details: { step_id: 'charge' } });
    t.is(receiver.requests.length, 0, 'a failed step never made its call');
    await clearFaults();
  },
);

test.serial('bad rules are usage errors that say what to fix', async (t) => {
  const none = await d.cli(['faults', 'add', '--status', '503', '--workspace', ws]);
  assertExit(t, none, 1);
  t.regex(none.stderr, /exactly one of --webhook/);
  const noWhat = await d.cli(['faults', 'add', '--url-prefix', 'http://x/', '--workspace', ws]);
  assertExit(t, noWhat, 1);
  t.regex(noWhat.stderr, /Say what to inject/);
  const attempts = await d.cli(['faults', 'add', '--attempts', '3-1', '--reset']);
  assertExit(t, attempts, 2);
});

/** Past this a call that should answer is taken as never answering (it only guards a hang). */
const HANG_MS = 60_000;

/** How many graceful stops and forced exits the daemon log holds. */
function stopLines(log: string): { stopped: number; forced: number } {
  const count = (text: string) => log.split(text).length - 1;
  return {
    stopped: count('"msg":"svc daemon stopped"'),
    forced: count('forced to exit before its graceful stop ended'),
  };
}

// It restarts the daemon, which then runs on another port: only CLI calls after it.
test.serial(
  'a delivery held by --latency 24h holds neither a clock move nor a graceful stop',
  async (t) => {
    const receiver = await startReceiver(t);
    const hook = await createHook(receiver);
    const fault = await addFault('--url-prefix', receiver.url, '--latency', '24h');
    await control(d, 'events.trigger', { type: 'agent.created', workspace_id: ws });
    let started = Date.now();
    await d.advance('1m');
    const advanceMs = Date.now() - started;
    t.log(`svc clock advance 1m with a delivery held 24h: ${advanceMs} ms`);
    // The defect: the move waited for the held attempt and never returned. The bound only tells
    // that from an answer, so it is wide: a loaded machine took seconds for the call itself.
    t.true(advanceMs < HANG_MS, String(advanceMs));
    // The held attempt is on record (stored before its POST would leave), outcome unknown.
    t.like(await deliveryOf(hook), { status: 'pending', attempts: 1 });
    t.is(receiver.requests.length, 0, 'held before the call');

    const stopsBefore = stopLines(readLog(d.dataDir));
    started = Date.now();
    const stop = await d.cli(['daemon', 'stop']);
    const stopMs = Date.now() - started;
    t.log(`svc daemon stop with a delivery held: ${stopMs} ms`);
    assertExit(t, stop, 0);
    // Graceful, not the forced exit that ends a drain after 15 s: the daemon logged the end of
    // its graceful stop and no forced exit (the log, not the time taken, which a loaded
    // machine stretches; the bound only catches a stop that never returns).
    t.true(
      await waitForLog(d.dataDir, (log) => stopLines(log).stopped > stopsBefore.stopped),
      'the daemon logged its graceful stop',
    );
    t.is(stopLines(readLog(d.dataDir)).forced, stopsBefore.forced, 'no forced exit');
    t.true(stopMs < HANG_MS, String(stopMs));

    // The held attempt never got an answer: after the restart it counts (unknown, as a call in
    // flight at a stop does), and attempt 2 is made, held again, and goes out once the daemon
    // clock has passed the latency.
    // (The daemon now runs on another port: the checks go through the CLI, which finds it.)
    await restart(d);
    await d.advance('24h');
    await receiver.waitForCount(1);
    const listed = await d.cli(['webhooks', 'deliveries', hook, '--workspace', ws, '--json']);
    t.like(listed.json().data[0], { status: 'delivered', attempts: 2 });
    const rules = await listFaults();
    t.true(rules.find((f: any) => f.id === fault.id).hits >= 1);
    await clearFaults();
  },
);

test.serial('rules are stored: they survive a restart', async (t) => {
  const fault = await addFault('--url-prefix', 'http://127.0.0.1:9/', '--reset', '--times', '3');
  assertExit(t, await d.cli(['daemon', 'stop']), 0);
  await restart(d);
  const listed = (await d.cli(['faults', 'list', '--workspace', ws, '--json'])).json().data;
  t.true(listed.some((f: any) => f.id === fault.id && f.what.reset && f.when.times === 3));
  assertExit(t, await d.cli(['faults', 'clear', '--workspace', ws]), 0);
});

test('production refuses faults', async (t) => {
  const prod = await startDaemon({ args: ['--env', 'production'] });
  t.teardown(() => prod.stop());
  const result = await prod.cli(['faults', 'add', '--url-prefix', 'https://x.test/', '--reset']);
  assertExit(t, result, 1);
  t.regex(result.stderr, /only in the sandbox/);
});
