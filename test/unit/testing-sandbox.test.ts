// svc/testing end to end in this process: a sandbox per test, the typed client, the frozen
// clock, settle, runs.wait, the receiver's signature check, faults, state, logs, stop and reaping.
import test from 'ava';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createSandbox, SvcError } from '../../testing/index.js';
import { SVC_BIN } from '../helpers/daemon.js';
import { reapStaleSandboxDirs } from '../../testing/temp-dirs.js';

const waitStep = (id: string, seconds: number, next?: string) => ({
  id,
  name: id,
  type: 'wait' as const,
  config: { duration_seconds: seconds },
  ...(next ? { next_step_id: next } : {}),
});

test('a run waits on the frozen clock, a delivery is awaited and its signature verified', async (t) => {
  await using sb = await createSandbox({ clock: '2026-01-05T09:00:00Z' });
  t.is(await sb.clock.now(), '2026-01-05T09:00:00.000Z');
  const hook = await sb.receiver();
  const created = await sb.api.POST('/v1/webhooks', {
    body: { url: hook.url, events: ['workflow.execution.completed'] },
  });
  t.is(created.response.status, 201);
  const flow = await sb.api.POST('/v1/workflows', {
    body: { name: 'Pause', steps: [waitStep('pause', 900, 'end'), waitStep('end', 0)] },
  });
  const workflowId = flow.data!.data.id;
  const run = await sb.api.POST('/v1/workflows/{workflow_id}/execute', {
    params: { path: { workflow_id: workflowId } },
    body: { input: { n: 1 } },
  });
  const executionId = run.data!.data.execution_id;
  // Parked on the frozen clock: refused at once (not at the 30 s timeout), in the kit's words.
  const early = await t.throwsAsync(sb.runs.wait(executionId, { timeout: '30s' }));
  t.is(
    early.message,
    `Run ${executionId} is parked on the frozen sandbox clock: step pause wakes at 2026-01-05T09:15:00.000Z (15m from now on the sandbox clock); move the clock there with: await sb.clock.advance('15m'). (waited for completed)`,
  );
  await sb.clock.advance('15m');
  const done = await sb.runs.wait(executionId, { status: 'completed', timeout: '5s' });
  t.is(done.status, 'completed');
  const delivery = await hook.next({ type: 'workflow.execution.completed', timeout: '5s' });
  t.true(delivery.signature?.valid);
  t.is(delivery.body.data.execution_id, executionId);
  await sb.settle({ timeout: '5s' });
  t.is(sb.env.SVC_API_KEY, sb.key);
});

test('a bad signature fails next() with a clear message; a timeout names what came', async (t) => {
  await using sb = await createSandbox();
  const hook = await sb.receiver();
  const missing = await t.throwsAsync(hook.next({ type: 'agent.created', timeout: '100ms' }));
  t.regex(missing.message, /no request of type agent.created within 100ms; received nothing/);
  // A request that claims to be a delivery but is signed with no webhook's secret.
  await fetch(hook.url, {
    method: 'POST',
    headers: {
      'x-svc-delivery-id': 'del_forged',
      'x-svc-event-type': 'agent.created',
      'x-svc-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`,
    },
    body: '{}',
  });
  const forged = await t.throwsAsync(hook.next({ type: 'agent.created' }));
  t.regex(
    forged.message,
    /delivery del_forged \(agent.created\) has a bad X-Svc-Signature \(no_matching_signature\)/,
  );
  hook.respondWith(503);
  const answer = await fetch(hook.url, { method: 'POST', body: 'x' });
  t.is(answer.status, 503);
  t.is(hook.all().length, 2);
});

test('faults, state reset and logs', async (t) => {
  await using sb = await createSandbox({
    faults: [{ url_prefix: 'http://127.0.0.1:9/', status: 503 }],
  });
  t.is((await sb.faults.list()).length, 1);
  t.is((await sb.faults.clear()).cleared, 1);
  const oldKey = sb.key;
  await sb.state.reset();
  t.not(sb.key, oldKey, 'a new key in the new store');
  const me = await sb.api.GET('/v1/auth/me');
  t.is(me.response.status, 200);
  t.true(sb.logs().some((line) => line.msg === 'svc daemon listening'));
});

test('stop removes the data dir; a dead owner dir is reaped', async (t) => {
  const sb = await createSandbox();
  const dir = sb.env.SVC_DATA_DIR!;
  t.true(existsSync(dir));
  await sb.stop();
  t.false(existsSync(dir));
  const stale = join(tmpdir(), `svc-sandbox-stale${process.pid}`);
  mkdirSync(stale, { recursive: true });
  writeFileSync(join(stale, 'owner'), '2147483646');
  t.true(reapStaleSandboxDirs() >= 1);
  t.false(existsSync(stale));
});

test('create+stop, one after the other and 20 in parallel', async (t) => {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    const sb = await createSandbox();
    await sb.stop();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const started = performance.now();
  const many = await Promise.all(Array.from({ length: 20 }, () => createSandbox()));
  const keys = new Set(many.map((sb) => sb.key));
  const urls = new Set(many.map((sb) => sb.url));
  await Promise.all(many.map((sb) => sb.stop()));
  t.log(
    `create+stop median ${Math.round(times[2]!)} ms (of 5); 20 in parallel ${Math.round(performance.now() - started)} ms`,
  );
  t.is(keys.size, 20);
  t.is(urls.size, 20);
});

test('logs() right after settle() has every line logged before it', async (t) => {
  await using sb = await createSandbox();
  for (let i = 0; i < 5; i++) {
    const me = await sb.api.GET('/v1/auth/me');
    const requestId = me.response.headers.get('x-request-id');
    await sb.settle();
    t.true(
      sb.logs().some((line) => line.req_id === requestId),
      `the request line of ${requestId} is in the log at once`,
    );
  }
});

test("refusals are SvcError with svc's code; approvals are listed and decided by id", async (t) => {
  await using sb = await createSandbox({ clock: '2026-01-05T09:00:00Z' });
  const refused = await t.throwsAsync(sb.runs.wait('wex_nope'));
  t.true(refused instanceof SvcError, refused?.constructor.name);
  t.like(refused, { name: 'SvcError', code: 'execution_not_found', status: 404 });
  const timedOut = await t.throwsAsync(sb.settle({ timeout: 0 }));
  t.like(timedOut, { name: 'SvcError', code: 'invalid_parameter' });

  const agent = await sb.api.POST('/v1/agents', {
    body: {
      name: 'Reviewer',
      ontology: 'retail-v1',
      type: 'customer-service',
      autonomy_level: 'L2',
    },
  });
  const agentId = agent.data!.data.id;
  await sb.api.POST('/v1/agents/deploy', { body: { agent_id: agentId } });
  const flow = await sb.api.POST('/v1/workflows', {
    body: {
      name: 'Review',
      steps: [
        {
          id: 'ask',
          name: 'Ask',
          type: 'agent_action',
          agent_id: agentId,
          config: { action: 'refund' },
        },
      ],
    },
  });
  const run = await sb.api.POST('/v1/workflows/{workflow_id}/execute', {
    params: { path: { workflow_id: flow.data!.data.id } },
    body: { input: {} },
  });
  const runId = run.data!.data.execution_id;
  const parked = await t.throwsAsync(sb.runs.wait(runId));
  t.like(parked, { code: 'run_parked' });
  const pending = await sb.approvals.list();
  t.is(pending.data.length, 1);
  const approval = pending.data[0]!;
  t.like(approval, { agent_id: agentId, workflow_execution_id: runId, step_id: 'ask' });
  t.true(
    parked!.message.includes(`await sb.approvals.approve('${approval.execution_id}')`),
    parked!.message,
  );
  const decided = await sb.approvals.approve(approval.execution_id, { reason: 'fine' });
  t.like(decided, { status: 'completed', approval: { decision: 'approve', notes: 'fine' } });
  t.is((await sb.runs.wait(runId)).status, 'completed');
  const again = await t.throwsAsync(sb.approvals.reject(approval.execution_id));
  t.like(again, { name: 'SvcError', code: 'conflict', status: 409 });
});

test('the svc CLI against the sandbox, called with execFile (async) and sb.env', async (t) => {
  await using sb = await createSandbox({ clock: '2026-01-05T09:00:00Z' });
  // Asynchronous: the daemon runs in this thread, so a synchronous call (execFileSync) would
  // wait for an answer this thread can never give.
  const { stdout } = await promisify(execFile)(process.execPath, [SVC_BIN, 'clock', '--json'], {
    env: { ...process.env, ...sb.env },
  });
  t.is((JSON.parse(stdout) as { now: string }).now, '2026-01-05T09:00:00.000Z');
});
