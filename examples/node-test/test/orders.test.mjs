// svc/testing with node:test: each test gets a sandbox of its own (a whole svc daemon in this
// process, its clock frozen at a fixed time) and stops it when the test ends.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, verifySignature } from 'svc/testing';

/** A fresh sandbox for one test, stopped when the test ends. */
async function sandbox(t) {
  const sb = await createSandbox({ clock: '2026-01-05T09:00:00Z' });
  t.after(() => sb.stop());
  return sb;
}

/** Creates an active workflow from its steps; answers its id. */
async function workflow(sb, steps, settings = {}) {
  const { data, error } = await sb.api.POST('/v1/workflows', {
    body: { name: 'Orders', status: 'active', steps, settings },
  });
  assert.equal(error, undefined, JSON.stringify(error));
  return data.data.id;
}

/** Starts a run without waiting for it; answers its execution id. */
async function start(sb, workflowId, input = {}) {
  const { data, error } = await sb.api.POST('/v1/workflows/{workflow_id}/execute', {
    params: { path: { workflow_id: workflowId } },
    body: { input, wait_for_completion: false },
  });
  assert.equal(error, undefined, JSON.stringify(error));
  return data.data.execution_id;
}

test('a step retries through an injected 503 and completes', async (t) => {
  const sb = await sandbox(t);
  const hook = await sb.receiver();
  const flow = await workflow(
    sb,
    [{ id: 'charge', name: 'Charge', type: 'webhook', config: { url: hook.url, method: 'POST' } }],
    { retry_policy: { max_attempts: 3 } },
  );
  await sb.faults.add({
    workflow_id: flow,
    step_id: 'charge',
    attempts_from: 1,
    attempts_to: 1,
    status: 503,
  });
  const run = await start(sb, flow, { order_id: 'A-1' });
  await sb.settle(); // the first attempt has failed; its retry waits on the sandbox clock
  await sb.clock.advance('1m');
  const done = await sb.runs.wait(run, { status: 'completed', timeout: '10s' });
  assert.deepEqual(
    done.step_results.map((step) => [step.attempt, step.status]),
    [
      [1, 'failed'],
      [2, 'completed'],
    ],
  );
  assert.equal(hook.all().length, 1, 'the injected 503 never reached the receiver');
});

test('a 15-minute wait is skipped with the clock', async (t) => {
  const sb = await sandbox(t);
  const flow = await workflow(sb, [
    { id: 'pause', name: 'Pause', type: 'wait', config: { duration_seconds: 900 } },
  ]);
  const run = await start(sb, flow);
  // Parked on the frozen clock: refused at once, with what moves it on.
  await assert.rejects(
    sb.runs.wait(run, { timeout: '200ms' }),
    /parked on the frozen sandbox clock: step pause wakes at .*sb\.clock\.advance\('15m'\)/,
  );
  await sb.clock.advance('15m');
  const done = await sb.runs.wait(run, { status: 'completed', timeout: '10s' });
  assert.equal(done.status, 'completed');
});

test('a delivery is awaited, its signature verified, and a redelivery awaited', async (t) => {
  const sb = await sandbox(t);
  const hook = await sb.receiver();
  const created = await sb.api.POST('/v1/webhooks', {
    body: { url: hook.url, events: ['workflow.execution.completed'] },
  });
  const webhook = created.data.data;
  const flow = await workflow(sb, [
    { id: 'pause', name: 'Pause', type: 'wait', config: { duration_seconds: 0 } },
  ]);
  const run = await start(sb, flow);
  const delivery = await hook.next({ type: 'workflow.execution.completed', timeout: '10s' });
  assert.equal(delivery.body.data.execution_id, run);
  assert.equal(delivery.signature.valid, true); // checked by the receiver...
  const signature = delivery.headers['x-svc-signature'];
  // ...and the way your own receiver would, with the secret from the create answer.
  assert.equal(verifySignature(delivery.rawBody, signature, webhook.secret).valid, true);

  await sb.api.POST('/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/retry', {
    params: { path: { webhook_id: webhook.id, delivery_id: delivery.deliveryId } },
  });
  const again = await hook.next({
    filter: (request) => request.eventId === delivery.eventId,
    timeout: '10s',
  });
  assert.equal(again.deliveryId, delivery.deliveryId);
  assert.equal(again.signature.valid, true);
  await sb.settle({ timeout: '10s' });
});

test('an approval is decided and the run goes on', async (t) => {
  const sb = await sandbox(t);
  const agent = await sb.api.POST('/v1/agents', {
    body: {
      name: 'Reviewer',
      ontology: 'retail-v1',
      type: 'customer-service',
      autonomy_level: 'L2',
    },
  });
  const agentId = agent.data.data.id;
  await sb.api.POST('/v1/agents/deploy', { body: { agent_id: agentId } });
  const flow = await workflow(sb, [
    {
      id: 'ask',
      name: 'Ask',
      type: 'agent_action',
      agent_id: agentId,
      config: { action: 'refund' },
    },
  ]);
  const run = await start(sb, flow);
  await sb.runs.wait(run, { status: 'awaiting_approval', timeout: '10s' });
  // The approvals waiting in the sandbox (svc approvals): the run's one, decided by its id.
  const pending = await sb.approvals.list();
  assert.deepEqual(
    pending.data.map((approval) => approval.step_id),
    ['ask'],
  );
  const decided = await sb.approvals.approve(pending.data[0].execution_id, { reason: 'checked' });
  assert.equal(decided.status, 'completed');
  const done = await sb.runs.wait(run, { status: 'completed', timeout: '10s' });
  assert.equal(done.status, 'completed');
});
