// A statement that fails inside a transaction: SQLite carries on with the transaction, a
// PostgreSQL transaction is aborted by it. So code that catches a statement's error and goes on
// must do so in a nested transaction (a savepoint), which behaves the same on both stores; a
// bare caught failure on PostgreSQL fails the rest of the transaction and its commit, never
// reading as committed (postgres/worker.ts). The daemon's code has no bare caught failure
// (issue 53's review: the group commit retries a failed change alone, in its own transaction).
import test from 'ava';
import type { Db, StoreKind } from '../../daemon/store/db.js';
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
