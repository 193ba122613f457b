// Delivery is at-least-once and survives restarts (decisions §9): a delivery is stored, in the
// event's own transaction, before its first attempt. So every event the daemon acknowledged
// reaches the receiver even when the daemon is SIGKILLed in the middle of a burst, and a
// pending retry survives a graceful stop and start.
import test from 'ava';
import type { TestDaemon } from '../helpers/daemon.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { control } from '../helpers/api.js';
import { dueTimersRun } from '../helpers/events.js';
import {
  daemonsOfFile,
  isAlive,
  restNow,
  restart,
  running,
  waitForExit,
  type Running,
} from '../helpers/processes.js';

const launch = daemonsOfFile(test);

function trpc<T>(at: Running, path: string, input?: unknown): Promise<T> {
  return control<T>(at, path, input);
}

async function createHook(
  d: TestDaemon,
  receiver: Receiver,
  events: string[],
): Promise<{ id: string }> {
  const answer = await restNow(d)('POST', '/v1/webhooks', { url: receiver.url, events });
  if (answer.status !== 201) throw new Error(`create webhook: ${JSON.stringify(answer.body)}`);
  return answer.body.data;
}

const receivedIds = (receiver: Receiver) =>
  new Set(receiver.requests.map((request) => request.header('x-svc-event-id')));

test('every acknowledged event is delivered although the daemon is SIGKILLed mid-burst', async (t) => {
  const d = await launch();
  const receiver = await startReceiver(t);
  const before = running(d);
  await createHook(d, receiver, ['agent.created']);

  // 32 senders each send events one after another until the daemon is gone; SIGKILL as soon as
  // 100 are acknowledged. A sender sends its next event in the same tick its previous one is
  // answered, so every other sender has an event in flight when the kill is sent. (A burst of
  // parallel requests could all be answered in one group commit before the kill landed.)
  const SENDERS = 32;
  const KILL_AFTER = 100;
  const acknowledged: string[] = [];
  let refused = 0;
  let inFlight = 0;
  let inFlightAtKill = -1;
  const kill = () => {
    if (inFlightAtKill >= 0) return;
    inFlightAtKill = inFlight;
    process.kill(running(d).pid, 'SIGKILL');
  };
  await Promise.all(
    Array.from({ length: SENDERS }, async () => {
      for (;;) {
        inFlight += 1;
        try {
          const event = await trpc<{ id: string }>(before, 'events.trigger', {
            type: 'agent.created',
          });
          acknowledged.push(event.id);
          if (acknowledged.length >= KILL_AFTER) kill();
        } catch {
          refused += 1;
          return;
        } finally {
          inFlight -= 1;
        }
      }
    }),
  );
  t.log(
    `acknowledged ${acknowledged.length}, refused ${refused}, in flight at the kill ${inFlightAtKill}`,
  );
  t.true(acknowledged.length >= KILL_AFTER);
  t.true(inFlightAtKill > 0, 'the daemon died with events in flight');
  t.is(refused, SENDERS, 'each sender stopped only when the daemon was gone');
  t.is(new Set(acknowledged).size, acknowledged.length, 'event ids are unique');

  t.true(await waitForExit(before.pid), 'the daemon is gone');

  const after = await restart(d);
  t.not(after.pid, before.pid);

  const complete = await receiver.waitFor((requests) => {
    const seen = new Set(requests.map((request) => request.header('x-svc-event-id')));
    return acknowledged.every((id) => seen.has(id));
  }, 20_000);
  const seen = receivedIds(receiver);
  const missing = acknowledged.filter((id) => !seen.has(id));
  t.true(complete, `${missing.length} acknowledged event(s) never arrived, e.g. ${missing[0]}`);
  t.true(
    receiver.requests.every((request) => request.method === 'POST'),
    'only deliveries arrived',
  );
  t.log(`${receiver.requests.length} requests for ${seen.size} distinct events`);

  // The restarted daemon knows every acknowledged event.
  for (const id of acknowledged.slice(0, 5).concat(acknowledged.slice(-5))) {
    const stored = await restNow(d)('GET', `/v1/events/${id}`);
    t.is(stored.status, 200, `event ${id} is stored`);
  }
});

test('a pending retry survives a graceful stop and start', async (t) => {
  const d = await launch();
  const receiver = await startReceiver(t);
  receiver.respondWith(500);
  const before = running(d);
  const hook = await createHook(d, receiver, ['workflow.execution.failed']);
  const event = await trpc<{ id: string }>(before, 'events.trigger', {
    type: 'workflow.execution.failed',
  });
  await receiver.waitForCount(1);

  const stopped = await d.cli(['daemon', 'stop']);
  t.is(stopped.code, 0, stopped.stderr);
  t.false(isAlive(before.pid), 'stop waits for the daemon to exit');
  receiver.respondWith(200);

  const after = await restart(d);
  // Whatever is due at the restart has run once its due timers have: the retry is not.
  await dueTimersRun(after);
  t.is(receiver.requests.length, 1, 'the retry is not due yet after the restart');
  const pending = await restNow(d)('GET', `/v1/webhooks/${hook.id}/deliveries`);
  t.is(pending.status, 200);
  t.like(pending.body.data[0], { event_id: event.id, status: 'pending', attempts: 1 });

  // The clock over the control channel, as `svc clock advance` moves it (tested in cli-operator).
  await d.advance('1m');
  t.true(await receiver.waitFor((requests) => requests.length >= 2), 'second attempt');
  const [first, second] = receiver.requests;
  t.is(second!.header('x-svc-event-id'), event.id);
  t.is(second!.header('x-svc-delivery-id'), first!.header('x-svc-delivery-id'));
  t.is(second!.body, first!.body);

  // The attempt is recorded by the time its timer has run (the advance waits for that).
  await dueTimersRun(after);
  const delivery = (await restNow(d)('GET', `/v1/webhooks/${hook.id}/deliveries`)).body.data[0];
  t.like(delivery, { status: 'delivered', attempts: 2, http_status: 200 });
});
