import test from 'ava';
import { CommitQueue } from '../../daemon/store/commit-queue.js';
import { openDatabase } from '../../daemon/store/database.js';

function setUp() {
  const db = openDatabase(':memory:', []);
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO t (id, v) VALUES (?, ?)');
  const all = () => db.prepare('SELECT id, v FROM t ORDER BY id').all();
  return { db, insert, all, queue: new CommitQueue(db) };
}

test('changes queued in one tick commit together and each caller gets its result', async (t) => {
  const { insert, all, queue } = setUp();
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

test('a change that throws fails alone: the others of its group are still committed', async (t) => {
  const { insert, all, queue } = setUp();
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

test('nothing is visible before the group commits', async (t) => {
  const { insert, all, queue } = setUp();
  const pending = queue.run(() => insert.run(1, 'later'));
  t.deepEqual(all(), []);
  await pending;
  t.deepEqual(all(), [{ id: 1, v: 'later' }]);
});
