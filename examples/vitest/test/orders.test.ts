// svc/testing with vitest: each test gets a sandbox of its own (a whole svc daemon in this
// process, its clock frozen at a fixed time), stopped when the test ends. sb.api is typed from
// svc's OpenAPI document: paths, bodies and answers are checked by TypeScript.
import { expect, onTestFinished, test } from 'vitest';
import type { operations } from 'svc/client';
import { createSandbox, verifySignature, type Sandbox } from 'svc/testing';

type NewWorkflow = operations['createWorkflow']['requestBody']['content']['application/json'];

/** A fresh sandbox for this test, stopped when it ends. */
async function sandbox(): Promise<Sandbox> {
  const sb = await createSandbox({ clock: '2026-01-05T09:00:00Z' });
  onTestFinished(() => sb.stop());
  return sb;
}

/** Creates an active workflow; answers its id. */
async function workflow(
  sb: Sandbox,
  steps: NewWorkflow['steps'],
  settings: NewWorkflow['settings'] = {},
): Promise<string> {
  const { data, error } = await sb.api.POST('/v1/workflows', {
    body: { name: 'Orders', status: 'active', steps, settings },
  });
  if (!data) throw new Error(JSON.stringify(error));
  return data.data.id;
}

/** Starts a run without waiting for it; answers its execution id. */
async function start(sb: Sandbox, workflowId: string, input = {}): Promise<string> {
  const { data, error } = await sb.api.POST('/v1/workflows/{workflow_id}/execute', {
    params: { path: { workflow_id: workflowId } },
    body: { input, wait_for_completion: false },
  });
  if (!data) throw new Error(JSON.stringify(error));
  return data.data.execution_id;
}

test('a step retries through an injected 503 and completes', async () => {
  const sb = await sandbox();
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
  expect(done.step_results.map((step) => [step.attempt, step.status])).toEqual([
    [1, 'failed'],
    [2, 'completed'],
  ]);
  expect(hook.all()).toHaveLength(1); // the injected 503 never reached the receiver
});

test('a 15-minute wait is skipped with the clock', async () => {
  const sb = await sandbox();
  const flow = await workflow(sb, [
    { id: 'pause', name: 'Pause', type: 'wait', config: { duration_seconds: 900 } },
  ]);
  const run = await start(sb, flow);
  await expect(sb.runs.wait(run, { timeout: '200ms' })).rejects.toThrow(
    /parked on the frozen sandbox clock: step pause wakes at .*sb\.clock\.advance\('15m'\)/,
  );
  await sb.clock.advance('15m');
  const done = await sb.runs.wait(run, { status: 'completed', timeout: '10s' });
  expect(done.status).toBe('completed');
});

test('a delivery is awaited, its signature verified, and a replay awaited', async () => {
  const sb = await sandbox();
  const hook = await sb.receiver();
  const created = await sb.api.POST('/v1/webhooks', {
    body: { url: hook.url, events: ['workflow.execution.completed'] },
  });
  const webhook = created.data!.data;
  const flow = await workflow(sb, [
    { id: 'pause', name: 'Pause', type: 'wait', config: { duration_seconds: 0 } },
  ]);
  const run = await start(sb, flow);
  const delivery = await hook.next({ type: 'workflow.execution.completed', timeout: '10s' });
  expect(delivery.body.data.execution_id).toBe(run);
  expect(delivery.signature?.valid).toBe(true); // checked by the receiver...
  // ...and the way your own receiver would, with the secret from the create answer.
  const signature = String(delivery.headers['x-svc-signature']);
  expect(verifySignature(delivery.rawBody, signature, webhook.secret!).valid).toBe(true);

  // The delivery sent again (same delivery and event id, signed anew), awaited at the receiver.
  await sb.api.POST('/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/retry', {
    params: { path: { webhook_id: webhook.id, delivery_id: delivery.deliveryId! } },
  });
  const again = await hook.next({
    filter: (request) => request.eventId === delivery.eventId,
    timeout: '10s',
  });
  expect(again.deliveryId).toBe(delivery.deliveryId);
  expect(again.signature?.valid).toBe(true);
  await sb.settle({ timeout: '10s' });
});

test('an approval is decided and the run goes on', async () => {
  const sb = await sandbox();
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
  expect(pending.data.map((approval) => approval.step_id)).toEqual(['ask']);
  const decided = await sb.approvals.approve(pending.data[0]!.execution_id, { reason: 'checked' });
  expect(decided.status).toBe('completed');
  const done = await sb.runs.wait(run, { status: 'completed', timeout: '10s' });
  expect(done.status).toBe('completed');
});
