// svc/testing end to end in this process: a sandbox per test, the typed client, the frozen
// clock, settle, runs.wait, the receiver's signature check, faults, state, logs, stop and reaping.
import test from 'ava';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createSandbox } from '../../testing/index.js';
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
  const early = await t.throwsAsync(sb.runs.wait(executionId, { timeout: '200ms' }));
  t.regex(early.message, /is running \(at step pause\) after 200ms, not completed/);
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
