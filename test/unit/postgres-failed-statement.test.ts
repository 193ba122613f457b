// A statement that fails inside a transaction: SQLite carries on with the transaction, a
// PostgreSQL transaction is aborted by it. So code that catches a statement's error and goes on
// must do so in a nested transaction (a savepoint), which behaves the same on both stores; a
// bare caught failure on PostgreSQL fails the rest of the transaction and its commit, never
// reading as committed (postgres/worker.ts). The daemon's code has no bare caught failure
// (issue 53's review: the group commit retries a failed change alone, in its own transaction).
import type { Worker } from 'node:worker_threads';
import test from 'ava';
import type { Db, StoreKind } from '../../daemon/store/db.js';
import { prepareLaterWrite } from '../../daemon/store/later-writes.js';
import { StoreUnavailableError } from '../../daemon/store/store-errors.js';
import { openTestStore, STORE_KINDS } from '../helpers/postgres.js';

async function store(t: import('ava').ExecutionContext, kind: StoreKind): Promise<Db> {
  const db = await openTestStore(kind);
  t.teardown(() => db.close());
  return db;
}

const keys = (db: Db) => db.prepare('SELECT key FROM settings ORDER BY key').pluck().all();

for (const kind of STORE_KINDS) {
  test(`${kind}: a failure caught in a nested transaction leaves the outer one going`, async (t) => {
    const db = await store(t, kind);
    const put = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)');
    db.transaction(() => {
      put.run('a', '1');
      t.throws(() => db.transaction(() => put.run('a', 'again'))(), {
        code: 'SQLITE_CONSTRAINT_PRIMARYKEY',
      });
      put.run('b', '2');
    })();
    t.deepEqual(keys(db), ['a', 'b']);
  });
}

test('sqlite: a bare failure caught in a transaction leaves it going', async (t) => {
  const db = await store(t, 'sqlite');
  const put = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)');
  db.transaction(() => {
    put.run('a', '1');
    t.throws(() => put.run('a', 'again'), { code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    put.run('b', '2');
  })();
  t.deepEqual(keys(db), ['a', 'b']);
});

test('postgres: a bare failure caught in a transaction aborts it, and its commit says so', async (t) => {
  const db = await store(t, 'postgres');
  const put = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)');
  t.throws(
    () =>
      db.transaction(() => {
        put.run('a', '1');
        t.throws(() => put.run('a', 'again'), { code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
        // PostgreSQL: current transaction is aborted, commands ignored until end of block.
        t.throws(() => put.run('b', '2'), { code: 'PG_25P02' });
      })(),
    { code: 'PG_25P02' },
  );
  t.false(db.inTransaction);
  t.deepEqual(keys(db), [], 'nothing of it was kept, and the handle is usable again');
});

// Found by the three-daemon scale bench (issue 54): a queued write that failed at COMMIT, in a
// transaction that also notified, left the connection in its aborted transaction (COMMIT was
// skipped with the notices' statement), and every later statement of the daemon failed 25P02.
test('postgres: a queued write failing at COMMIT beside notices ends the transaction; the next statement works', async (t) => {
  const db = await store(t, 'postgres');
  const put = prepareLaterWrite(db, 'INSERT INTO settings (key, value) VALUES (?, ?)');
  db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run('a', '1');
  t.throws(
    () =>
      db.transaction(() => {
        put.run('b', '2');
        put.run('a', 'again'); // fails, but only when sent: with the COMMIT
        db.notifications!.notify('settings', 'a');
      })(),
    { code: 'SQLITE_CONSTRAINT_PRIMARYKEY' },
  );
  t.false(db.inTransaction);
  t.deepEqual(keys(db), ['a'], 'nothing of it was kept, and the next statement runs');
});

test('postgres: a failed transaction nothing opened here costs one statement, not the connection', async (t) => {
  const db = await store(t, 'postgres');
  // A transaction the adapter does not know of, failed: what a skipped COMMIT used to leave.
  t.throws(() => db.exec('BEGIN; SELECT 1 / 0'), { code: 'PG_22012' });
  t.throws(() => keys(db), { code: 'PG_25P02' });
  t.deepEqual(keys(db), [], 'rolled back after the one refused statement');
});

test('postgres: a worker thread that stopped is started again; the request meanwhile is unavailable', async (t) => {
  const db = await store(t, 'postgres');
  db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run('a', '1');
  const worker = (db as unknown as { worker: Worker }).worker;
  await worker.terminate();
  await new Promise((resolve) => setImmediate(resolve)); // its 'exit' heard
  t.throws(() => keys(db), {
    instanceOf: StoreUnavailableError,
    message: /worker thread stopped \(exit code 1\); it was restarted/,
  });
  t.true(db.open);
  t.deepEqual(keys(db), ['a'], 'the next statement runs on a new thread and connection');
});
