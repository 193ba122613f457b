import test from 'ava';
import type { StoreKind } from '../../daemon/store/db.js';
import type { EventEnvelope } from '../../shared/schemas/events.js';
import { Hooks } from '../../daemon/domain/hooks.js';
import { eventService } from '../helpers/services.js';
import { openTestStore, STORE_KINDS } from '../helpers/postgres.js';
import { StillClock } from '../helpers/still-clock.js';

async function setUp(t: import('ava').ExecutionContext, kind: StoreKind) {
  const db = await openTestStore(kind);
  t.teardown(() => db.close());
  const hooks = new Hooks();
  const events = eventService(db, new StillClock(Date.now()), hooks);
  const heard: EventEnvelope[] = [];
  hooks.add('eventPublished', (event) => heard.push(event));
  return { events, heard, hooks };
}

for (const kind of STORE_KINDS) {
  test(`${kind}: events published alone at once wait for the group commit, then are stored and heard once each`, async (t) => {
    const { events, heard } = await setUp(t, kind);
    const publishing = Array.from({ length: 20 }, (_, i) =>
      events.publishAlone('ws_a', 'agent.created', { i }),
    );
    t.is(events.list('ws_a', {}).items.length, 0, 'nothing is stored before the group commits');
    t.is(heard.length, 0, 'and no listener hears of an event that is not committed');

    const published = await Promise.all(publishing);
    t.deepEqual(
      published.map((event) => event.data.i),
      Array.from({ length: 20 }, (_, i) => i),
    );
    for (const event of published) t.deepEqual(events.get('ws_a', event.id), event);
    t.is(events.list('ws_a', { limit: 100 }).items.length, 20);
    t.deepEqual(heard, published, 'each heard once, in the order published');
  });

  test(`${kind}: an event published alone is stored with its fan-out, atomically`, async (t) => {
    const { events, hooks } = await setUp(t, kind);
    let fannedOut = 0;
    hooks.add('eventStored', (event) => {
      if (event.data.fail) throw new Error('the fan-out failed');
      fannedOut += 1;
    });
    const [kept, refused] = await Promise.allSettled([
      events.publishAlone('ws_a', 'agent.created', { fail: false }),
      events.publishAlone('ws_a', 'agent.created', { fail: true }),
    ]);
    t.is(kept.status, 'fulfilled');
    t.is(refused.status, 'rejected');
    // Twice when both were in one group (the failed group, then alone); once when the first
    // change alone used up the group's time slice (GROUP_SLICE_MS), as a slow store's may.
    t.true(fannedOut === 1 || fannedOut === 2, `the kept event's fan-out ran ${fannedOut} times`);
    const stored = events.list('ws_a', {}).items;
    t.is(stored.length, 1, 'the event whose fan-out failed is not stored');
  });
}
