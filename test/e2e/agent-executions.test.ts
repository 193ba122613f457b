// Agent executions end to end (spec "Agent execution", decisions §7 and §10): wait / no wait,
// stats, autonomy levels L1-L4, guardrails (blocked actions, require_approval_for, actions per
// hour), approvals, 30-day retention, sandbox stubs (result, failure, delay), the execution
// timeout, the agent.execution.* events and the simulated brain's determinism.
// Tests that move a daemon's clock are serial (ava runs them before the concurrent ones).
// A second daemon with a 3 s execution timeout serves the timeout test.
import test, { type ExecutionContext } from 'ava';
import { startDaemon, type CliResult, type TestDaemon } from '../helpers/daemon.js';
import { assertError, type Answer } from '../helpers/api.js';
import { executionWhen } from '../helpers/agents.js';
import { watchEvents } from '../helpers/events.js';

interface Execution {
  execution_id: string;
  agent_id: string;
  status: string;
  input: string;
  result: { action: string; output: string; confidence: number } | null;
  error: { code: string; message: string } | null;
  execution_time_ms: number | null;
  approval: { decision: string; notes: string | null; decided_at: string } | null;
  created_at: string;
  completed_at: string | null;
}

interface Envelope {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, any>;
}

/**
 * An agent whose inputs matching `match` are delayed by an hour of daemon clock, on a daemon
 * apart from the other tests' with a 2 h execution timeout: the clock also runs in real time,
 * and an hour is what no slow CLI call on a loaded machine reaches (20 s were reached in a
 * restart). The two serial tests that use it share it (a daemon start is 3-4 s of CPU): the one
 * that counts its timers first, on a daemon where nothing else runs; then the one that restarts
 * it (the HTTP caller of a TestDaemon keeps its first address; control calls follow a restart).
 */
let ownDaemon: Promise<Sandbox> | undefined;
async function delayedOnOwnDaemon(t: ExecutionContext, match: string) {
  ownDaemon ??= Sandbox.start({ SVC_AGENT_TIMEOUT_SECONDS: '7200' });
  const own = await ownDaemon;
  const w = await own.workspace();
  const agent = await w.agent();
  assertCli(t, await own.stub(agent.id, '--match', match, '--delay', '1h'));
  return { own, w, agent };
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** One daemon and its operator credential; agents live in per-test workspaces. */
class Sandbox {
  key = '';

  constructor(readonly daemon: TestDaemon) {}

  static async start(env: NodeJS.ProcessEnv = {}): Promise<Sandbox> {
    const sandbox = new Sandbox(await startDaemon({ env }));
    sandbox.key = (await sandbox.daemon.operator()).key;
    return sandbox;
  }

  async workspace(tier = 'enterprise'): Promise<Tenant> {
    return new Tenant(this, await this.daemon.createWorkspace('Executions', tier));
  }

  /**
   * Moves the daemon clock over the control channel, as `svc clock advance` does (that command
   * is tested in cli-operator.test.ts; a CLI process per move cost this file 7 s of CPU).
   */
  async advance(duration: string): Promise<void> {
    await this.daemon.advance(duration);
  }

  /** `svc agents stub add ID ...args --json` */
  async stub(agentId: string, ...args: string[]): Promise<CliResult> {
    return this.daemon.cli(['agents', 'stub', 'add', agentId, ...args, '--json']);
  }
}

class Tenant {
  constructor(
    readonly sandbox: Sandbox,
    readonly id: string,
  ) {}

  call(method: string, path: string, body?: unknown, key?: string): Promise<Answer> {
    return this.sandbox.daemon.callJson(method, path, body, {
      key: key ?? this.sandbox.key,
      tenant: this.id,
    });
  }

  /** Creates an agent and deploys it (active at once). */
  async agent(fields: Record<string, unknown> = {}): Promise<{ id: string; name: string }> {
    const created = await this.call('POST', '/v1/agents', {
      name: 'Executor',
      ontology: 'retail-v1',
      type: 'customer-service',
      autonomy_level: 'L3',
      ...fields,
    });
    if (created.status !== 201) throw new Error(`create agent: ${created.status} ${created.text}`);
    const deployed = await this.call('POST', '/v1/agents/deploy', {
      agent_id: created.body.data.id,
    });
    if (deployed.status !== 200) throw new Error(`deploy: ${deployed.text}`);
    return created.body.data;
  }

  execute(agentId: string, input: string, wait: boolean, extra: Record<string, unknown> = {}) {
    return this.call('POST', `/v1/agents/${agentId}/execute`, {
      input,
      wait_for_completion: wait,
      ...extra,
    });
  }

  getExecution(agentId: string, executionId: string): Promise<Answer> {
    return this.call('GET', `/v1/agents/${agentId}/executions/${executionId}`);
  }

  decide(agentId: string, executionId: string, decision: string, notes?: string) {
    return this.call('POST', `/v1/agents/${agentId}/executions/${executionId}/approve`, {
      decision,
      ...(notes === undefined ? {} : { notes }),
    });
  }

  /** A wait=false execution (202), once it has ended. */
  async inBackground(t: ExecutionContext, agentId: string, input: string): Promise<Execution> {
    const started = await this.execute(agentId, input, false);
    t.is(started.status, 202, started.text);
    return this.until(agentId, started.body.data.execution_id, (e) => e.status !== 'processing');
  }

  /** The execution once `done` holds, read again on each event about it. */
  until(
    agentId: string,
    executionId: string,
    done: (execution: Execution) => boolean,
  ): Promise<Execution> {
    return executionWhen(
      this.sandbox.daemon,
      (method, path) => this.call(method, path),
      agentId,
      executionId,
      done,
    );
  }

  async events(type = 'agent.*'): Promise<Envelope[]> {
    const answer = await this.call('GET', `/v1/events?type=${encodeURIComponent(type)}&limit=100`);
    if (answer.status !== 200) throw new Error(`events: ${answer.status} ${answer.text}`);
    return answer.body.data as Envelope[];
  }

  async eventsOf(executionId: string): Promise<Envelope[]> {
    return (await this.events('agent.execution.*')).filter(
      (event) => event.data.execution_id === executionId,
    );
  }
}

let main: Sandbox;
let short: Sandbox;

test.before(async () => {
  [main, short] = await Promise.all([
    Sandbox.start(),
    Sandbox.start({ SVC_AGENT_TIMEOUT_SECONDS: '3' }),
  ]);
});

test.after.always(async () => {
  const own = await ownDaemon?.catch(() => undefined);
  await Promise.all([main?.daemon.stop(), short?.daemon.stop(), own?.daemon.stop()]);
});

function assertCli(t: ExecutionContext, result: CliResult): void {
  t.is(result.code, 0, `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
}

// --- serial: tests that move a clock ---------------------------------------------------------

test.serial(
  'executions are kept 30 days: after 31 days GET is 404 execution_not_found',
  async (t) => {
    const w = await main.workspace();
    const agent = await w.agent();
    const done = await w.execute(agent.id, 'Where is my order 1234?', true);
    t.is(done.status, 200, done.text);
    const id = done.body.data.execution_id as string;
    await main.advance('29d');
    t.is((await w.getExecution(agent.id, id)).status, 200, 'still there after 29 days');
    await main.advance('2d');
    const gone = assertError(t, await w.getExecution(agent.id, id), 404, 'execution_not_found');
    t.is(gone.type, 'resource_error');
  },
);

test.serial(
  'a stub with --delay 5s keeps a wait=false execution processing until the clock moves 5 s',
  async (t) => {
    const w = await main.workspace();
    const agent = await w.agent();
    const added = await main.stub(agent.id, '--match', 'slow', '--delay', '5s');
    assertCli(t, added);
    t.is(added.json().delay_ms, 5000);

    const started = await w.execute(agent.id, 'A slow one: where is my order?', false);
    t.is(started.status, 202, started.text);
    t.like(started.body.data, { agent_id: agent.id, status: 'processing' });
    const id = started.body.data.execution_id as string;
    // Short of the delay on the daemon clock (real time moves it too: 2 s are left for that).
    await main.daemon.advance(3_000);
    t.is((await w.getExecution(agent.id, id)).body.data.status, 'processing');

    await main.advance('2s');
    const done = await w.until(agent.id, id, (e) => e.status !== 'processing');
    t.is(done.status, 'completed');
    t.is(done.result?.action, 'check_order_status');
    t.is(typeof done.result?.output, 'string');
    t.regex(done.completed_at ?? '', ISO);
    t.true(Date.parse(done.completed_at!) - Date.parse(done.created_at) >= 5000);

    // Inputs that do not match the stub are not delayed.
    const quick = await w.execute(agent.id, 'Where is my parcel?', true);
    t.is(quick.status, 200, quick.text);
  },
);

test.serial(
  'actions_per_hour: the next execution past the limit is 403 guardrail_violation, allowed again an hour later',
  async (t) => {
    const w = await main.workspace();
    const agent = await w.agent({ guardrails: { rate_limits: { actions_per_hour: 2 } } });
    t.is((await w.execute(agent.id, 'Where is my order?', true)).status, 200);
    t.is((await w.execute(agent.id, 'Where is my order?', false)).status, 202);
    const refused = await w.execute(agent.id, 'Where is my order?', true);
    const error = assertError(t, refused, 403, 'guardrail_violation');
    t.is(error.type, 'authorization_error');
    assertError(
      t,
      await w.execute(agent.id, 'Where is my order?', false),
      403,
      'guardrail_violation',
    );
    await main.advance('61m');
    t.is((await w.execute(agent.id, 'Where is my order?', true)).status, 200);
  },
);

test.serial(
  'a stub delay longer than the execution timeout fails with execution_timeout (408 for wait=true)',
  async (t) => {
    const w = await short.workspace();
    const agent = await w.agent();
    assertCli(t, await short.stub(agent.id, '--match', 'forever', '--delay', '10s'));

    const background = await w.execute(agent.id, 'This takes forever', false);
    t.is(background.status, 202, background.text);
    const id = background.body.data.execution_id as string;
    // The clock moves once the waiting execution has started (its event says so).
    const watch = await watchEvents(short.daemon, { types: ['agent.execution.started'] }, t);
    const waiting = w.execute(agent.id, 'This also takes forever', true);
    await watch.waitFor((e) => e.data.agent_id === agent.id && e.data.execution_id !== id, {
      what: 'start of the waiting execution',
    });
    await short.advance('4s');

    const answer = await waiting;
    assertError(t, answer, 408, 'execution_timeout');
    const failed = await w.until(agent.id, id, (e) => e.status !== 'processing');
    t.is(failed.status, 'failed');
    t.is(failed.error?.code, 'execution_timeout');
    t.regex(failed.completed_at ?? '', ISO);
    const events = await w.eventsOf(id);
    t.deepEqual(events.map((e) => e.type).sort(), [
      'agent.execution.failed',
      'agent.execution.started',
    ]);
    const failedEvent = events.find((e) => e.type === 'agent.execution.failed')!;
    t.like(failedEvent.data, { execution_id: id, agent_id: agent.id, status: 'failed' });

    // Even after the delay has passed, the timed-out execution stays failed.
    await short.advance('10s');
    t.is((await w.getExecution(agent.id, id)).body.data.status, 'failed');
  },
);

test.serial(
  'a finished execution leaves no timer behind (its timeout timer is cancelled by owner)',
  async (t) => {
    // A daemon apart: no other test's timers come and go while the count is compared.
    const { own, w, agent } = await delayedOnOwnDaemon(t, 'later');
    // Let the training timer of the new agent fire, so only the execution's timers reown.
    await own.advance('3s');
    const pending = async () => {
      const status = await own.daemon.cli(['daemon', 'status', '--json']);
      assertCli(t, status);
      return status.json().pending_timers as number;
    };
    const before = await pending();
    const started = await w.execute(agent.id, 'Do it later', false);
    t.is(started.status, 202, started.text);
    t.is(await pending(), before + 2, 'a run timer and a timeout timer');
    await own.advance('1h');
    const done = await w.until(
      agent.id,
      started.body.data.execution_id,
      (e) => e.status !== 'processing',
    );
    t.is(done.status, 'completed');
    t.is(await pending(), before, 'the timeout timer went with the execution');
  },
);

test.serial(
  'a processing execution survives a daemon restart and completes once its delay has passed',
  async (t) => {
    const { own, w, agent } = await delayedOnOwnDaemon(t, 'slow');
    const started = await w.execute(agent.id, 'Slow one: where is my order?', false);
    t.is(started.status, 202, started.text);
    const id = started.body.data.execution_id as string;

    assertCli(t, await own.daemon.cli(['daemon', 'stop']));
    assertCli(t, await own.daemon.cli(['daemon', 'start', '--port', '0', '--json']));
    const show = () =>
      own.daemon.cli(['agents', 'execution', agent.id, id, '--workspace', w.id, '--json']);
    const before = await show();
    assertCli(t, before);
    t.is(before.json().status, 'processing');

    await own.advance('61m');
    const after = await show();
    assertCli(t, after);
    t.like(after.json(), { status: 'completed', result: { action: 'check_order_status' } });
  },
);

test.serial(
  'deleting an agent ends its processing and awaiting executions as failed, each with its event',
  async (t) => {
    const w = await main.workspace();
    const agent = await w.agent({ autonomy_level: 'L2' });
    assertCli(t, await main.stub(agent.id, '--match', 'slow', '--delay', '1h'));
    const awaiting = await w.execute(agent.id, 'Where is my order?', true);
    t.is(awaiting.status, 202, awaiting.text);
    t.is(awaiting.body.data.status, 'awaiting_approval');
    const processing = await w.execute(agent.id, 'A slow one', false);
    t.is(processing.status, 202, processing.text);
    const ids = [awaiting.body.data.execution_id, processing.body.data.execution_id] as string[];

    t.is((await w.call('DELETE', `/v1/agents/${agent.id}`)).status, 200);
    for (const id of ids) {
      const failed = (await w.eventsOf(id)).filter((e) => e.type === 'agent.execution.failed');
      t.is(failed.length, 1, id);
      t.like(failed[0]!.data, {
        execution_id: id,
        agent_id: agent.id,
        status: 'failed',
        error: { code: 'agent_not_found' },
      });
    }
    // Its delay passing later does not bring the execution back.
    await main.advance('61m');
    for (const id of ids) {
      t.is((await w.eventsOf(id)).filter((e) => e.type === 'agent.execution.failed').length, 1);
      t.is((await w.eventsOf(id)).filter((e) => e.type === 'agent.execution.completed').length, 0);
    }
  },
);

// --- wait / no wait, stats -------------------------------------------------------------------

test('wait=true answers 200 with the completed execution; stats and last_active_at update', async (t) => {
  const w = await main.workspace();
  const agent = await w.agent();
  const answer = await w.execute(agent.id, 'Where is my order 1234?', true, {
    context: { customer_id: 'cus_1' },
  });
  t.is(answer.status, 200, answer.text);
  const execution = answer.body.data as Execution;
  t.regex(execution.execution_id, /^exec_/);
  t.like(execution, { agent_id: agent.id, status: 'completed' });
  t.is(typeof execution.result?.action, 'string');
  t.is(execution.result?.action, 'check_order_status');
  t.is(typeof execution.result?.output, 'string');
  t.true(execution.result!.output.length > 0);
  t.true(execution.result!.confidence > 0 && execution.result!.confidence <= 1);
  t.true(Number.isInteger(execution.execution_time_ms));
  t.true(execution.execution_time_ms! >= 0);
  t.regex(execution.created_at, ISO);
  t.regex(execution.completed_at ?? '', ISO);

  const got = await w.getExecution(agent.id, execution.execution_id);
  t.is(got.status, 200);
  t.deepEqual(got.body.data, execution);

  const view = (await w.call('GET', `/v1/agents/${agent.id}`)).body.data;
  t.is(view.stats.total_interactions, 1);
  t.is(view.stats.success_rate, 1);
  t.true(view.stats.avg_response_time_ms >= 0);
  t.regex(view.last_active_at ?? '', ISO);
});

test('wait=false answers 202 {execution_id, agent_id, status processing, created_at}; GET then shows it completed', async (t) => {
  const w = await main.workspace();
  const agent = await w.agent();
  const answer = await w.execute(agent.id, 'I need a refund for my order', false);
  t.is(answer.status, 202, answer.text);
  const started = answer.body.data as Execution;
  t.regex(started.execution_id, /^exec_/);
  t.like(started, { agent_id: agent.id, status: 'processing' });
  t.regex(started.created_at, ISO);
  const done = await w.until(agent.id, started.execution_id, (e) => e.status !== 'processing');
  t.is(done.status, 'completed');
  t.is(done.result?.action, 'issue_refund');
  t.true(Number.isInteger(done.execution_time_ms));
  t.regex(done.completed_at ?? '', ISO);

  // Default is wait_for_completion false.
  const implicit = await w.call('POST', `/v1/agents/${agent.id}/execute`, { input: 'Hello' });
  t.is(implicit.status, 202, implicit.text);
  t.is(implicit.body.data.status, 'processing');
  await w.until(agent.id, implicit.body.data.execution_id, (e) => e.status !== 'processing');

  const view = (await w.call('GET', `/v1/agents/${agent.id}`)).body.data;
  t.is(view.stats.total_interactions, 2);
  t.is(view.stats.success_rate, 1);
  t.not(view.last_active_at, null);
});

test('execute validation: missing input, bad types, unknown agent, unknown execution', async (t) => {
  const w = await main.workspace();
  const agent = await w.agent();
  const missing = assertError(
    t,
    await w.call('POST', `/v1/agents/${agent.id}/execute`, { wait_for_completion: true }),
    400,
    'missing_required_field',
  );
  t.deepEqual(missing.required_fields, ['input']);
  t.is(
    assertError(
      t,
      await w.call('POST', `/v1/agents/${agent.id}/execute`, {
        input: 'x',
        wait_for_completion: 'yes',
      }),
      400,
      'invalid_parameter',
    ).param,
    'wait_for_completion',
  );
  t.is(
    assertError(
      t,
      await w.call('POST', `/v1/agents/${agent.id}/execute`, { input: 'x', context: 'nope' }),
      400,
      'invalid_parameter',
    ).param,
    'context',
  );
  assertError(t, await w.execute('agt_doesnotexist000000', 'Hello', true), 404, 'agent_not_found');
  const unknown = assertError(
    t,
    await w.getExecution(agent.id, 'exec_doesnotexist00000'),
    404,
    'execution_not_found',
  );
  t.is(unknown.type, 'resource_error');
  // An execution of another agent is not found under this one.
  const other = await w.agent({ name: 'Other' });
  const run = await w.execute(other.id, 'Hello', true);
  assertError(
    t,
    await w.getExecution(agent.id, run.body.data.execution_id),
    404,
    'execution_not_found',
  );
  // Nor in another workspace.
  const foreign = await main.workspace();
  assertError(
    t,
    await foreign.getExecution(other.id, run.body.data.execution_id),
    404,
    'agent_not_found',
  );
});

/** An agent at `level` in a fresh workspace, and its wait=true answer to `input`. */
async function answeredAt(t: ExecutionContext, level: string, input: string, status: number) {
  const w = await main.workspace();
  const agent = await w.agent({ autonomy_level: level });
  const answer = await w.execute(agent.id, input, true);
  t.is(answer.status, status, answer.text);
  return { w, agent, execution: answer.body.data as Execution };
}

// --- autonomy --------------------------------------------------------------------------------

test('L1 completes with a suggestion only (nothing executed)', async (t) => {
  const { execution } = await answeredAt(t, 'L1', 'Please refund my order', 200);
  t.is(execution.status, 'completed');
  t.is(execution.result?.action, 'issue_refund');
  t.regex(execution.result?.output ?? '', /suggest/i);
  t.is(execution.approval, null);
});

test('L2 always awaits approval: wait=true is 202 awaiting_approval; approve -> completed; deciding twice 409 conflict', async (t) => {
  const { w, agent, execution: waiting } = await answeredAt(t, 'L2', 'Where is my order?', 202);
  t.is(waiting.status, 'awaiting_approval');
  t.is(waiting.result?.action, 'check_order_status');
  t.is(waiting.completed_at, null);
  t.is(
    (await w.getExecution(agent.id, waiting.execution_id)).body.data.status,
    'awaiting_approval',
  );

  const approved = await w.decide(agent.id, waiting.execution_id, 'approve', 'Looks right');
  t.is(approved.status, 200, approved.text);
  t.like(approved.body.data, {
    execution_id: waiting.execution_id,
    status: 'completed',
    result: waiting.result,
    approval: { decision: 'approve', notes: 'Looks right' },
  });
  t.regex(approved.body.data.completed_at ?? '', ISO);
  t.is((await w.getExecution(agent.id, waiting.execution_id)).body.data.status, 'completed');

  assertError(t, await w.decide(agent.id, waiting.execution_id, 'approve'), 409, 'conflict');
  assertError(t, await w.decide(agent.id, waiting.execution_id, 'reject'), 409, 'conflict');

  // wait=false: processing, then awaiting_approval.
  const later = await w.execute(agent.id, 'Where is my order?', false);
  t.is(later.status, 202);
  t.is(later.body.data.status, 'processing');
  const parked = await w.until(
    agent.id,
    later.body.data.execution_id,
    (e) => e.status !== 'processing',
  );
  t.is(parked.status, 'awaiting_approval');

  const events = await w.eventsOf(waiting.execution_id);
  t.deepEqual(events.map((e) => e.type).sort(), [
    'agent.execution.awaiting_approval',
    'agent.execution.completed',
    'agent.execution.started',
  ]);
  t.like(events.find((e) => e.type === 'agent.execution.awaiting_approval')!.data, {
    execution_id: waiting.execution_id,
    agent_id: agent.id,
    status: 'awaiting_approval',
  });
  t.like(events.find((e) => e.type === 'agent.execution.completed')!.data, {
    execution_id: waiting.execution_id,
    status: 'completed',
  });
});

test('reject -> cancelled (with an event); a cancelled or completed execution cannot be decided; bad decision 400', async (t) => {
  const w = await main.workspace();
  const agent = await w.agent({ autonomy_level: 'L2' });
  const waiting = (await w.execute(agent.id, 'Cancel my order please', true)).body
    .data as Execution;
  t.is(waiting.status, 'awaiting_approval');

  const bad = assertError(
    t,
    await w.decide(agent.id, waiting.execution_id, 'maybe'),
    400,
    'invalid_parameter',
  );
  t.is(bad.param, 'decision');
  const missing = assertError(
    t,
    await w.call('POST', `/v1/agents/${agent.id}/executions/${waiting.execution_id}/approve`, {}),
    400,
    'missing_required_field',
  );
  t.deepEqual(missing.required_fields, ['decision']);

  const rejected = await w.decide(agent.id, waiting.execution_id, 'reject', 'Not allowed');
  t.is(rejected.status, 200, rejected.text);
  t.like(rejected.body.data, {
    status: 'cancelled',
    approval: { decision: 'reject', notes: 'Not allowed' },
    // The code of the table (shared/errors.ts) a workflow step waiting on it fails with too.
    error: { code: 'approval_rejected', message: 'Rejected by the reviewer: Not allowed' },
  });
  t.is((await w.getExecution(agent.id, waiting.execution_id)).body.data.status, 'cancelled');
  assertError(t, await w.decide(agent.id, waiting.execution_id, 'approve'), 409, 'conflict');
  const events = await w.eventsOf(waiting.execution_id);
  t.true(
    events.some((e) => e.type !== 'agent.execution.started' && e.data.status === 'cancelled'),
    `an event tells about the rejection: ${events.map((e) => e.type).join(', ')}`,
  );

  const l3 = await w.agent({ autonomy_level: 'L3', name: 'Autonomous' });
  const completed = (await w.execute(l3.id, 'Where is my order?', true)).body.data as Execution;
  t.is(completed.status, 'completed');
  assertError(t, await w.decide(l3.id, completed.execution_id, 'approve'), 409, 'conflict');
  assertError(
    t,
    await w.decide(l3.id, 'exec_doesnotexist00000', 'approve'),
    404,
    'execution_not_found',
  );
});

test('L3 and L4 execute unless the action is in require_approval_for', async (t) => {
  const w = await main.workspace();
  for (const level of ['L3', 'L4']) {
    const agent = await w.agent({
      autonomy_level: level,
      guardrails: { require_approval_for: ['issue_refund'] },
    });
    const refund = await w.execute(agent.id, 'I want a refund for order 1234', true);
    t.is(refund.status, 202, refund.text);
    t.is(refund.body.data.status, 'awaiting_approval');
    t.is(refund.body.data.result.action, 'issue_refund');
    const track = await w.execute(agent.id, 'Where is my order 1234?', true);
    t.is(track.status, 200, track.text);
    t.is(track.body.data.status, 'completed');
    const approved = await w.decide(agent.id, refund.body.data.execution_id, 'approve');
    t.is(approved.body.data.status, 'completed');
  }
});

// --- guardrails ------------------------------------------------------------------------------

test('blocked_actions: 403 guardrail_violation; other actions still run; PATCH can unblock', async (t) => {
  const w = await main.workspace();
  const agent = await w.agent({ guardrails: { blocked_actions: ['issue_refund'] } });
  const refused = await w.execute(agent.id, 'Refund my order now', true);
  const error = assertError(t, refused, 403, 'guardrail_violation');
  t.is(error.type, 'authorization_error');
  t.regex(error.message, /issue_refund/);

  const failed = await w.inBackground(t, agent.id, 'Refund my order now');
  t.is(failed.status, 'failed');
  t.is(failed.error?.code, 'guardrail_violation');
  t.true((await w.eventsOf(failed.execution_id)).some((e) => e.type === 'agent.execution.failed'));

  t.is((await w.execute(agent.id, 'Where is my order?', true)).status, 200);
  await w.call('PATCH', `/v1/agents/${agent.id}`, { guardrails: { blocked_actions: [] } });
  t.is((await w.execute(agent.id, 'Refund my order now', true)).status, 200);
});

// --- stubs -----------------------------------------------------------------------------------

test('stub --result is returned exactly for matching inputs (substring or /regex/); list and clear', async (t) => {
  const w = await main.workspace();
  const agent = await w.agent();
  const result = { action: 'issue_refund', output: 'Refund of $42 issued.', confidence: 0.99 };
  const added = await main.stub(agent.id, '--match', 'REFUND', '--result', JSON.stringify(result));
  assertCli(t, added);
  const stub = added.json();
  t.like(stub, { agent_id: agent.id, match: 'REFUND', result });
  t.regex(stub.id, /^stub_/);
  assertCli(
    t,
    await main.stub(
      agent.id,
      '--match',
      '/^order \\d+$/i',
      '--result',
      '{"action":"lookup","output":"Found it.","confidence":0.5}',
    ),
  );

  const hit = await w.execute(agent.id, 'I want a refund', true);
  t.is(hit.status, 200, hit.text);
  t.deepEqual(hit.body.data.result, result);
  const regex = await w.execute(agent.id, 'ORDER 77', true);
  t.deepEqual(regex.body.data.result, { action: 'lookup', output: 'Found it.', confidence: 0.5 });
  const miss = await w.execute(agent.id, 'order 77 is late', true);
  t.notDeepEqual(miss.body.data.result, { action: 'lookup', output: 'Found it.', confidence: 0.5 });

  const listed = await main.daemon.cli(['agents', 'stub', 'list', agent.id, '--json']);
  assertCli(t, listed);
  t.deepEqual(
    listed.json().data.map((s: { match: string }) => s.match),
    ['REFUND', '/^order \\d+$/i'],
  );
  const cleared = await main.daemon.cli(['agents', 'stub', 'clear', agent.id, '--json']);
  assertCli(t, cleared);
  t.is(cleared.json().cleared, 2);
  const after = await w.execute(agent.id, 'I want a refund', true);
  t.notDeepEqual(after.body.data.result, result);
  t.is(after.body.data.result.action, 'issue_refund');
});

test('stub --fail external_api_error: wait=true answers 502 external_api_error and the execution is failed', async (t) => {
  const w = await main.workspace();
  const agent = await w.agent();
  assertCli(t, await main.stub(agent.id, '--match', 'crm', '--fail', 'external_api_error'));
  const answer = await w.execute(agent.id, 'Look this up in the CRM', true);
  const error = assertError(t, answer, 502, 'external_api_error');
  t.is(error.type, 'integration_error');

  const failed = await w.inBackground(t, agent.id, 'Look this up in the CRM');
  t.is(failed.status, 'failed');
  t.is(failed.error?.code, 'external_api_error');
  t.regex(failed.completed_at ?? '', ISO);
  const events = await w.eventsOf(failed.execution_id);
  const failedEvent = events.find((e) => e.type === 'agent.execution.failed');
  t.truthy(failedEvent, events.map((e) => e.type).join(', '));
  t.like(failedEvent!.data, {
    execution_id: failed.execution_id,
    agent_id: agent.id,
    agent_name: agent.name,
    status: 'failed',
  });

  const view = (await w.call('GET', `/v1/agents/${agent.id}`)).body.data;
  t.is(view.stats.total_interactions, 2);
  t.is(view.stats.success_rate, 0);
});

// --- events and determinism ------------------------------------------------------------------

test('agent.execution.started and .completed carry the spec fields', async (t) => {
  const w = await main.workspace();
  const agent = await w.agent({ name: 'Evented' });
  const execution = (await w.execute(agent.id, 'Where is my order 55?', true)).body
    .data as Execution;
  const events = await w.eventsOf(execution.execution_id);
  t.deepEqual(events.map((e) => e.type).sort(), [
    'agent.execution.completed',
    'agent.execution.started',
  ]);
  const completed = events.find((e) => e.type === 'agent.execution.completed')!;
  t.deepEqual(completed.data, {
    ...completed.data,
    execution_id: execution.execution_id,
    agent_id: agent.id,
    agent_name: 'Evented',
    status: 'completed',
    result: execution.result,
    execution_time_ms: execution.execution_time_ms,
    created_at: execution.created_at,
    completed_at: execution.completed_at,
  });
  for (const field of [
    'execution_id',
    'agent_id',
    'agent_name',
    'status',
    'result',
    'execution_time_ms',
    'created_at',
    'completed_at',
  ]) {
    t.true(field in completed.data, `agent.execution.completed has ${field}`);
  }
  const started = events.find((e) => e.type === 'agent.execution.started')!;
  t.like(started.data, {
    execution_id: execution.execution_id,
    agent_id: agent.id,
    status: 'processing',
  });

  const agentEvents = await w.events('agent.created,agent.updated');
  t.true(agentEvents.some((e) => e.type === 'agent.created' && e.data.id === agent.id));
  t.true(
    agentEvents.some(
      (e) => e.type === 'agent.updated' && e.data.id === agent.id && e.data.status === 'active',
    ),
  );
});

test('the simulated brain is deterministic: same input, same result', async (t) => {
  const w = await main.workspace();
  const config = {
    type: 'customer-service',
    personality: { tone: 'formal' },
    capabilities: { issue_refund: false },
  };
  const first = await w.agent(config);
  const second = await w.agent(config);
  const inputs = [
    'Where is my order 1234?',
    'I would like a refund, the item was broken',
    'Tell me about your opening hours',
  ];
  for (const input of inputs) {
    const a = await w.execute(first.id, input, true);
    const b = await w.execute(first.id, input, true);
    const c = await w.execute(second.id, input, true);
    t.is(a.status, 200, a.text);
    t.deepEqual(a.body.data.result, b.body.data.result, input);
    t.deepEqual(a.body.data.result, c.body.data.result, input);
  }
  // A capability switched off is never the chosen action.
  const refund = await w.execute(first.id, 'I would like a refund, the item was broken', true);
  t.not(refund.body.data.result.action, 'issue_refund');
});
