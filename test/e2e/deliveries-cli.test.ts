// Deliveries a CLI user can inspect and wait for (issue 41, "Output a script can use"):
// `svc webhooks delivery del_...` shows every attempt (time, answer, duration, injected fault,
// signature sent, start of the answer), and `retry --wait` / `replay --wait` return once the
// attempts have ended, with the outcome in the exit code: no `sleep 1` in a CI script.
import test, { type ExecutionContext } from 'ava';
import { assertExit, type CliResult } from '../helpers/daemon.js';
import { sharedDaemon } from '../helpers/setup.js';
import { startReceiver } from '../helpers/receiver.js';
import { control } from '../helpers/api.js';
import { dueTimersRun } from '../helpers/events.js';
import { apiFor, type Api } from '../helpers/workflows.js';
import type { WebhookView } from '../../shared/schemas/webhooks.js';

const d = sharedDaemon(test);

function svc(ws: string, ...args: string[]): Promise<CliResult> {
  return d.cli([...args, '--workspace', ws]);
}

async function ok(t: ExecutionContext, pending: Promise<CliResult>): Promise<CliResult> {
  const result = await pending;
  assertExit(t, result, 0);
  return result;
}

/**
 * The setup of these tests goes over REST and the control channel, as the CLI commands that do
 * the same send it (`svc webhooks create|update`, `svc events trigger`, `svc faults add`, `svc
 * webhooks deliveries`: each tested in its own file); the subjects here are delivery, retry and
 * replay.
 */
async function rest(ws: string): Promise<Api> {
  return apiFor(d, ws);
}

/** A webhook on agent.updated, as `svc webhooks create --url URL --events agent.updated` makes it. */
async function createHook(
  ws: string,
  url: string,
  settings?: Record<string, unknown>,
): Promise<WebhookView> {
  const created = await (
    await rest(ws)
  )('POST', '/webhooks', {
    url,
    events: ['agent.updated'],
    ...(settings ? { settings } : {}),
  });
  if (created.status !== 201) throw new Error(`create webhook: ${JSON.stringify(created.body)}`);
  return created.body.data as WebhookView;
}

/** PATCH /webhooks/ID, as `svc webhooks update` sends it. */
async function updateHook(ws: string, hookId: string, body: Record<string, unknown>) {
  const updated = await (await rest(ws))('PATCH', `/webhooks/${hookId}`, body);
  if (updated.status !== 200) throw new Error(`update webhook: ${JSON.stringify(updated.body)}`);
}

/** Publishes agent.updated once and waits until the webhook's `count` deliveries had an attempt. */
async function publishAndAttempt(ws: string, hookId: string, count: number): Promise<any[]> {
  await control(d, 'events.trigger', { workspace_id: ws, type: 'agent.updated' });
  const api = await rest(ws);
  for (let tries = 0; tries < 100; tries++) {
    await dueTimersRun(d);
    const list = (await api('GET', `/webhooks/${hookId}/deliveries`)).body;
    if (list.data.length === count && list.data.every((x: any) => x.attempts >= 1))
      return list.data;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the deliveries did not have their first attempt');
}

test('webhooks delivery shows every attempt; retry --wait exits 1 unless the receiver took it', async (t) => {
  const ws = await d.createWorkspace('delivery-attempts');
  const receiver = await startReceiver(t);
  const hook = await createHook(ws, receiver.url);
  const fault = await control<{ id: string }>(d, 'faults.add', {
    workspace_id: ws,
    webhook_id: hook.id,
    attempts_from: 1,
    attempts_to: 1,
    status: 503,
  });
  const [delivery] = await publishAndAttempt(ws, hook.id, 1);
  const deliveryId = delivery.id as string;

  receiver.failNext(1, 500);
  const failed = await svc(ws, 'webhooks', 'retry', deliveryId, '--wait');
  assertExit(t, failed, 1);
  t.regex(failed.stdout, /^attempt 2 {2}\S+ {2}HTTP 500 in \S+$/m);
  t.regex(failed.stdout, /^ {2}answer: {4}\{"received":false\}$/m);
  t.regex(failed.stderr, new RegExp(`See every attempt with: svc webhooks delivery ${deliveryId}`));

  const delivered = await ok(t, svc(ws, 'webhooks', 'retry', deliveryId, '--wait', '--json'));
  t.like(delivered.json(), { id: deliveryId, status: 'delivered', attempts: 3 });

  const shown = await ok(t, svc(ws, 'webhooks', 'delivery', deliveryId, '--json'));
  const attempts = shown.json().attempts_history;
  t.is(attempts.length, 3);
  t.like(attempts[0], { attempt: 1, http_status: 503, injected_fault: fault.id });
  const answered500 = receiver.requests.find((request) => request.answeredWith === 500)!;
  t.like(attempts[1], {
    attempt: 2,
    http_status: 500,
    injected_fault: null,
    response_head: '{"received":false}',
    signature: answered500.header('x-svc-signature'),
  });
  t.like(attempts[2], { attempt: 3, http_status: 200, response_head: '{"received":true}' });
  t.regex(attempts[2].signature, /^t=\d+,v1=[0-9a-f]{64}$/);
  for (const attempt of attempts) t.is(typeof attempt.response_time_ms, 'number');

  const withHook = await ok(t, svc(ws, 'webhooks', 'delivery', hook.id, deliveryId, '--json'));
  t.deepEqual(withHook.json(), shown.json(), 'the webhook id may be given too');

  const human = await ok(t, svc(ws, 'webhooks', 'delivery', deliveryId));
  t.regex(human.stdout, new RegExp(`^${deliveryId} delivered at \\S+$`, 'm'));
  t.regex(human.stdout, new RegExp(`^webhook: {2}${hook.id}$`, 'm'));
  t.regex(
    human.stdout,
    new RegExp(`^attempt 1 {2}\\S+ {2}HTTP 503 in \\S+ {2}injected by fault ${fault.id}$`, 'm'),
  );
  t.regex(human.stdout, /^attempt 2 {2}\S+ {2}HTTP 500 in \S+$/m);
  t.regex(human.stdout, /^ {2}error: {5}The receiver answered HTTP 500\.$/m);
  t.regex(human.stdout, /^attempt 3 {2}\S+ {2}HTTP 200 in \S+$/m);
  t.regex(human.stdout, /^ {2}signature: t=\d+,v1=[0-9a-f]{64}$/m);
  t.regex(human.stdout, /^ {2}answer: {4}\{"received":true\}$/m);

  const missing = await svc(ws, 'webhooks', 'delivery', 'del_nope');
  assertExit(t, missing, 1);
  t.regex(
    missing.stderr,
    new RegExp(`No delivery del_nope in workspace ${ws} \\(from --workspace; choose another`),
  );
  const hookAlone = await svc(ws, 'webhooks', 'delivery', hook.id);
  assertExit(t, hookAlone, 2);
  t.regex(hookAlone.stderr, new RegExp(`svc webhooks deliveries ${hook.id}`));
});

test('replay --wait returns once the replayed deliveries had their attempt, with the outcome', async (t) => {
  const ws = await d.createWorkspace('delivery-replay-wait');
  const receiver = await startReceiver(t);
  receiver.respondWith(500);
  // One attempt each: a delivery fails, and its webhook with it (resumed for the next event).
  const hook = await createHook(ws, receiver.url, { retry_policy: { max_attempts: 1 } });
  for (let count = 1; count <= 3; count++) {
    await publishAndAttempt(ws, hook.id, count);
    await updateHook(ws, hook.id, { status: 'active' });
  }

  receiver.respondWith(200);
  const before = receiver.requests.length;
  const replay = await ok(t, svc(ws, 'webhooks', 'replay', hook.id, '--wait', '--json'));
  t.is(receiver.requests.length - before, 3, 'the three attempts had happened when it returned');
  const answer = replay.json();
  t.like(answer, {
    count: 3,
    outcome: { delivered: 3, failed: 0, pending: 0, held: 0, webhook_status: 'active' },
  });
  t.is(answer.outcome.deliveries.length, 3);
  for (const delivery of answer.outcome.deliveries)
    t.like(delivery, { status: 'delivered', attempts: 1, http_status: 200 });

  // Attempts left but the receiver fails: each is pending with its next attempt scheduled.
  await updateHook(ws, hook.id, { settings: { retry_policy: { max_attempts: 3 } } });
  receiver.respondWith(503);
  const failing = await svc(
    ws,
    'webhooks',
    'replay',
    hook.id,
    '--status',
    'all',
    '--wait',
    '--list',
  );
  assertExit(t, failing, 1);
  t.regex(failing.stdout, /^Replayed 3 event\(s\) to hook_\w+/);
  t.regex(
    failing.stdout,
    /^Outcome: 0 delivered, 0 failed, 3 pending \(attempted, next attempt scheduled\)$/m,
  );
  t.regex(failing.stdout, /NOW/);
  t.regex(failing.stdout, /pending \(HTTP 503\)/);
  t.regex(failing.stderr, /See its attempts with: svc webhooks delivery del_\w+/);

  const dry = await svc(ws, 'webhooks', 'replay', hook.id, '--dry-run', '--wait');
  assertExit(t, dry, 2);
  t.regex(dry.stderr, /--dry-run sends nothing, so --wait has nothing to wait for/);
});
