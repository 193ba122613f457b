// The workflow engine end to end through the REST API of a real daemon: every step type, the
// interpolation names, retries, on_error, error_handling continue, timeouts, approvals, cancel,
// secrets masking, events and durability across a restart. Time moves with `svc clock advance`.
import test, { type ExecutionContext } from 'ava';
import { startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { sharedDaemon } from '../helpers/setup.js';
import { startReceiver } from '../helpers/receiver.js';
import { watchEvents } from '../helpers/events.js';
import {
  afterRunEvents,
  stepStates,
  waitForExecution,
  type Api,
  waitStep,
} from '../helpers/workflows.js';

const daemon = sharedDaemon(test);
let key: string;

test.before(async () => {
  key = (await daemon.operator()).key;
});

type Answer = Awaited<ReturnType<TestDaemon['callJson']>>;

class Tenant {
  constructor(
    readonly d: TestDaemon,
    readonly key: string,
    readonly id: string,
  ) {}

  static async create(d: TestDaemon = daemon, k = key): Promise<Tenant> {
    return new Tenant(d, k, await d.createWorkspace('Engine'));
  }

  call(method: string, path: string, body?: unknown): Promise<Answer> {
    return this.d.callJson(method, path, body, { key: this.key, tenant: this.id });
  }

  async agent(fields: Record<string, unknown> = {}): Promise<string> {
    const created = await this.call('POST', '/v1/agents', {
      name: 'Worker',
      ontology: 'retail-v1',
      type: 'customer-service',
      autonomy_level: 'L3',
      ...fields,
    });
    if (created.status !== 201) throw new Error(`agent: ${created.text}`);
    const id = created.body.data.id as string;
    const deployed = await this.call('POST', '/v1/agents/deploy', { agent_id: id });
    if (deployed.status !== 200) throw new Error(`deploy: ${deployed.text}`);
    return id;
  }

  async stub(agentId: string, ...args: string[]): Promise<void> {
    const result = await this.d.cli(['agents', 'stub', 'add', agentId, ...args, '--json']);
    if (result.code !== 0) throw new Error(`stub: ${result.stderr}`);
  }

  async workflow(steps: unknown[], extra: Record<string, unknown> = {}): Promise<string> {
    const created = await this.call('POST', '/v1/workflows', { name: 'Flow', steps, ...extra });
    if (created.status !== 201) throw new Error(`workflow: ${created.text}`);
    return created.body.data.id as string;
  }

  run(workflowId: string, input: Record<string, unknown>, wait = true): Promise<Answer> {
    return this.call('POST', `/v1/workflows/${workflowId}/execute`, {
      input,
      wait_for_completion: wait,
    });
  }

  async execution(workflowId: string, executionId: string): Promise<any> {
    const answer = await this.call('GET', `/v1/workflows/${workflowId}/executions/${executionId}`);
    if (answer.status !== 200) throw new Error(`execution: ${answer.text}`);
    return answer.body.data;
  }

  /** The run once it has ended (completed, failed or timed out: each says so with an event). */
  ended(workflowId: string, executionId: string): Promise<any> {
    return afterRunEvents(
      this.d,
      () => this.execution(workflowId, executionId),
      (e) => e.status !== 'running' && e.status !== 'awaiting_approval',
    );
  }

  /** The run once a step of it is in `status` (waiting, retrying: no event says so, it polls). */
  stepIn(workflowId: string, executionId: string, status: string): Promise<any> {
    const api: Api = (method, path, body) => this.call(method, `/v1${path}`, body);
    return waitForExecution(api, workflowId, executionId, (e) =>
      e.step_results.some((s: any) => s.status === status),
    );
  }

  async events(executionId: string): Promise<any[]> {
    const answer = await this.call('GET', '/v1/events?type=workflow.execution.*&limit=100');
    return (answer.body.data as any[])
      .filter((event) => event.data.execution_id === executionId)
      .reverse();
  }

  async secret(name: string, value: string): Promise<void> {
    const result = await this.d.cli([
      'secrets',
      'set',
      name,
      value,
      '--workspace',
      this.id,
      '--json',
    ]);
    if (result.code !== 0) {
      // The CLI command may not be there yet: the control procedure is the contract.
      const token = (await import('node:fs'))
        .readFileSync(`${this.d.dataDir}/control-token`, 'utf8')
        .trim();
      const response = await fetch(`${this.d.url}/trpc/secrets.set`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ workspace_id: this.id, name, value }),
      });
      if (!response.ok) throw new Error(`secrets.set: ${await response.text()}`);
    }
  }
}

/**
 * Moves the daemon clock and returns once what fell due has run: the control call `svc clock
 * advance` makes (clock.advance), without a CLI process (the command is tested in cli-operator).
 */
async function advance(d: TestDaemon, duration: string): Promise<void> {
  await d.advance(duration);
}

function assertError(t: ExecutionContext, answer: Answer, status: number, code: string) {
  t.is(answer.status, status, answer.text);
  t.is(answer.body?.error?.code, code, answer.text);
  return answer.body?.error ?? {};
}

// --- serial: tests that move the clock ----------------------------------------------------------

test.serial('a wait step parks the run on the daemon clock until svc clock advance', async (t) => {
  const w = await Tenant.create();
  const flow = await w.workflow(
    [
      waitStep('pause', 3600, 'after'),
      {
        id: 'after',
        name: 'After',
        type: 'condition',
        config: { condition: 'trigger.payload.n > 1', if_true: 'end' },
      },
      { id: 'end', name: 'End', type: 'wait', config: { duration_seconds: 0, reason: 'done' } },
    ],
    { settings: { timeout_seconds: 7200 } },
  );
  const started = await w.run(flow, { n: 2 }, false);
  t.is(started.status, 202, started.text);
  t.deepEqual(Object.keys(started.body.data).sort(), [
    'created_at',
    'execution_id',
    'status',
    'workflow_id',
  ]);
  const id = started.body.data.execution_id as string;
  const parked = await w.stepIn(flow, id, 'waiting');
  t.is(parked.status, 'running');
  t.is(parked.current_step, 'pause');
  t.like(parked.step_results[0], { step_id: 'pause', status: 'waiting', duration_ms: null });

  await advance(daemon, '59m');
  t.is((await w.execution(flow, id)).status, 'running');
  await advance(daemon, '2m');
  const done = await w.ended(flow, id);
  t.is(done.status, 'completed');
  t.deepEqual(stepStates(done), [
    ['pause', 'completed'],
    ['after', 'completed'],
    ['end', 'completed'],
  ]);
  t.like(done.step_results[0].result, { waited_seconds: 3600 });
  t.true(done.step_results[0].duration_ms >= 3_600_000);
  t.deepEqual(done.result, { waited_seconds: 0, reason: 'done' });
  t.is(done.steps_completed, 3);
  t.is(done.steps_total, 3);
});

test.serial(
  'settings.timeout_seconds ends a parked run as timeout; wait=true answers 408',
  async (t) => {
    const w = await Tenant.create();
    const flow = await w.workflow(
      // Each wait fits in the timeout (a longer one is refused); the second ends past it.
      [waitStep('first', 20, 'long'), waitStep('long', 20)],
      { settings: { timeout_seconds: 30 } },
    );
    // The clock moves once the run has started (its deadline is set then).
    const started = await watchEvents(daemon, { types: ['workflow.execution.started'] }, t);
    const waiting = w.run(flow, {});
    await started.waitFor((e) => e.workspace_id === w.id, { what: 'start of the run' });
    await advance(daemon, '31s');
    const answer = await waiting;
    const error = assertError(t, answer, 408, 'workflow_timeout');
    const execution = await w.execution(flow, error.execution_id);
    t.is(execution.status, 'timeout');
    t.is(execution.error.code, 'workflow_timeout');
    const failed = (await w.events(error.execution_id)).filter(
      (e) => e.type === 'workflow.execution.failed',
    );
    t.is(failed.length, 1);
    t.is(failed[0].data.status, 'timeout');
  },
);

test.serial(
  "one clock advance past a wait and the deadline: the run goes on at the wait's end and completes; a wait ending after the deadline times out",
  async (t) => {
    const w = await Tenant.create();
    const agent = await w.agent();
    const steps = (seconds: number) => [
      waitStep('pause', seconds, 'answer'),
      {
        id: 'answer',
        name: 'Answer',
        type: 'agent_action',
        agent_id: agent,
        config: { action: 'reply' },
      },
    ];
    const early = await w.workflow(steps(1800), { settings: { timeout_seconds: 3600 } });
    // A wait as long as the timeout is refused: the late one waits 30 min, then 50 min more.
    const late = await w.workflow([waitStep('warm_up', 1800, 'pause'), ...steps(3000)], {
      settings: { timeout_seconds: 3600 },
    });
    const first = (await w.run(early, {}, false)).body.data.execution_id as string;
    const second = (await w.run(late, {}, false)).body.data.execution_id as string;
    await w.stepIn(early, first, 'waiting');
    await w.stepIn(late, second, 'waiting');
    // The move answers once everything that fell due on the way, and what it started, is done.
    await advance(daemon, '2h');
    const done = await w.execution(early, first);
    t.is(done.status, 'completed');
    t.deepEqual(stepStates(done), [
      ['pause', 'completed'],
      ['answer', 'completed'],
    ]);
    const timedOut = await w.execution(late, second);
    t.is(timedOut.status, 'timeout');
    t.is(timedOut.failed_step, 'pause');
  },
);

test.serial(
  'an agent step whose stub takes 20 s on the daemon clock: the run waits for it; one advance past the delay, the 30 s execution timeout and a wait finishes the run',
  async (t) => {
    const w = await Tenant.create();
    const agent = await w.agent();
    await w.stub(agent, '--match', 'slow', '--delay', '20s');
    const flow = await w.workflow([
      {
        id: 'think',
        name: 'Think',
        type: 'agent_action',
        agent_id: agent,
        config: { action: 'slow' },
        next_step_id: 'after',
      },
      waitStep('after', 60),
    ]);
    const id = (await w.run(flow, {}, false)).body.data.execution_id as string;
    await advance(daemon, '10s');
    t.is((await w.execution(flow, id)).status, 'running');
    // Past the stub's delay (20 s), the agent's execution timeout (30 s) and the wait after it.
    await advance(daemon, '2m');
    const done = await w.execution(flow, id);
    t.is(done.status, 'completed');
    t.deepEqual(stepStates(done), [
      ['think', 'completed'],
      ['after', 'completed'],
    ]);
  },
);

test.serial('retry_policy retries a failed step after 1 s, then x multiplier', async (t) => {
  const w = await Tenant.create();
  const receiver = await startReceiver(t);
  receiver.failNext(2, 503);
  const flow = await w.workflow(
    [
      {
        id: 'call',
        name: 'Call',
        type: 'webhook',
        config: { url: receiver.url, method: 'POST', body: { a: 1 } },
      },
    ],
    { settings: { retry_policy: { max_attempts: 3, backoff_multiplier: 3 } } },
  );
  const started = await w.run(flow, {}, false);
  const id = started.body.data.execution_id as string;
  await receiver.waitForCount(1);
  const retrying = await w.stepIn(flow, id, 'retrying');
  t.like(retrying.step_results[0], { step_id: 'call', status: 'failed', attempt: 1 });
  await advance(daemon, '1s');
  await receiver.waitForCount(2);
  await advance(daemon, '3s');
  await receiver.waitForCount(3);
  const done = await w.ended(flow, id);
  t.is(done.status, 'completed');
  t.deepEqual(
    done.step_results.map((s: any) => [s.attempt, s.status]),
    [
      [1, 'failed'],
      [2, 'failed'],
      [3, 'completed'],
    ],
  );
  // Delays on the daemon clock: 1 s after the first attempt, then 3 s (x backoff_multiplier).
  const at = (i: number, field: string) => Date.parse(done.step_results[i][field]);
  const firstDelay = at(1, 'started_at') - at(0, 'completed_at');
  const secondDelay = at(2, 'started_at') - at(1, 'completed_at');
  t.true(firstDelay >= 1000 && firstDelay < 3000, String(firstDelay));
  t.true(secondDelay >= 3000, String(secondDelay));
});

test.serial('cancel stops a run in a wait and drops its timers; one end event', async (t) => {
  const w = await Tenant.create();
  const flow = await w.workflow([
    waitStep('pause', 60, 'after'),
    { id: 'after', name: 'After', type: 'wait', config: { duration_seconds: 0 } },
  ]);
  const status = async () =>
    (await daemon.cli(['daemon', 'status', '--json'])).json().pending_timers;
  const before = await status();
  const id = (await w.run(flow, {}, false)).body.data.execution_id as string;
  await w.stepIn(flow, id, 'waiting');
  t.true((await status()) > before);
  const cancelled = await w.call('POST', `/v1/workflows/${flow}/executions/${id}/cancel`);
  t.is(cancelled.status, 200, cancelled.text);
  t.is(cancelled.body.data.execution_id, id);
  t.is(cancelled.body.data.status, 'cancelled');
  t.truthy(cancelled.body.data.cancelled_at);
  t.is(await status(), before);
  await advance(daemon, '2m');
  const after = await w.execution(flow, id);
  t.is(after.status, 'cancelled');
  // The wait it was cancelled in stays, marked cancelled; the step after it never started.
  t.deepEqual(
    after.step_results.map((s: { step_id: string; status: string }) => [s.step_id, s.status]),
    [['pause', 'cancelled']],
  );
  // Its end is published (workflow.execution.failed, status cancelled), then nothing more.
  const events = await w.events(id);
  t.deepEqual(
    events.map((e) => e.type),
    ['workflow.execution.started', 'workflow.execution.failed'],
  );
  t.like(events[1]!.data, { status: 'cancelled', failed_step: 'pause' });
  assertError(
    t,
    await w.call('POST', `/v1/workflows/${flow}/executions/${id}/cancel`),
    409,
    'execution_not_cancellable',
  );
});

test.serial('runs are kept 30 days, then execution_not_found', async (t) => {
  const w = await Tenant.create();
  const flow = await w.workflow([
    { id: 'a', name: 'A', type: 'wait', config: { duration_seconds: 0 } },
  ]);
  const done = await w.run(flow, {});
  t.is(done.status, 200, done.text);
  await advance(daemon, '31d');
  assertError(
    t,
    await w.call('GET', `/v1/workflows/${flow}/executions/${done.body.data.execution_id}`),
    404,
    'execution_not_found',
  );
});

test.serial('a run parked in a wait survives a daemon restart and completes once', async (t) => {
  const own = await startDaemon();
  t.teardown(() => own.stop());
  const w = await Tenant.create(own, (await own.operator()).key);
  const receiver = await startReceiver(t);
  const flow = await w.workflow([
    waitStep('pause', 30, 'notify'),
    {
      id: 'notify',
      name: 'Notify',
      type: 'webhook',
      config: { url: receiver.url, body: { id: '{{workflow.execution_id}}' } },
    },
  ]);
  const id = (await w.run(flow, {}, false)).body.data.execution_id as string;
  await w.stepIn(flow, id, 'waiting');
  t.is((await own.cli(['daemon', 'stop'])).code, 0);
  // The same port, so the test's client still finds it.
  const port = new URL(own.url).port;
  t.is((await own.cli(['daemon', 'start', '--port', port, '--json'])).code, 0);
  const restarted = new Tenant(own, w.key, w.id);
  await advance(own, '31s');
  await receiver.waitForCount(1);
  const done = await restarted.ended(flow, id);
  t.is(done.status, 'completed');
  t.deepEqual(
    done.step_results.map((s: any) => s.step_id),
    ['pause', 'notify'],
  );
  t.is(receiver.requests[0]!.json().id, id);
  t.is(
    (await restarted.events(id)).filter((e) => e.type === 'workflow.execution.completed').length,
    1,
  );
});

// --- concurrent ----------------------------------------------------------------------------------

test('agent -> condition -> agent -> webhook -> agent: wait=true answers 200 with every step', async (t) => {
  const w = await Tenant.create();
  const receiver = await startReceiver(t);
  const classifier = await w.agent();
  await w.stub(
    classifier,
    '--match',
    'classify',
    '--result',
    '{"action":"route","output":"billing","confidence":0.9}',
  );
  const flow = await w.workflow([
    {
      id: 'classify',
      name: 'Classify',
      type: 'agent_action',
      agent_id: classifier,
      config: { action: 'classify', input_mapping: { text: '{{trigger.payload.text}}' } },
      next_step_id: 'check',
    },
    {
      id: 'check',
      name: 'Check',
      type: 'condition',
      config: {
        condition: 'trigger.payload.amount > 100 && classify.result.confidence >= 0.8',
        if_true: 'handle',
        if_false: 'notify',
      },
    },
    {
      id: 'handle',
      name: 'Handle',
      type: 'agent_action',
      agent_id: classifier,
      config: { action: 'classify', input_mapping: { topic: '{{classify.result.output}}' } },
      next_step_id: 'notify',
    },
    {
      id: 'notify',
      name: 'Notify',
      type: 'webhook',
      config: {
        url: receiver.url,
        method: 'POST',
        headers: { 'x-run': '{{workflow.execution_id}}' },
        body: {
          amount: '{{trigger.payload.amount}}',
          topic: 'Topic: {{steps.classify.result.output}}',
          confidence: '{{classify.result.confidence}}',
        },
      },
      next_step_id: 'close',
    },
    {
      id: 'close',
      name: 'Close',
      type: 'agent_action',
      agent_id: classifier,
      config: { action: 'classify' },
    },
  ]);
  const answer = await w.run(flow, { text: 'Refund please', amount: 150 });
  t.is(answer.status, 200, answer.text);
  const run = answer.body.data;
  t.is(run.status, 'completed');
  t.deepEqual(stepStates(run), [
    ['classify', 'completed'],
    ['check', 'completed'],
    ['handle', 'completed'],
    ['notify', 'completed'],
    ['close', 'completed'],
  ]);
  t.like(run.step_results[1].result, { value: true, branch: 'if_true' });
  t.is(run.steps_completed, 5);
  t.is(run.steps_total, 5);
  t.like(run.result, { action: 'route', confidence: 0.9 });
  t.is(typeof run.duration_seconds, 'number');
  t.truthy(run.completed_at);
  const sent = receiver.requests[0]!;
  t.deepEqual(sent.json(), { amount: 150, topic: 'Topic: billing', confidence: 0.9 });
  t.is(sent.header('x-run'), run.execution_id);

  const events = await w.events(run.execution_id);
  // Events of one millisecond share a timestamp (their order within it is not fixed), so check
  // that the run started once, before anything else, and completed once, after everything else.
  const [started] = events.filter((e) => e.type === 'workflow.execution.started');
  const completed = events.filter((e) => e.type === 'workflow.execution.completed');
  t.truthy(started);
  t.is(completed.length, 1);
  for (const event of events) {
    t.true(event.created_at >= started.created_at, `${event.type} before the start`);
    t.true(event.created_at <= completed[0].created_at, `${event.type} after the end`);
  }
  t.is(events.length, 7);
  const steps = events.filter((e) => e.type === 'workflow.execution.step_completed');
  t.deepEqual(steps.map((e) => e.data.step_id).sort(), [
    'check',
    'classify',
    'close',
    'handle',
    'notify',
  ]);
  const classified = steps.find((e) => e.data.step_id === 'classify');
  t.like(classified.data, {
    execution_id: run.execution_id,
    workflow_id: flow,
    step_id: 'classify',
    status: 'completed',
  });
  t.is(typeof classified.data.duration_ms, 'number');
  t.like(events.at(-1).data, { execution_id: run.execution_id, status: 'completed' });

  const workflow = (await w.call('GET', `/v1/workflows/${flow}`)).body.data;
  t.is(workflow.stats.total_executions, 1);
  t.is(workflow.stats.success_rate, 1);
  t.truthy(workflow.last_executed_at);
});

test('a failing step: 500 step_failed with extras, the failed event has exactly the spec fields', async (t) => {
  const w = await Tenant.create();
  const agent = await w.agent();
  await w.stub(agent, '--match', 'crm', '--fail', 'external_api_error');
  const flow = await w.workflow([
    waitStep('first', 0, 'lookup'),
    {
      id: 'lookup',
      name: 'Look up',
      type: 'agent_action',
      agent_id: agent,
      config: { action: 'crm lookup' },
    },
  ]);
  const answer = await w.run(flow, {});
  const error = assertError(t, answer, 500, 'step_failed');
  t.is(error.step_id, 'lookup');
  t.is(error.step_name, 'Look up');
  t.is(error.underlying_error.code, 'external_api_error');
  t.regex(error.execution_id, /^wex_/);
  const failed = (await w.events(error.execution_id)).find(
    (e) => e.type === 'workflow.execution.failed',
  );
  t.deepEqual(Object.keys(failed.data).sort(), [
    'created_at',
    'error',
    'execution_id',
    'failed_at',
    'failed_step',
    'status',
    'steps_completed',
    'steps_total',
    'workflow_id',
    'workflow_name',
  ]);
  t.like(failed.data, {
    workflow_id: flow,
    workflow_name: 'Flow',
    status: 'failed',
    failed_step: 'lookup',
    error: { code: 'external_api_error', details: { step_id: 'lookup', agent_id: agent } },
    // The first step completed; the failed one does not count.
    steps_completed: 1,
    steps_total: 2,
  });
  const stats = (await w.call('GET', `/v1/workflows/${flow}`)).body.data.stats;
  t.is(stats.success_rate, 0);
});

test('on_error jumps to its handler; error_handling continue records and goes on', async (t) => {
  const w = await Tenant.create();
  const receiver = await startReceiver(t);
  receiver.respondWith(500);
  const withHandler = await w.workflow([
    {
      id: 'call',
      name: 'Call',
      type: 'webhook',
      config: { url: receiver.url },
      on_error: 'recover',
      next_step_id: 'never',
    },
    { id: 'never', name: 'Never', type: 'wait', config: { duration_seconds: 0 } },
    {
      id: 'recover',
      name: 'Recover',
      type: 'wait',
      config: { duration_seconds: 0, reason: 'handled' },
    },
  ]);
  const handled = await w.run(withHandler, {});
  t.is(handled.status, 200, handled.text);
  t.deepEqual(stepStates(handled.body.data), [
    ['call', 'failed'],
    ['recover', 'completed'],
  ]);
  t.like(handled.body.data.step_results[0], {
    error: { code: 'external_api_error' },
    result: { status_code: 500 },
  });

  const continuing = await w.workflow(
    [
      {
        id: 'call',
        name: 'Call',
        type: 'webhook',
        config: { url: receiver.url },
        next_step_id: 'next',
      },
      { id: 'next', name: 'Next', type: 'wait', config: { duration_seconds: 0 } },
    ],
    { settings: { error_handling: 'continue' } },
  );
  const continued = await w.run(continuing, {});
  t.is(continued.status, 200, continued.text);
  t.is(continued.body.data.status, 'completed');
  t.deepEqual(
    continued.body.data.step_results.map((s: any) => s.status),
    ['failed', 'completed'],
  );
});

test('parallel runs each chain and joins (wait_for_all), then follows its own next_step_id', async (t) => {
  const w = await Tenant.create();
  const receiver = await startReceiver(t);
  const flow = await w.workflow([
    {
      id: 'fan',
      name: 'Fan out',
      type: 'parallel',
      config: { steps: ['a', 'b'], wait_for_all: true },
      next_step_id: 'join',
    },
    {
      id: 'a',
      name: 'A',
      type: 'webhook',
      config: { url: `${receiver.url}/a` },
      next_step_id: 'a2',
    },
    { id: 'a2', name: 'A2', type: 'wait', config: { duration_seconds: 0 } },
    { id: 'b', name: 'B', type: 'webhook', config: { url: `${receiver.url}/b` } },
    {
      id: 'join',
      name: 'Join',
      type: 'webhook',
      config: {
        url: `${receiver.url}/join`,
        body: { a: '{{a.result.status_code}}', b: '{{steps.b.result.status_code}}' },
      },
    },
  ]);
  const answer = await w.run(flow, {});
  t.is(answer.status, 200, answer.text);
  const ids = answer.body.data.step_results.map((s: any) => s.step_id);
  t.deepEqual([...ids].sort(), ['a', 'a2', 'b', 'fan', 'join']);
  t.is(ids.at(-1), 'join');
  t.is(ids.indexOf('fan') > ids.indexOf('a2') && ids.indexOf('fan') > ids.indexOf('b'), true);
  t.deepEqual(receiver.requests.at(-1)!.json(), { a: 200, b: 200 });
});

test('approval: an L2 agent step puts the run in awaiting_approval; approve continues, reject fails', async (t) => {
  const w = await Tenant.create();
  const reviewer = await w.agent({ autonomy_level: 'L2' });
  const flow = await w.workflow([
    {
      id: 'ask',
      name: 'Ask',
      type: 'agent_action',
      agent_id: reviewer,
      config: { action: 'refund' },
      next_step_id: 'after',
    },
    { id: 'after', name: 'After', type: 'wait', config: { duration_seconds: 0 } },
  ]);
  const first = await w.run(flow, {});
  t.is(first.status, 202, first.text);
  t.is(first.body.data.status, 'awaiting_approval');
  const waiting = first.body.data.step_results.find((s: any) => s.status === 'awaiting_approval');
  t.is(waiting.step_id, 'ask');
  const executions = await w.call(
    'GET',
    `/v1/events?type=agent.execution.awaiting_approval&limit=10`,
  );
  const agentExecution = executions.body.data[0].data.execution_id as string;
  const approved = await w.call(
    'POST',
    `/v1/agents/${reviewer}/executions/${agentExecution}/approve`,
    { decision: 'approve' },
  );
  t.is(approved.status, 200, approved.text);
  const done = await w.ended(flow, first.body.data.execution_id);
  t.is(done.status, 'completed');
  t.deepEqual(
    done.step_results.map((s: any) => s.step_id),
    ['ask', 'after'],
  );

  const second = await w.run(flow, {});
  t.is(second.body.data.status, 'awaiting_approval');
  const again = await w.call('GET', `/v1/events?type=agent.execution.awaiting_approval&limit=10`);
  const other = again.body.data[0].data.execution_id as string;
  t.not(other, agentExecution);
  await w.call('POST', `/v1/agents/${reviewer}/executions/${other}/approve`, {
    decision: 'reject',
  });
  const rejected = await w.ended(flow, second.body.data.execution_id);
  t.is(rejected.status, 'failed');
  t.like(rejected.error, {
    code: 'approval_rejected',
    details: { step_id: 'ask', agent_id: reviewer },
  });
});

test('secrets: used in a webhook step, never stored or shown; a missing one fails the step naming it', async (t) => {
  const w = await Tenant.create();
  const receiver = await startReceiver(t);
  await w.secret('API_TOKEN', 'tok-very-secret-123');
  const flow = await w.workflow([
    {
      id: 'call',
      name: 'Call',
      type: 'webhook',
      config: {
        url: receiver.url,
        headers: { authorization: 'Bearer {{secrets.API_TOKEN}}' },
        body: { echo: '{{secrets.API_TOKEN}}' },
      },
    },
  ]);
  receiver.respondWith(200);
  const answer = await w.run(flow, {});
  t.is(answer.status, 200, answer.text);
  t.is(receiver.requests[0]!.header('authorization'), 'Bearer tok-very-secret-123');
  const execution = await w.execution(flow, answer.body.data.execution_id);
  const events = await w.events(answer.body.data.execution_id);
  for (const text of [answer.text, JSON.stringify(execution), JSON.stringify(events)]) {
    t.false(text.includes('tok-very-secret-123'));
  }

  const missing = await w.workflow([
    {
      id: 'call',
      name: 'Call',
      type: 'webhook',
      config: { url: receiver.url, body: { k: '{{secrets.NOT_SET}}' } },
    },
  ]);
  const failed = assertError(t, await w.run(missing, {}), 500, 'step_failed');
  t.is(failed.underlying_error.code, 'secret_not_found');
  t.regex(failed.underlying_error.message, /NOT_SET/);
});

test('deleting a workflow cancels its running runs; deleting an agent fails the step using it', async (t) => {
  const w = await Tenant.create();
  const parked = await w.workflow([
    { id: 'p', name: 'P', type: 'wait', config: { duration_seconds: 600 } },
  ]);
  const id = (await w.run(parked, {}, false)).body.data.execution_id as string;
  await w.stepIn(parked, id, 'waiting');
  t.is((await w.call('DELETE', `/v1/workflows/${parked}`)).status, 200);
  // Cancelled, and a cancelled run publishes its end: workflow.execution.failed, status cancelled.
  const events = (await w.events(id)).map((e) => [e.type, e.data.status]);
  t.deepEqual(events, [
    ['workflow.execution.started', 'running'],
    ['workflow.execution.failed', 'cancelled'],
  ]);

  const agent = await w.agent({ autonomy_level: 'L2' });
  const flow = await w.workflow([
    { id: 'ask', name: 'Ask', type: 'agent_action', agent_id: agent, config: { action: 'x' } },
  ]);
  const run = await w.run(flow, {});
  t.is(run.body.data.status, 'awaiting_approval');
  t.is((await w.call('DELETE', `/v1/agents/${agent}`)).status, 200);
  const failed = await w.ended(flow, run.body.data.execution_id);
  t.is(failed.status, 'failed');
  t.like(failed.error, { code: 'agent_not_found', details: { step_id: 'ask', agent_id: agent } });
});

test('paused and archived workflows answer 409 workflow_not_active; draft runs', async (t) => {
  const w = await Tenant.create();
  const flow = await w.workflow([
    { id: 'a', name: 'A', type: 'wait', config: { duration_seconds: 0 } },
  ]);
  t.is((await w.run(flow, {})).status, 200);
  for (const status of ['paused', 'archived']) {
    await w.call('PATCH', `/v1/workflows/${flow}`, { status });
    assertError(t, await w.run(flow, {}), 409, 'workflow_not_active');
  }
  await w.call('PATCH', `/v1/workflows/${flow}`, { status: 'active' });
  const alias = await w.call('POST', `/v1/workflows/${flow}/run`, {
    input: {},
    wait_for_completion: true,
  });
  t.is(alias.status, 200, alias.text);
});
