// Webhook deliveries end to end (spec Events, decisions §9 and §10 "Deliveries"): a real daemon
// POSTs signed event envelopes to a real local receiver. Signatures are checked with an HMAC
// written here from the spec's text, not with the product's helper. Retries follow the spec's
// schedule on the sandbox clock; the delivery log, manual retry and the test endpoint.
// The tests that move the clock are serial (ava runs them before the concurrent ones); the
// concurrent ones never move it.
import test, { type ExecutionContext } from 'ava';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { TestDaemon } from '../helpers/daemon.js';
import { sharedDaemon } from '../helpers/setup.js';
import { startReceiver, type ReceivedRequest, type Receiver } from '../helpers/receiver.js';
import type { EventEnvelope as Envelope } from '../../shared/schemas/events.js';
import type {
  WebhookView,
  DeliveryView as Delivery,
  DeliveryDetailView as DeliveryDetail,
} from '../../shared/schemas/webhooks.js';
import { assertFirstPage, control } from '../helpers/api.js';
import { dueTimersRun } from '../helpers/events.js';

/** The create response: the only one that carries the signing secret. */
type Webhook = WebhookView & Required<Pick<WebhookView, 'secret'>>;

type Answer = Awaited<ReturnType<TestDaemon['request']>>;

const MINUTE = 60_000;
/** A receiver's answer held this long never comes within a test. */
const HOLD_MS = 600_000;

const daemon = sharedDaemon(test);
let key: string;

test.before(async () => {
  ({ key } = await daemon.operator());
});

// --- the receiver's side of the contract, written from the spec's text ---------------------

/** Lowercase hex HMAC-SHA256 of `<t>.<raw body>`, keyed by the whole secret string. */
function sign(secret: string, timestamp: number, rawBody: Buffer | string): string {
  const payload = Buffer.concat([Buffer.from(`${timestamp}.`, 'utf8'), Buffer.from(rawBody)]);
  return createHmac('sha256', secret).update(payload).digest('hex');
}

/**
 * Verifies `t=<unix>,v1=<hex>[,v1=...]`: one v1 must equal our HMAC (constant-time compare)
 * and the timestamp must not be older than 300 s (nor further than 300 s ahead).
 */
function verify(
  rawBody: Buffer | string,
  header: string | undefined,
  secret: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  if (!header) return false;
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [name, value] = part.trim().split('=');
    if (name === 't' && value && /^\d+$/.test(value)) timestamp = Number(value);
    if (name === 'v1' && value && /^[0-9a-f]{64}$/.test(value)) signatures.push(value);
  }
  if (timestamp === undefined || signatures.length === 0) return false;
  if (Math.abs(nowSeconds - timestamp) > 300) return false;
  const expected = Buffer.from(sign(secret, timestamp, rawBody), 'hex');
  return signatures.some((candidate) => timingSafeEqual(Buffer.from(candidate, 'hex'), expected));
}

function signatureTime(request: ReceivedRequest): number {
  const match = /^t=(\d+),/.exec(request.header('x-svc-signature') ?? '');
  if (!match) throw new Error(`no t= in ${request.header('x-svc-signature')}`);
  return Number(match[1]);
}

// --- helpers --------------------------------------------------------------------------------

/**
 * One workspace per test, so that concurrent tests never see each other's events: webhooks,
 * events and deliveries of the workspace, through the operator credential.
 */
class Tenant {
  constructor(readonly id: string) {}

  static async create(name = 'Deliveries'): Promise<Tenant> {
    return new Tenant(await daemon.createWorkspace(name));
  }

  call(method: string, path: string, body?: unknown): Promise<Answer> {
    return daemon.callJson(method, path, body, { key, tenant: this.id });
  }

  async createHook(
    receiver: Receiver,
    events: string[],
    settings?: Record<string, unknown>,
  ): Promise<Webhook> {
    const answer = await this.call('POST', '/v1/webhooks', {
      url: receiver.url,
      events,
      ...(settings ? { settings } : {}),
    });
    if (answer.status !== 201) throw new Error(`create webhook: ${answer.status} ${answer.text}`);
    return answer.body.data as Webhook;
  }

  /** Publishes a sample event over the control channel (what `svc events trigger` does). */
  async publish(type: string): Promise<Envelope> {
    return control<Envelope>(daemon, 'events.trigger', { type, workspace_id: this.id });
  }

  /** `svc events trigger TYPE` in this workspace, as a user would publish one. */
  async publishByCli(t: ExecutionContext, type: string): Promise<Envelope> {
    const triggered = await daemon.cli([
      'events',
      'trigger',
      type,
      '--workspace',
      this.id,
      '--json',
    ]);
    t.is(triggered.code, 0, triggered.stderr);
    return triggered.json<Envelope>();
  }

  async getHook(id: string): Promise<Webhook> {
    const answer = await this.call('GET', `/v1/webhooks/${id}`);
    if (answer.status !== 200) throw new Error(`get webhook: ${answer.status} ${answer.text}`);
    return answer.body.data as Webhook;
  }

  listDeliveries(hookId: string, query = ''): Promise<Answer> {
    return this.call('GET', `/v1/webhooks/${hookId}/deliveries${query}`);
  }

  /**
   * The webhook's one delivery with its attempts, read once every due attempt has run (a
   * delivery attempt is a timer; the barrier returns when the due ones have all finished).
   */
  async onlyDelivery(hookId: string): Promise<DeliveryDetail> {
    await dueTimersRun(daemon);
    const list = await this.listDeliveries(hookId);
    if (list.status !== 200 || list.body.data.length !== 1) {
      throw new Error(`expected one delivery: ${list.status} ${list.text}`);
    }
    const detail = await this.call(
      'GET',
      `/v1/webhooks/${hookId}/deliveries/${list.body.data[0].id}`,
    );
    if (detail.status !== 200) throw new Error(`delivery detail: ${detail.text}`);
    return detail.body.data as DeliveryDetail;
  }
}

/** A fresh workspace, a receiver and a webhook on `events` to it. */
async function hookedTenant(
  t: ExecutionContext,
  events: string[],
  settings?: Record<string, unknown>,
) {
  const w = await Tenant.create();
  const receiver = await startReceiver(t);
  const hook = await w.createHook(receiver, events, settings);
  return { w, receiver, hook };
}

/**
 * Moves the daemon clock and returns once what fell due has run: the control call `svc clock
 * advance` makes (clock.advance), without a CLI process (the command is tested in cli-operator).
 */
async function advance(duration: string): Promise<void> {
  await daemon.advance(duration);
}

/**
 * How far before a due attempt the test looks for it not having come yet. The sandbox clock
 * also runs in real time, so it is counted from the daemon's clock read just before the move
 * (advanceTo), not from the last attempt: a loaded machine spent over 30 s between an attempt
 * and the next move, and the attempt was due before the test looked.
 */
const EARLY_MS = 30_000;

/** Moves the daemon clock to `time` (epoch ms), from where its clock is now. */
async function advanceTo(time: number): Promise<void> {
  const now = Date.parse((await control<{ now: string }>(daemon, 'clock.show')).now);
  await daemon.advance(Math.max(0, time - now));
}

/**
 * Waits until `count` requests arrived, then until every attempt due by now has run (the
 * daemon's timers, see dueTimersRun): an extra request would have arrived by then.
 */
async function expectCount(
  t: ExecutionContext,
  receiver: Receiver,
  count: number,
  message: string,
): Promise<void> {
  const arrived = await receiver.waitFor((all) => all.length >= count);
  t.true(arrived, `${message}: got ${receiver.requests.length}, expected ${count}`);
  await dueTimersRun(daemon);
  t.is(receiver.requests.length, count, `${message}: no extra request`);
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

// --- serial: tests that move the sandbox clock ----------------------------------------------

test.serial(
  'a failing receiver is retried after 1 min, 5 min, 15 min, 1 h; then delivery and webhook fail',
  async (t) => {
    const { w, receiver, hook } = await hookedTenant(t, ['agent.created']);
    receiver.respondWith(500);
    const event = await w.publishByCli(t, 'agent.created');

    await expectCount(t, receiver, 1, 'first attempt is immediate');
    let delivery = await w.onlyDelivery(hook.id);
    t.like(delivery, { status: 'pending', attempts: 1, http_status: 500, event_id: event.id });
    t.is(typeof delivery.error, 'string');
    t.is(Date.parse(delivery.next_attempt_at!) - Date.parse(delivery.last_attempt_at!), MINUTE);

    const delays = [MINUTE, 5 * MINUTE, 15 * MINUTE, 60 * MINUTE];
    for (const attempt of [2, 3, 4, 5]) {
      const due = Date.parse(delivery.next_attempt_at!);
      await advanceTo(due - EARLY_MS);
      await expectCount(t, receiver, attempt - 1, `30 s before attempt ${attempt} is due`);
      await advanceTo(due);
      await expectCount(t, receiver, attempt, `attempt ${attempt} is due`);
      delivery = await w.onlyDelivery(hook.id);
      t.is(delivery.attempts, attempt);
      if (attempt < 5) {
        t.is(delivery.status, 'pending');
        t.is(
          Date.parse(delivery.next_attempt_at!) - Date.parse(delivery.last_attempt_at!),
          delays[attempt - 1]!,
          `delay after attempt ${attempt}`,
        );
      }
    }

    t.is(delivery.status, 'failed', 'exhausted after 5 attempts');
    t.is(delivery.next_attempt_at, null);
    t.is(delivery.http_status, 500);
    t.deepEqual(
      delivery.attempts_history.map((a) => [a.attempt, a.http_status]),
      [1, 2, 3, 4, 5].map((n) => [n, 500]),
    );
    for (const attempt of delivery.attempts_history) {
      t.regex(attempt.attempted_at, ISO);
      t.is(typeof attempt.response_time_ms, 'number');
      t.true(typeof attempt.error === 'string' && attempt.error.length > 0);
    }
    const gaps = delivery.attempts_history
      .slice(1)
      .map(
        (a, i) =>
          Date.parse(a.attempted_at) - Date.parse(delivery.attempts_history[i]!.attempted_at),
      );
    gaps.forEach((gap, i) => {
      t.true(gap >= delays[i]!, `gap ${i + 1} (${gap} ms) is at least ${delays[i]} ms`);
      t.true(gap < delays[i]! + MINUTE, `gap ${i + 1} (${gap} ms) is not much longer`);
    });

    const failedHook = await w.getHook(hook.id);
    t.is(failedHook.status, 'failed');
    t.regex(failedHook.stats.last_failure_at ?? '', ISO);
    t.is(failedHook.stats.total_deliveries, 1);
    t.is(failedHook.stats.success_rate, 0);
    const listedFailed = await w.call('GET', '/v1/webhooks?status=failed');
    t.true(listedFailed.body.data.some((item: Webhook) => item.id === hook.id));

    // Every attempt was the same event, the same delivery, freshly signed.
    for (const request of receiver.requests) {
      t.is(request.method, 'POST');
      t.is(request.header('x-svc-event-id'), event.id);
      t.is(request.header('x-svc-delivery-id'), delivery.id);
      t.is(request.json<Envelope>().id, event.id);
      t.true(verify(request.rawBody, request.header('x-svc-signature'), hook.secret));
    }

    await advance('2h');
    await expectCount(t, receiver, 5, 'no attempt after the webhook failed');

    // PATCH back to active resumes the webhook: new events are delivered again.
    receiver.respondWith(200);
    const resumed = await w.call('PATCH', `/v1/webhooks/${hook.id}`, { status: 'active' });
    t.is(resumed.status, 200, resumed.text);
    t.is(resumed.body.data.status, 'active');
    const next = await w.publish('agent.created');
    t.true(
      await receiver.waitFor((all) => all.some((r) => r.header('x-svc-event-id') === next.id)),
      'a resumed webhook receives new events',
    );
    t.is(
      (await w.call('GET', `/v1/webhooks/${hook.id}/deliveries/${delivery.id}`)).body.data.status,
      'failed',
    );

    // The exhausted delivery can still be redelivered by hand: same event id.
    const retried = await w.call('POST', `/v1/webhooks/${hook.id}/deliveries/${delivery.id}/retry`);
    t.is(retried.status, 200, retried.text);
    t.like(retried.body.data, {
      id: delivery.id,
      status: 'delivered',
      attempts: 6,
      http_status: 200,
    });
    t.is(retried.body.data.attempts_history.length, 6);
    const last = receiver.requests.at(-1)!;
    t.is(last.header('x-svc-event-id'), event.id);
    t.is(last.header('x-svc-delivery-id'), delivery.id);
    t.is(last.json<Envelope>().id, event.id);
    t.true(verify(last.rawBody, last.header('x-svc-signature'), hook.secret));
  },
);

test.serial(
  'max_attempts 2 fails the delivery and the webhook after the second attempt',
  async (t) => {
    const { w, receiver, hook } = await hookedTenant(t, ['workflow.created'], {
      retry_policy: { max_attempts: 2 },
    });
    receiver.respondWith(503);
    await w.publish('workflow.created');
    await expectCount(t, receiver, 1, 'first attempt');
    t.is((await w.onlyDelivery(hook.id)).status, 'pending');

    await advance('1m');
    await expectCount(t, receiver, 2, 'second attempt after 1 min');
    const delivery = await w.onlyDelivery(hook.id);
    t.like(delivery, { status: 'failed', attempts: 2, http_status: 503, next_attempt_at: null });
    const failed = await w.getHook(hook.id);
    t.is(failed.status, 'failed');
    t.regex(failed.stats.last_failure_at ?? '', ISO);

    await advance('5m');
    await expectCount(t, receiver, 2, 'no third attempt');
  },
);

test.serial(
  'a paused webhook holds a pending retry; PATCH status active sends it at once',
  async (t) => {
    const { w, receiver, hook } = await hookedTenant(t, ['agent.deleted']);
    receiver.failNext(1, 500);
    const event = await w.publish('agent.deleted');
    await expectCount(t, receiver, 1, 'first attempt fails');

    const paused = await w.call('PATCH', `/v1/webhooks/${hook.id}`, { status: 'paused' });
    t.is(paused.body.data.status, 'paused');
    await advance('2m');
    await expectCount(t, receiver, 1, 'nothing is sent while paused');
    t.is((await w.onlyDelivery(hook.id)).status, 'pending');

    const resumed = await w.call('PATCH', `/v1/webhooks/${hook.id}`, { status: 'active' });
    t.is(resumed.body.data.status, 'active');
    await expectCount(t, receiver, 2, 'the held delivery goes out on resume');
    const second = receiver.requests[1]!;
    t.is(second.header('x-svc-event-id'), event.id);
    t.is(second.answeredWith, 200);
    const delivery = await w.onlyDelivery(hook.id);
    t.like(delivery, { status: 'delivered', attempts: 2, http_status: 200 });
  },
);

// --- concurrent: no clock moves from here on ------------------------------------------------

test('an event reaches the receiver as a signed POST of the envelope with the X-Svc headers', async (t) => {
  const { w, receiver, hook } = await hookedTenant(t, ['agent.created', 'agent.updated']);
  t.regex(hook.secret, /^whsec_/);

  const sentFrom = Math.floor(Date.now() / 1000);
  const event = await w.publishByCli(t, 'agent.created');
  const [request] = await receiver.waitForCount(1);
  const received = request!;

  t.is(received.method, 'POST');
  t.is(received.path, '/hooks');
  t.regex(received.header('content-type') ?? '', /^application\/json/);
  t.is(received.header('x-svc-event-id'), event.id);
  t.is(received.header('x-svc-event-type'), 'agent.created');
  t.regex(received.header('x-svc-delivery-id') ?? '', /^del_/);
  const header = received.header('x-svc-signature') ?? '';
  t.regex(header, /^t=\d+,v1=[0-9a-f]{64}$/);

  // The body is the envelope, exactly as stored.
  const body = received.json<Envelope>();
  t.deepEqual(Object.keys(body).sort(), ['created_at', 'data', 'id', 'type', 'workspace_id']);
  t.like(body, { id: event.id, type: 'agent.created', workspace_id: w.id });
  t.deepEqual(body, event);
  const stored = await w.call('GET', `/v1/events/${event.id}`);
  t.deepEqual(body, stored.body.data);

  // t is the real time of sending: after the publish began, not after the receiver got it
  // (bracketed by the test's own clock readings, however long the machine took between them).
  const t0 = signatureTime(received);
  t.true(
    t0 >= sentFrom && t0 * 1000 <= received.receivedAt,
    `t=${t0} is within the publish (${sentFrom}) .. arrival (${received.receivedAt} ms)`,
  );

  // Our own verification: good as received, bad when anything changes.
  t.true(verify(received.rawBody, header, hook.secret), 'the signature verifies');
  t.is(header.split('v1=')[1], sign(hook.secret, t0, received.body));
  const tampered = received.body.replace('agent.created', 'agent.deleted');
  t.not(tampered, received.body);
  t.false(verify(tampered, header, hook.secret), 'a tampered body fails');
  t.false(verify(received.body + ' ', header, hook.secret), 'an extra byte fails');
  t.false(
    verify(received.rawBody, header, hook.secret.replace(/^whsec_/, '')),
    'the whole secret is the key',
  );
  t.false(verify(received.rawBody, header, `${hook.secret}x`), 'a wrong secret fails');
  t.true(verify(received.rawBody, header, hook.secret, t0 + 299), 'still fresh after 299 s');
  t.false(verify(received.rawBody, header, hook.secret, t0 + 301), 'older than 300 s fails');
  const stale = t0 - 400;
  t.false(
    verify(
      received.rawBody,
      `t=${stale},v1=${sign(hook.secret, stale, received.rawBody)}`,
      hook.secret,
    ),
    'a correctly signed but stale timestamp fails',
  );

  const delivery = (await w.listDeliveries(hook.id)).body.data[0] as Delivery;
  t.is(received.header('x-svc-delivery-id'), delivery.id);
});

test('integration.connected reaches a subscribed webhook without the credentials', async (t) => {
  const { w, receiver, hook } = await hookedTenant(t, [
    'integration.connected',
    'integration.disconnected',
  ]);
  const connected = await w.call('POST', '/v1/integrations', {
    provider: 'slack',
    name: 'Support Slack',
    config: { channel: '#support' },
    credentials: { bot_token: 'xoxb-very-secret-value' },
  });
  t.is(connected.status, 201, connected.text);
  const integration = connected.body.data as { id: string };

  const [request] = await receiver.waitForCount(1);
  const body = request!.json<Envelope>();
  t.is(body.type, 'integration.connected');
  t.is(request!.header('x-svc-event-type'), 'integration.connected');
  t.is(body.data.id, integration.id);
  t.false(request!.body.includes('xoxb-very-secret-value'), 'credentials are never sent');
  t.true(verify(request!.rawBody, request!.header('x-svc-signature'), hook.secret));

  const removed = await w.call('DELETE', `/v1/integrations/${integration.id}`);
  t.is(removed.status, 200, removed.text);
  await receiver.waitForCount(2);
  const second = receiver.requests[1]!.json<Envelope>();
  t.is(second.type, 'integration.disconnected');
  t.not(second.id, body.id);
});

test('only subscribed event types are delivered, and only for the own workspace', async (t) => {
  const { w, receiver, hook } = await hookedTenant(t, ['workflow.updated']);
  const other = await Tenant.create('Elsewhere');

  await w.publish('agent.created');
  await w.publish('workflow.created');
  await w.publish('workflow.execution.completed');
  await other.publish('workflow.updated');
  const wanted = await w.publish('workflow.updated');
  await expectCount(t, receiver, 1, 'only workflow.updated of this workspace');
  t.is(receiver.requests[0]!.header('x-svc-event-id'), wanted.id);
  t.is(receiver.requests[0]!.header('x-svc-event-type'), 'workflow.updated');
  const list = await w.listDeliveries(hook.id);
  t.is(list.body.total_count, 1);
});

test('a paused webhook gets nothing; active again, it gets new events', async (t) => {
  const w = await Tenant.create();
  const paused = await startReceiver(t);
  const control = await startReceiver(t);
  const hook = await w.createHook(paused, ['agent.execution.completed']);
  await w.createHook(control, ['agent.execution.completed']);
  const patched = await w.call('PATCH', `/v1/webhooks/${hook.id}`, { status: 'paused' });
  t.is(patched.body.data.status, 'paused');

  const event = await w.publish('agent.execution.completed');
  await control.waitForCount(1);
  t.is(control.requests[0]!.header('x-svc-event-id'), event.id);
  // Both webhooks' attempts are timers due at once: when they have run, the paused one held.
  await dueTimersRun(daemon);
  t.is(paused.requests.length, 0, 'the paused webhook got nothing');

  await w.call('PATCH', `/v1/webhooks/${hook.id}`, { status: 'active' });
  const later = await w.publish('agent.execution.completed');
  t.true(await paused.waitFor((all) => all.some((r) => r.header('x-svc-event-id') === later.id)));
});

test('a receiver slower than timeout_seconds is a failed attempt with an error', async (t) => {
  const { w, receiver, hook } = await hookedTenant(t, ['agent.execution.failed'], {
    timeout_seconds: 1,
  });
  // The receiver holds its answer past the end of the test: whatever the machine's pace, the
  // attempt can only end by the daemon's timeout (an answer at 2.5 s came first at load ~20).
  receiver.delay(HOLD_MS);
  await w.publish('agent.execution.failed');
  await receiver.waitForCount(1);

  const delivery = await w.onlyDelivery(hook.id);
  t.is(delivery.attempts, 1);
  t.is(delivery.status, 'pending', 'a timeout is retried');
  t.not(delivery.next_attempt_at, null);
  t.is(delivery.http_status, null);
  t.true(typeof delivery.error === 'string' && delivery.error.length > 0, 'error message');
  t.true(
    delivery.response_time_ms! >= 900,
    `cut at 1 s, not before: ${delivery.response_time_ms} ms`,
  );
  const [attempt] = delivery.attempts_history;
  t.like(attempt, { attempt: 1, http_status: null });
  t.is(attempt!.error, delivery.error);
  t.regex((await w.getHook(hook.id)).stats.last_failure_at ?? '', ISO);
});

test('the delivery log pages, shows attempts and the event; stats count outcomes', async (t) => {
  const { w, receiver, hook } = await hookedTenant(t, ['agent.updated'], {
    retry_policy: { max_attempts: 1 },
  });
  const events: Envelope[] = [];
  for (let i = 0; i < 4; i++) {
    events.push(await w.publish('agent.updated'));
    await receiver.waitForCount(i + 1);
  }
  // One more that fails: with max_attempts 1 it fails at once (and fails the webhook).
  receiver.failNext(1, 502);
  events.push(await w.publish('agent.updated'));
  await receiver.waitForCount(5);
  await dueTimersRun(daemon);
  const failed: Delivery | undefined = (await w.listDeliveries(hook.id, '?status=failed')).body
    .data[0];
  t.truthy(failed, 'one failed delivery');
  t.like(failed, { event_id: events[4]!.id, http_status: 502, attempts: 1, status: 'failed' });

  const all = await w.listDeliveries(hook.id);
  t.is(all.status, 200, all.text);
  t.is(all.body.total_count, 5);
  t.false(all.body.has_more);
  t.deepEqual(
    all.body.data.map((d: Delivery) => d.event_id).sort(),
    events.map((e) => e.id).sort(),
  );
  const first = await w.listDeliveries(hook.id, '?limit=2');
  assertFirstPage(t, first.body, 2, 5);
  const seen: string[] = first.body.data.map((d: Delivery) => d.id);
  let cursor: string | null = first.body.meta.next_cursor;
  while (cursor) {
    const page = await w.listDeliveries(hook.id, `?limit=2&starting_after=${cursor}`);
    t.is(page.status, 200, page.text);
    seen.push(...page.body.data.map((d: Delivery) => d.id));
    cursor = page.body.meta.next_cursor;
  }
  t.deepEqual(
    seen,
    all.body.data.map((d: Delivery) => d.id),
  );
  const delivered = await w.listDeliveries(hook.id, '?status=delivered');
  t.is(delivered.body.total_count, 4);
  t.true(delivered.body.data.every((d: Delivery) => d.status === 'delivered'));

  const one = all.body.data.find((d: Delivery) => d.status === 'delivered') as Delivery;
  const detail = await w.call('GET', `/v1/webhooks/${hook.id}/deliveries/${one.id}`);
  t.is(detail.status, 200, detail.text);
  const data = detail.body.data as DeliveryDetail;
  t.like(data, {
    id: one.id,
    webhook_id: hook.id,
    status: 'delivered',
    attempts: 1,
    http_status: 200,
  });
  t.regex(data.delivered_at ?? '', ISO);
  t.is(data.attempts_history.length, 1);
  t.like(data.attempts_history[0], { attempt: 1, http_status: 200, error: null });
  t.regex(data.attempts_history[0]!.attempted_at, ISO);
  t.is(typeof data.attempts_history[0]!.response_time_ms, 'number');
  const sent = receiver.requests.find((r) => r.header('x-svc-delivery-id') === one.id);
  t.truthy(sent);
  t.deepEqual(data.event, sent!.json());

  const stats = await w.getHook(hook.id);
  t.is(stats.stats.total_deliveries, 5);
  t.is(stats.stats.success_rate, 0.8);
  t.regex(stats.stats.last_failure_at ?? '', ISO);
  t.regex(stats.last_triggered_at ?? '', ISO);
  t.is(stats.status, 'failed', 'the one attempt allowed was used up');

  const missing = await w.call('GET', `/v1/webhooks/${hook.id}/deliveries/del_doesnotexist`);
  t.is(missing.status, 404, missing.text);
  t.is(missing.body.error.code, 'not_found');
  const otherHook = await w.createHook(receiver, ['agent.deleted']);
  const foreign = await w.call('GET', `/v1/webhooks/${otherHook.id}/deliveries/${one.id}`);
  t.is(foreign.status, 404, 'a delivery of another webhook is not found there');
  const badLimit = await w.listDeliveries(hook.id, '?limit=500');
  t.is(badLimit.status, 400);
  t.is(badLimit.body.error.param, 'limit');
});

test('POST .../retry redelivers now: same event and delivery id, a new attempt', async (t) => {
  const { w, receiver, hook } = await hookedTenant(t, ['workflow.deleted']);
  receiver.failNext(1, 500);
  const event = await w.publish('workflow.deleted');
  await receiver.waitForCount(1);
  const delivery = await w.onlyDelivery(hook.id);
  t.like(delivery, { status: 'pending', attempts: 1, http_status: 500 });

  const retried = await w.call('POST', `/v1/webhooks/${hook.id}/deliveries/${delivery.id}/retry`);
  t.is(retried.status, 200, retried.text);
  const data = retried.body.data as DeliveryDetail;
  t.like(data, {
    id: delivery.id,
    event_id: event.id,
    status: 'delivered',
    attempts: 2,
    http_status: 200,
  });
  t.deepEqual(
    data.attempts_history.map((a) => [a.attempt, a.http_status]),
    [
      [1, 500],
      [2, 200],
    ],
  );
  t.is(receiver.requests.length, 2);
  const [first, second] = receiver.requests;
  t.is(second!.header('x-svc-event-id'), event.id);
  t.is(second!.header('x-svc-delivery-id'), delivery.id);
  t.is(second!.body, first!.body, 'the same body is redelivered');
  t.true(verify(second!.rawBody, second!.header('x-svc-signature'), hook.secret));

  // Redelivering a delivered one sends it once more, still the same event.
  const again = await w.call('POST', `/v1/webhooks/${hook.id}/deliveries/${delivery.id}/retry`);
  t.is(again.status, 200, again.text);
  t.is(again.body.data.status, 'delivered');
  await receiver.waitForCount(3);
  t.is(receiver.requests[2]!.json<Envelope>().id, event.id);
  const stats = await w.getHook(hook.id);
  t.is(stats.stats.success_rate, 1);
  t.is(stats.status, 'active');

  const unknown = await w.call('POST', `/v1/webhooks/${hook.id}/deliveries/del_nope/retry`);
  t.is(unknown.status, 404);
  t.is(unknown.body.error.code, 'not_found');
});

test('a retry asked while an automatic attempt is in flight waits for it and starts from its outcome', async (t) => {
  const { w, receiver, hook } = await hookedTenant(t, ['workflow.deleted']);
  // Every answer comes 500 ms late: the first (the automatic attempt) a 500, the next a 200.
  receiver.delay(500);
  receiver.failNext(1, 500);
  await w.publish('workflow.deleted');
  await receiver.waitForCount(1);
  // Listed while its first attempt waits for the answer (onlyDelivery would wait for it).
  const listed = await w.listDeliveries(hook.id);
  t.is(listed.body.data.length, 1);
  const delivery = listed.body.data[0] as Delivery;
  // The attempt in flight counts already: it is stored before its POST leaves.
  t.like(delivery, { status: 'pending', attempts: 1 });

  const retried = await w.call('POST', `/v1/webhooks/${hook.id}/deliveries/${delivery.id}/retry`);
  t.is(retried.status, 200, retried.text);
  const data = retried.body.data as DeliveryDetail;
  t.like(data, { status: 'delivered', attempts: 2, http_status: 200 });
  t.deepEqual(
    data.attempts_history.map((a) => [a.attempt, a.http_status]),
    [
      [1, 500],
      [2, 200],
    ],
  );
  t.is(receiver.requests.length, 2);
  // The automatic attempt's scheduled retry went with the manual one: nothing more is sent.
  await dueTimersRun(daemon);
  t.is(receiver.requests.length, 2);
  const stats = (await w.getHook(hook.id)).stats;
  t.like(stats, { total_deliveries: 1, success_rate: 1 });
});

test('POST /webhooks/{id}/test sends a signed sample and reports the outcome', async (t) => {
  const { w, receiver, hook } = await hookedTenant(t, ['agent.created']);

  const ok = await w.call('POST', `/v1/webhooks/${hook.id}/test`, {
    event_type: 'workflow.execution.failed',
  });
  t.is(ok.status, 200, ok.text);
  t.like(ok.body.data, { status: 'delivered', http_status: 200 });
  t.is(typeof ok.body.data.response_time_ms, 'number');
  t.regex(ok.body.data.delivered_at ?? '', ISO);
  t.is(receiver.requests.length, 1);
  const sample = receiver.requests[0]!;
  t.is(sample.header('x-svc-event-type'), 'workflow.execution.failed');
  const body = sample.json<Envelope>();
  t.is(body.type, 'workflow.execution.failed');
  t.is(body.workspace_id, w.id);
  t.regex(body.id, /^evt_/);
  t.is(sample.header('x-svc-event-id'), body.id);
  t.is(typeof body.data, 'object');
  t.true(verify(sample.rawBody, sample.header('x-svc-signature'), hook.secret));

  receiver.respondWith(503);
  const bad = await w.call('POST', `/v1/webhooks/${hook.id}/test`, { event_type: 'agent.created' });
  t.is(bad.status, 200, 'the test endpoint always answers 200');
  t.like(bad.body.data, { status: 'failed', http_status: 503, delivered_at: null });
  t.is(typeof bad.body.data.response_time_ms, 'number');
  t.is(receiver.requests.length, 2);

  const unknown = await w.call('POST', `/v1/webhooks/${hook.id}/test`, {
    event_type: 'agent.exploded',
  });
  t.is(unknown.status, 400, unknown.text);
  t.is(unknown.body.error.code, 'invalid_event_type');
  t.is(unknown.body.error.param, 'event_type');
  const missing = await w.call('POST', `/v1/webhooks/${hook.id}/test`, {});
  t.is(missing.status, 400);
  t.is(missing.body.error.code, 'missing_required_field');
  t.is(receiver.requests.length, 2, 'refused tests send nothing');
  t.is((await w.getHook(hook.id)).status, 'active', 'a failed test does not fail the webhook');
});
