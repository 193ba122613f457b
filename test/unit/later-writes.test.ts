// Writes sent late (store/later-writes.ts): on both stores they are in the transaction as a
// run() would be (read back by its next statement, committed with it, undone with it or with
// the savepoint they were made in, a failure rolls the whole transaction back); on PostgreSQL
// a transaction of such writes costs one message to the worker, its COMMIT.
import test from 'ava';
import type { Db } from '../../daemon/store/db.js';
import { prepareLaterWrite } from '../../daemon/store/later-writes.js';
import { prepareLaterInsert } from '../../daemon/store/object-rows.js';
import { countWorkerMessages, openTestStore, STORE_KINDS } from '../helpers/postgres.js';

async function store(t: import('ava').ExecutionContext, kind: (typeof STORE_KINDS)[number]) {
  const db = await openTestStore(kind);
  t.teardown(() => db.close());
  return db;
}

const setting = (db: Db, key: string) =>
  db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?').get(key)
    ?.value;

const keys = (db: Db) =>
  db
    .prepare<[], string>("SELECT key FROM settings WHERE key LIKE 'lw_%' ORDER BY key")
    .pluck()
    .all();

for (const kind of STORE_KINDS) {
  test(`${kind}: a later write is read back by the transaction's next statement and committed with it`, async (t) => {
    const db = await store(t, kind);
    const put = prepareLaterWrite<[string, string]>(
      db,
      'INSERT INTO settings (key, value) VALUES (?, ?)',
    );
    const insert = prepareLaterInsert(db, 'settings', 'key, value');
    db.transaction(() => {
      put.run('lw_a', '1');
      insert.run({ key: 'lw_b', value: '2' });
      t.is(setting(db, 'lw_a'), '1');
      put.run('lw_c', '3');
    })();
    // Only later writes in a transaction: they are committed, not forgotten.
    db.transaction(() => put.run('lw_d', '4'))();
    // Outside a transaction: at once.
    put.run('lw_e', '5');
    t.deepEqual(keys(db), ['lw_a', 'lw_b', 'lw_c', 'lw_d', 'lw_e']);
  });

  test(`${kind}: a throw undoes the later writes of its transaction or savepoint, not the ones before`, async (t) => {
    const db = await store(t, kind);
    const put = prepareLaterWrite<[string, string]>(
      db,
      'INSERT INTO settings (key, value) VALUES (?, ?)',
    );
    db.transaction(() => {
      put.run('lw_kept', '1');
      t.throws(
        () =>
          db.transaction(() => {
            put.run('lw_inner', '2');
            throw new Error('inner fails');
          })(),
        { message: 'inner fails' },
      );
      // A savepoint whose opener was sent (a read in it) and then threw.
      t.throws(
        () =>
          db.transaction(() => {
            setting(db, 'lw_kept');
            put.run('lw_inner_sent', '3');
            throw new Error('inner fails again');
          })(),
        { message: 'inner fails again' },
      );
      put.run('lw_after', '4');
    })();
    t.throws(
      () =>
        db.transaction(() => {
          put.run('lw_outer', '5');
          throw new Error('outer fails');
        })(),
      { message: 'outer fails' },
    );
    t.deepEqual(keys(db), ['lw_after', 'lw_kept']);
  });

  test(`${kind}: a later write that fails rolls its whole transaction back`, async (t) => {
    const db = await store(t, kind);
    const put = prepareLaterWrite<[string, string]>(
      db,
      'INSERT INTO settings (key, value) VALUES (?, ?)',
    );
    put.run('lw_taken', '0');
    t.throws(
      () =>
        db.transaction(() => {
          put.run('lw_new', '1');
          put.run('lw_taken', '2');
          put.run('lw_newer', '3');
        })(),
      { code: 'SQLITE_CONSTRAINT_PRIMARYKEY' },
    );
    t.false(db.inTransaction);
    t.deepEqual(keys(db), ['lw_taken']);
    t.is(setting(db, 'lw_taken'), '0');
    // The connection goes on.
    db.transaction(() => put.run('lw_next', '4'))();
    t.deepEqual(keys(db), ['lw_next', 'lw_taken']);
  });
}

test('postgres: a transaction of later writes is one message to the worker; a read in it, one more', async (t) => {
  const db = await store(t, 'postgres');
  const put = prepareLaterWrite<[string, string]>(
    db,
    'INSERT INTO settings (key, value) VALUES (?, ?)',
  );
  const messages = countWorkerMessages(db);
  db.transaction(() => {
    for (let index = 0; index < 5; index += 1) put.run(`lw_${index}`, String(index));
  })();
  t.is(messages.count(), 1);
  messages.reset();
  db.transaction(() => {
    put.run('lw_x', 'x');
    t.is(setting(db, 'lw_x'), 'x');
    put.run('lw_y', 'y');
  })();
  t.is(messages.count(), 2);
  t.is(keys(db).length, 7);
});
