import test from 'ava';
import {
  CommitQueue,
  CONFLICT_TRIES,
  GROUP_SLICE_MS,
  PendingCounters,
} from '../../daemon/store/commit-queue.js';
import type { StoreKind } from '../../daemon/store/db.js';
import { STORE_KINDS, storeOpener } from '../helpers/postgres.js';

async function setUp(t: import('ava').ExecutionContext, kind: StoreKind) {
  const db = (await storeOpener(kind, { migrations: false }))();
  t.teardown(() => db.close());
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO t (id, v) VALUES (?, ?)');
  const all = () => db.prepare('SELECT id, v FROM t ORDER BY id').all();
  return { db, insert, all, queue: new CommitQueue(db) };
}

for (const kind of STORE_KINDS) {
  test(`${kind}: changes queued in one tick commit together and each caller gets its result`, async (t) => {
    const { insert, all, queue } = await setUp(t, kind);
    const results = await Promise.all(
      [1, 2, 3].map((id) => queue.run(() => insert.run(id, `v${id}`).changes)),
    );
    t.deepEqual(results, [1, 1, 1]);
    t.deepEqual(all(), [
      { id: 1, v: 'v1' },
      { id: 2, v: 'v2' },
      { id: 3, v: 'v3' },
    ]);
  });

  test(`${kind}: a change that throws fails alone: the others of its group are still committed`, async (t) => {
    const { insert, all, queue } = await setUp(t, kind);
    const outcomes = await Promise.allSettled([
      queue.run(() => insert.run(1, 'a')),
      queue.run(() => {
        insert.run(2, 'half done');
        throw new Error('boom');
      }),
      queue.run(() => insert.run(3, 'c')),
    ]);
    t.deepEqual(
      outcomes.map((outcome) => outcome.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    t.is((outcomes[1] as PromiseRejectedResult).reason.message, 'boom');
    t.deepEqual(
      all(),
      [
        { id: 1, v: 'a' },
        { id: 3, v: 'c' },
      ],
      'the failed change left nothing behind',
    );
  });

  test(`${kind}: a change the store aborts for a conflict with another daemon's transaction is run again`, async (t) => {
    const { insert, all, queue } = await setUp(t, kind);
    // PostgreSQL's deadlock_detected as the adapter gives it (postgres/errors.ts): the group's
    // transaction, then the change's first try alone, lose to another daemon's.
    const deadlock = () => Object.assign(new Error('deadlock detected'), { code: 'PG_40P01' });
    let conflicts = 2;
    let tries = 0;
    const outcomes = await Promise.allSettled([
      queue.run(() => insert.run(1, 'a').changes),
      queue.run(() => {
        tries += 1;
        insert.run(2, 'b');
        if (conflicts > 0) {
          conflicts -= 1;
          throw deadlock();
        }
        return 'stored';
      }),
    ]);
    t.deepEqual(
      outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : outcome.reason)),
      [1, 'stored'],
    );
    t.is(tries, 3);
    t.deepEqual(all(), [
      { id: 1, v: 'a' },
      { id: 2, v: 'b' },
    ]);
    // One that keeps losing fails after CONFLICT_TRIES tries alone, and leaves nothing.
    let lost = 0;
    const hopeless = await Promise.allSettled([
      queue.run(() => {
        lost += 1;
        insert.run(3, 'c');
        throw deadlock();
      }),
    ]);
    t.is(hopeless[0]!.status, 'rejected');
    t.is(lost, 1 + CONFLICT_TRIES, 'the group, then each try alone');
    t.is(all().length, 2);
  });

  test(`${kind}: a group commits once it has run GROUP_SLICE_MS; the rest wait for the next turn`, async (t) => {
    const { insert, all, queue } = await setUp(t, kind);
    const busy = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    const ran: number[] = [];
    let answeredBeforeLast: boolean | undefined;
    const slow = Array.from({ length: 8 }, (_, i) =>
      queue.run(() => {
        busy(GROUP_SLICE_MS / 2);
        ran.push(i);
        return insert.run(i, `v${i}`).changes;
      }),
    );
    // The first caller is answered (its group committed) before the last change has run, and a
    // timer due at once gets its turn in between.
    void slow[0]!.then(() => (answeredBeforeLast = !ran.includes(7)));
    let timerAfter: number | undefined;
    setTimeout(() => (timerAfter = ran.length), 0);
    t.deepEqual(await Promise.all(slow), [1, 1, 1, 1, 1, 1, 1, 1]);
    t.deepEqual(ran, [0, 1, 2, 3, 4, 5, 6, 7], 'in the order queued');
    t.true(answeredBeforeLast);
    t.true(timerAfter! < 8, `the timer ran after ${timerAfter} of 8 changes`);
    t.is(all().length, 8);
  });

  test(`${kind}: nothing is visible before the group commits`, async (t) => {
    const { insert, all, queue } = await setUp(t, kind);
    const pending = queue.run(() => insert.run(1, 'later'));
    t.deepEqual(all(), []);
    await pending;
    t.deepEqual(all(), [{ id: 1, v: 'later' }]);
  });

  function counters(queue: CommitQueue, db: Awaited<ReturnType<typeof setUp>>['db']) {
    db.exec('CREATE TABLE c (id TEXT PRIMARY KEY, n INTEGER NOT NULL)');
    db.exec("INSERT INTO c (id, n) VALUES ('a', 0), ('b', 0)");
    const add = db.prepare('UPDATE c SET n = n + ? WHERE id = ?');
    const writes: [string, number, number][] = [];
    const pending = new PendingCounters<{ at: number; n: number }>(queue, (id, { n, at }) => {
      writes.push([id, n, at]);
      add.run(n, id);
    });
    const value = (id: string) =>
      (db.prepare('SELECT n FROM c WHERE id = ?').get(id) as { n: number }).n;
    return { pending, writes, value };
  }

  test(`${kind}: counters added by the changes of a group are written once per row, at its end`, async (t) => {
    const { db, queue } = await setUp(t, kind);
    const { pending, writes, value } = counters(queue, db);
    await Promise.all([
      queue.run(() => pending.add('a', { at: 1, n: 1 })),
      queue.run(() => {
        pending.add('a', { at: 2, n: 2 });
        pending.add('b', { at: 2, n: 5 });
      }),
      queue.run(() => pending.add('a', { at: 3, n: 3 })),
    ]);
    t.deepEqual(
      writes,
      [
        ['a', 6, 3],
        ['b', 5, 2],
      ],
      'counts added up, the latest time kept',
    );
    t.is(value('a'), 6);
    t.is(value('b'), 5);
    pending.add('b', { at: 4, n: 1 });
    t.deepEqual(writes.at(-1), ['b', 1, 4], 'outside the queue: written at once');
    t.is(value('b'), 6);
  });

  test(`${kind}: a group rolled back drops its counters; each change retried alone counts once`, async (t) => {
    const { db, queue } = await setUp(t, kind);
    const { pending, value } = counters(queue, db);
    const outcomes = await Promise.allSettled([
      queue.run(() => pending.add('a', { at: 1, n: 1 })),
      queue.run(() => {
        pending.add('a', { at: 1, n: 100 });
        throw new Error('boom');
      }),
      queue.run(() => pending.add('a', { at: 1, n: 10 })),
    ]);
    t.deepEqual(
      outcomes.map((outcome) => outcome.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    t.is(value('a'), 11);
  });
}
