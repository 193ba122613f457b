// `svc webhooks ...` and `svc listen` against a real daemon and a real receiver (decisions §4):
// --json shapes and exit codes (0 ok, 1 operation failed, 2 usage), `webhooks tail` streaming
// each delivery attempt, and `listen` forwarding matching events signed with the secret it
// prints. Signatures are checked with an HMAC written here from the spec's text.
import test, { type ExecutionContext } from 'ava';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliResult } from '../helpers/daemon.js';
import { control } from '../helpers/api.js';
import { sharedDaemon } from '../helpers/setup.js';
import { startReceiver, type ReceivedRequest } from '../helpers/receiver.js';
import type { WebhookView as Webhook } from '../../shared/schemas/webhooks.js';
import { dueTimersRun, HANG_TIMEOUT_MS } from '../helpers/events.js';
import { CliStream } from '../helpers/cli-stream.js';

const d = sharedDaemon(test);

// The file's sandbox clock is frozen: a failed attempt's automatic retry (a minute later on the
// sandbox clock) never lands between a test's CLI calls, however slow they are (on a loaded
// machine three calls outlasted that minute, and the retry had delivered before `deliveries
// --status delivered` looked). The retries here are the ones `svc webhooks retry` asks for.
test.serial.before(async () => {
  await control(d, 'clock.freeze', {});
});

/** A fresh workspace, so that concurrent tests never receive each other's events. */
function workspace(name: string): Promise<string> {
  return d.createWorkspace(name);
}

/** `svc <args> --workspace ws --json` */
function svc(ws: string, ...args: string[]): Promise<CliResult> {
  return d.cli([...args, '--workspace', ws, '--json']);
}

async function trigger(ws: string, type: string): Promise<{ id: string; type: string }> {
  const result = await svc(ws, 'events', 'trigger', type);
  if (result.code !== 0) throw new Error(`events trigger ${type} failed: ${result.stderr}`);
  return result.json();
}

/**
 * A stream opens some time after its process starts: publish agent.created until `through`
 * says one came through (each look bounded). The ids published, and whether one arrived.
 */
async function warmUp(
  ws: string,
  through: (warm: Set<string>) => Promise<boolean>,
): Promise<{ warm: Set<string>; arrived: boolean }> {
  const warm = new Set<string>();
  // Bounded by the hang guard, not a count of tries: a CLI stream starts slowly under load.
  const until = Date.now() + HANG_TIMEOUT_MS;
  while (Date.now() < until) {
    warm.add((await trigger(ws, 'agent.created')).id);
    if (await through(warm)) return { warm, arrived: true };
  }
  return { warm, arrived: false };
}

function assertOk(t: ExecutionContext, result: CliResult): void {
  t.is(result.code, 0, `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
}

/** `svc webhooks create --url URL --events EVENTS ...more`, which must succeed. */
async function createHook(
  t: ExecutionContext,
  ws: string,
  url: string,
  events: string,
  ...more: string[]
): Promise<Webhook> {
  const created = await svc(ws, 'webhooks', 'create', '--url', url, '--events', events, ...more);
  assertOk(t, created);
  return created.json<Webhook>();
}

/** Lowercase hex HMAC-SHA256 of `<t>.<raw body>` keyed by the whole secret; t within 300 s. */
function verify(request: ReceivedRequest, secret: string): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(request.header('x-svc-signature') ?? '');
  if (!match) return false;
  const timestamp = Number(match[1]);
  if (Math.abs(Math.floor(Date.now() / 1000) - timestamp) > 300) return false;
  const expected = createHmac('sha256', secret)
    .update(Buffer.concat([Buffer.from(`${timestamp}.`), request.rawBody]))
    .digest();
  return timingSafeEqual(expected, Buffer.from(match[2]!, 'hex'));
}

/** A long-running CLI command (tail, listen) against the file's daemon. */
function stream(
  args: string[],
  options: { unsetEnv?: string[]; env?: NodeJS.ProcessEnv } = {},
): CliStream {
  return new CliStream(args, { ...d.env, ...options.env }, options);
}

test('svc webhooks create --json shows the secret; get, list, update and delete', async (t) => {
  const ws = await workspace('cli crud');
  const receiver = await startReceiver(t);
  const hook = await createHook(
    t,
    ws,
    receiver.url,
    'agent.created,workflow.execution.failed',
    '--description',
    'from the CLI',
    '--max-attempts',
    '3',
    '--timeout',
    '4',
  );
  t.regex(hook.id, /^hook_/);
  t.regex(hook.secret ?? '', /^whsec_/);
  t.like(hook, {
    url: receiver.url,
    events: ['agent.created', 'workflow.execution.failed'],
    status: 'active',
    settings: { retry_policy: { max_attempts: 3, backoff_multiplier: 2 }, timeout_seconds: 4 },
  });

  const got = await svc(ws, 'webhooks', 'get', hook.id);
  assertOk(t, got);
  t.is(got.json<Webhook>().id, hook.id);
  t.false('secret' in got.json(), 'get does not show the secret');
  t.false(got.stdout.includes(hook.secret!));

  const second = await createHook(t, ws, receiver.url, 'agent.deleted');
  const updated = await svc(
    ws,
    'webhooks',
    'update',
    second.id,
    '--status',
    'paused',
    '--events',
    'agent.deleted,agent.updated',
  );
  assertOk(t, updated);
  t.like(updated.json<Webhook>(), { status: 'paused', events: ['agent.deleted', 'agent.updated'] });
  t.false('secret' in updated.json());

  const list = await svc(ws, 'webhooks', 'list');
  assertOk(t, list);
  const body = list.json<{ data: Webhook[]; has_more: boolean; total_count: number; meta: any }>();
  t.is(body.total_count, 2);
  t.false(body.has_more);
  t.deepEqual(
    body.data.map((item) => item.id),
    [second.id, hook.id],
  );
  t.false(list.stdout.includes('whsec_'), 'list shows no secret');
  const paused = await svc(ws, 'webhooks', 'list', '--status', 'paused');
  assertOk(t, paused);
  t.deepEqual(
    paused.json<{ data: Webhook[] }>().data.map((item) => item.id),
    [second.id],
  );
  const page = await svc(ws, 'webhooks', 'list', '--limit', '1');
  assertOk(t, page);
  t.true(page.json().has_more);
  t.is(page.json().meta.next_cursor, second.id);

  const deleted = await svc(ws, 'webhooks', 'delete', hook.id);
  assertOk(t, deleted);
  t.like(deleted.json(), { id: hook.id, deleted: true });
  const gone = await svc(ws, 'webhooks', 'get', hook.id);
  t.is(gone.code, 1, gone.stdout + gone.stderr);
  t.is(gone.json().error.code, 'webhook_not_found');
  const goneAgain = await svc(ws, 'webhooks', 'delete', hook.id);
  t.is(goneAgain.code, 1);
});

test('usage errors exit 2; refused operations exit 1 with the error as JSON', async (t) => {
  const ws = await workspace('cli errors');
  const noUrl = await svc(ws, 'webhooks', 'create', '--events', 'agent.created');
  t.is(noUrl.code, 2, noUrl.stdout + noUrl.stderr);
  const noEvents = await svc(ws, 'webhooks', 'create', '--url', 'http://127.0.0.1:9/x');
  t.is(noEvents.code, 2, noEvents.stdout + noEvents.stderr);
  const badStatus = await svc(ws, 'webhooks', 'update', 'hook_x', '--status', 'failed');
  t.is(badStatus.code, 2, 'status choices are active and paused');
  const noId = await d.cli(['webhooks', 'get']);
  t.is(noId.code, 2);
  const listenNoTarget = await d.cli(['listen', '--json']);
  t.is(listenNoTarget.code, 2);
  const listenBadTarget = await d.cli(['listen', '--forward-to', 'ftp://x/y', '--json']);
  t.is(listenBadTarget.code, 2);

  const badUrl = await svc(
    ws,
    'webhooks',
    'create',
    '--url',
    'ftp://x/y',
    '--events',
    'agent.created',
  );
  t.is(badUrl.code, 1, badUrl.stdout + badUrl.stderr);
  t.is(badUrl.json().error.code, 'invalid_url');
  const badType = await svc(
    ws,
    'webhooks',
    'create',
    '--url',
    'http://127.0.0.1:9/x',
    '--events',
    'agent.exploded',
  );
  t.is(badType.code, 1);
  t.is(badType.json().error.code, 'invalid_event_type');
  const list = await svc(ws, 'webhooks', 'list');
  t.is(list.json().total_count, 0, 'nothing was created');
});

test('svc webhooks test: exit 0 when delivered, 1 when the receiver fails', async (t) => {
  const ws = await workspace('cli test');
  const receiver = await startReceiver(t);
  const hook = await createHook(t, ws, receiver.url, 'agent.created');

  const ok = await svc(
    ws,
    'webhooks',
    'test',
    hook.id,
    '--event-type',
    'workflow.execution.completed',
  );
  assertOk(t, ok);
  t.like(ok.json(), { status: 'delivered', http_status: 200 });
  t.is(typeof ok.json().response_time_ms, 'number');
  t.is(receiver.requests.length, 1);
  t.is(receiver.requests[0]!.header('x-svc-event-type'), 'workflow.execution.completed');
  t.true(verify(receiver.requests[0]!, hook.secret!));

  const defaultType = await svc(ws, 'webhooks', 'test', hook.id);
  assertOk(t, defaultType);
  t.is(receiver.requests[1]!.header('x-svc-event-type'), 'agent.created');

  receiver.respondWith(500);
  const failed = await svc(ws, 'webhooks', 'test', hook.id);
  t.is(failed.code, 1, failed.stdout + failed.stderr);
  t.like(failed.json(), { status: 'failed', http_status: 500 });

  const unknown = await svc(ws, 'webhooks', 'test', hook.id, '--event-type', 'agent.exploded');
  t.is(unknown.code, 1);
  t.is(unknown.json().error.code, 'invalid_event_type');
});

test('svc webhooks deliveries and retry', async (t) => {
  const ws = await workspace('cli deliveries');
  const receiver = await startReceiver(t);
  receiver.failNext(1, 500);
  const hook = await createHook(t, ws, receiver.url, 'agent.updated');
  const event = await trigger(ws, 'agent.updated');
  await receiver.waitForCount(1);

  // The attempt is a timer: once the due ones have run, it is recorded.
  await dueTimersRun(d);
  const list = await svc(ws, 'webhooks', 'deliveries', hook.id);
  assertOk(t, list);
  const body = list.json();
  t.is(body.total_count, 1);
  t.false(body.has_more);
  const delivery = body.data[0];
  t.regex(delivery.id, /^del_/);
  t.like(delivery, { event_id: event.id, status: 'pending', attempts: 1, http_status: 500 });
  const pending = await svc(ws, 'webhooks', 'deliveries', hook.id, '--status', 'pending');
  t.is(pending.json().total_count, 1);
  const delivered = await svc(ws, 'webhooks', 'deliveries', hook.id, '--status', 'delivered');
  t.is(delivered.json().total_count, 0);

  const retried = await svc(ws, 'webhooks', 'retry', hook.id, delivery.id);
  assertOk(t, retried);
  t.like(retried.json(), { id: delivery.id, status: 'delivered', attempts: 2, http_status: 200 });
  t.is(retried.json().attempts_history.length, 2);
  t.is(receiver.requests.length, 2);
  t.is(receiver.requests[1]!.header('x-svc-event-id'), event.id);

  const missing = await svc(ws, 'webhooks', 'retry', hook.id, 'del_nope');
  t.is(missing.code, 1);
  t.is(missing.json().error.code, 'not_found');
  const unknownHook = await svc(ws, 'webhooks', 'deliveries', 'hook_nope');
  t.is(unknownHook.code, 1);
  t.is(unknownHook.json().error.code, 'webhook_not_found');
});

test('svc webhooks tail --json prints a JSON line per delivery attempt', async (t) => {
  const ws = await workspace('cli tail');
  const receiver = await startReceiver(t);
  const hook = await createHook(t, ws, receiver.url, 'agent.created,agent.updated');
  const tail = stream(['webhooks', 'tail', '--webhook', hook.id, '--json']);
  t.teardown(() => tail.kill());

  const { arrived } = await warmUp(ws, (warm) =>
    tail.waitFor(() => tail.lines.some((line) => warm.has(line.delivery?.event_id)), 1_000),
  );
  t.true(arrived, `webhooks tail never printed a delivery; stderr: ${tail.stderr}`);
  t.is(tail.stdoutNoise, '', 'with --json, stdout has only JSON lines');

  receiver.failNext(1, 503);
  const event = await trigger(ws, 'agent.updated');
  const lineFor = () => tail.lines.filter((line) => line.delivery?.event_id === event.id);
  t.true(await tail.waitFor(() => lineFor().length >= 1, HANG_TIMEOUT_MS), 'first attempt printed');
  const first = lineFor()[0]!;
  t.is(first.webhook_id, hook.id);
  t.is(first.workspace_id, ws);
  t.is(first.url, receiver.url);
  t.like(first.delivery, {
    event_type: 'agent.updated',
    status: 'pending',
    attempts: 1,
    http_status: 503,
  });
  t.regex(first.delivery.id, /^del_/);
  t.is(typeof first.delivery.error, 'string');

  const retried = await svc(ws, 'webhooks', 'retry', hook.id, first.delivery.id);
  assertOk(t, retried);
  t.true(
    await tail.waitFor(() => lineFor().length >= 2, HANG_TIMEOUT_MS),
    'second attempt printed',
  );
  t.like(lineFor()[1]!.delivery, {
    id: first.delivery.id,
    status: 'delivered',
    attempts: 2,
    http_status: 200,
  });

  // Another webhook's deliveries are not shown with --webhook. The stream keeps order: once
  // the other attempt is done (due timers run) a later delivery of ours is printed after it.
  await createHook(t, ws, receiver.url, 'agent.deleted');
  const unrelated = await trigger(ws, 'agent.deleted');
  await receiver.waitFor((all) => all.some((r) => r.header('x-svc-event-id') === unrelated.id));
  await dueTimersRun(d);
  const marker = await trigger(ws, 'agent.updated');
  t.true(
    await tail.waitFor(
      () => tail.lines.some((line) => line.delivery?.event_id === marker.id),
      5_000,
    ),
    'a later delivery of the tailed webhook is printed',
  );
  t.false(tail.lines.some((line) => line.delivery?.event_id === unrelated.id));
  t.true(tail.lines.every((line) => line.webhook_id === hook.id));

  const exit = await tail.stop();
  t.not(exit, 'timeout', 'webhooks tail stops on SIGINT');
  if (exit !== 'timeout') t.is(exit.code, 0, `exit ${exit.code} ${exit.signal}; ${tail.stderr}`);
});

test('svc listen forwards matching events signed with the secret it prints', async (t) => {
  const ws = await workspace('cli listen');
  const receiver = await startReceiver(t);
  const listen = stream(
    ['listen', '--forward-to', receiver.url, '--events', 'agent.*', '--workspace', ws, '--json'],
    // As a developer's terminal runs it (the test runner sets NODE_ENV=test; see the next test).
    { unsetEnv: ['NODE_ENV'] },
  );
  t.teardown(() => listen.kill());

  const { warm, arrived } = await warmUp(ws, (warm) =>
    receiver.waitFor((all) => all.some((r) => warm.has(r.header('x-svc-event-id') ?? '')), 1_000),
  );
  t.true(arrived, `listen never forwarded; stderr: ${listen.stderr}${listen.stdoutNoise}`);

  // By now the start-up message is out.
  let secret = /signing secret is (whsec_\w+)/.exec(listen.stderr)?.[1];
  t.truthy(secret, `listen --json prints its signing secret on stderr; stderr: ${listen.stderr}`);
  if (!secret) {
    // Go on with the other checks using the secret the CLI keeps in its state file.
    const state = join(d.dataDir, 'cli-state.json');
    if (existsSync(state)) secret = JSON.parse(readFileSync(state, 'utf8')).listen_secret;
  }
  t.regex(secret ?? '', /^whsec_/);
  for (const request of receiver.requests) {
    if (secret) t.true(verify(request, secret), 'warm-up events are signed too');
  }

  const skipped = await trigger(ws, 'workflow.created');
  const kept = await trigger(ws, 'agent.updated');
  const skippedToo = await trigger(ws, 'integration.connected');
  const last = await trigger(ws, 'agent.execution.completed');
  t.true(
    await receiver.waitFor((all) => all.some((r) => r.header('x-svc-event-id') === last.id)),
    'agent.execution.completed forwarded',
  );
  // listen forwards in the order it streams events and prints each forward once answered: when
  // both are printed, a wrongly forwarded earlier event would have been sent before them.
  const printed = (id: string) => listen.lines.some((line) => line.event_id === id);
  t.true(await listen.waitFor(() => printed(kept.id) && printed(last.id), HANG_TIMEOUT_MS));
  const forwarded = receiver.requests.filter((r) => !warm.has(r.header('x-svc-event-id') ?? ''));
  t.deepEqual(forwarded.map((r) => r.header('x-svc-event-id')).sort(), [kept.id, last.id].sort());
  t.false(
    receiver.requests.some((r) =>
      [skipped.id, skippedToo.id].includes(r.header('x-svc-event-id') ?? ''),
    ),
  );
  for (const request of forwarded) {
    t.is(request.method, 'POST');
    t.is(request.json().id, request.header('x-svc-event-id'));
    t.is(request.json().type, request.header('x-svc-event-type'));
    t.regex(request.header('x-svc-delivery-id') ?? '', /^del_/);
    if (secret) t.true(verify(request, secret), 'signed with the printed secret');
  }

  // One JSON line per forwarded event, with the receiver's answer.
  const line = listen.lines.find((entry) => entry.event_id === kept.id);
  t.like(line, { event_type: 'agent.updated', http_status: 200 });
  t.is(typeof line?.response_time_ms, 'number');
  t.false(listen.lines.some((entry) => entry.event_id === skipped.id));
  t.is(listen.stdoutNoise, '', 'with --json, stdout has only JSON lines');

  const exit = await listen.stop();
  t.not(exit, 'timeout', 'listen stops on SIGINT');
  if (exit !== 'timeout') t.is(exit.code, 0, `exit ${exit.code} ${exit.signal}; ${listen.stderr}`);
});

// Serial, so it runs first, in a data dir where `svc listen` has not yet kept any state.
test.serial('svc listen also works under a test runner (NODE_ENV=test)', async (t) => {
  const ws = await workspace('cli listen test env');
  const receiver = await startReceiver(t);
  const listen = stream(['listen', '--forward-to', receiver.url, '--workspace', ws, '--json'], {
    env: { NODE_ENV: 'test' },
  });
  t.teardown(() => listen.kill());
  let forwarded = false;
  // An event published before listen subscribed is not forwarded: one more each second, until
  // one is (bounded by the hang guard, not a count of tries: listen starts slowly under load).
  const until = Date.now() + HANG_TIMEOUT_MS;
  while (!forwarded && Date.now() < until && listen.child.exitCode === null) {
    const event = await trigger(ws, 'workflow.created');
    forwarded = await receiver.waitFor(
      (all) => all.some((r) => r.header('x-svc-event-id') === event.id),
      1_000,
    );
  }
  t.is(listen.child.exitCode, null, `listen exited: ${listen.stdoutNoise}${listen.stderr}`);
  t.true(forwarded, `listen never forwarded: ${listen.stdoutNoise}${listen.stderr}`);
});
