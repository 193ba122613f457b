// The PostgreSQL adapter behaves as the port promises (what SQLite's handle does): nested
// transactions are savepoints, a throw rolls back, values come back as they went in, constraint
// and disk-full errors carry SQLite's codes, and a lost server is StoreUnavailableError until it
// is back, when the next statement connects again.
import test from 'ava';
import type { Db } from '../../daemon/store/db.js';
import { storeKind } from '../../daemon/store/db.js';
import { PostgresError } from '../../daemon/store/postgres/errors.js';
import { openPostgresDatabase } from '../../daemon/store/postgres/open.js';
import { isStorageFull } from '../../daemon/store/storage-full.js';
import { StoreUnavailableError } from '../../daemon/store/store-errors.js';
import { freshSchema, openTestStore, testPostgres } from '../helpers/postgres.js';

async function store(t: import('ava').ExecutionContext): Promise<Db> {
  const db = await openTestStore('postgres');
  t.teardown(() => db.close());
  return db;
}

const setting = (db: Db, key: string) =>
  db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?').get(key)
    ?.value;

test('a nested transaction is a savepoint: its throw undoes it alone', async (t) => {
  const db = await store(t);
  t.is(storeKind(db), 'postgres');
  const put = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)');
  db.transaction(() => {
    put.run('outer', '1');
    t.true(db.inTransaction);
    t.throws(
      () =>
        db.transaction(() => {
          put.run('inner', '2');
          throw new Error('inner fails');
        })(),
      { message: 'inner fails' },
    );
    // A failed statement in a savepoint leaves the outer transaction usable.
    t.throws(() => db.transaction(() => put.run('outer', 'again'))(), {
      code: 'SQLITE_CONSTRAINT_PRIMARYKEY',
    });
    put.run('after', '3');
  })();
  t.false(db.inTransaction);
  t.is(setting(db, 'outer'), '1');
  t.is(setting(db, 'inner'), undefined);
  t.is(setting(db, 'after'), '3');
});

test('a throw rolls the whole transaction back; one with no statement sends nothing', async (t) => {
  const db = await store(t);
  const put = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)');
  t.throws(
    () =>
      db.transaction(() => {
        put.run('a', '1');
        db.transaction(() => put.run('b', '2'))();
        throw new Error('no');
      })(),
    { message: 'no' },
  );
  t.false(db.inTransaction);
  t.is(db.prepare('SELECT COUNT(*) AS n FROM settings').pluck().get(), 0);
  t.is(db.transaction(() => 42)(), 42, 'an empty transaction returns its value');
  t.is(db.transaction((a: number, b: number) => a + b)(2, 3), 5, 'arguments are passed on');
});

test('values round-trip as SQLite gives them: numbers, text, null, bytes', async (t) => {
  const db = await store(t);
  db.exec(
    'CREATE TABLE round_trip (i BIGINT, r DOUBLE PRECISION, s TEXT COLLATE "C", b BYTEA, n BIGINT)',
  );
  const text = 'it\'s "quoted" ? @not_a_param -- é 漢字 \u{1F600}';
  const bytes = Buffer.from([0, 1, 2, 254, 255]);
  db.prepare('INSERT INTO round_trip (i, r, s, b, n) VALUES (?, ?, ?, ?, ?)').run(
    1_764_000_000_123,
    0.25,
    text,
    bytes,
    null,
  );
  const row = db.prepare('SELECT * FROM round_trip').get() as Record<string, unknown>;
  t.deepEqual(row, { i: 1_764_000_000_123, r: 0.25, s: text, b: bytes, n: null });
  t.true(Buffer.isBuffer(row.b));
  // Aggregates (int8, numeric in PostgreSQL) are numbers.
  t.deepEqual(db.prepare('SELECT COUNT(*) AS c, SUM(i) AS s FROM round_trip').get(), {
    c: 1,
    s: 1_764_000_000_123,
  });
  // '?' in a string literal is text, not a parameter; raw and pluck rows.
  t.is(db.prepare("SELECT '?' || ? AS v").pluck().get('x'), '?x');
  t.deepEqual(db.prepare('SELECT i, s FROM round_trip').raw().get(), [1_764_000_000_123, text]);
  // Named parameters, each name once however often it is used.
  t.deepEqual(
    db.prepare('SELECT @a::text AS a, @b::bigint AS b, @a::text AS again').get({ a: 'x', b: 7 }),
    { a: 'x', b: 7, again: 'x' },
  );
  // Bytewise order, as SQLite's BINARY collation: 'B' < 'a'.
  db.exec("INSERT INTO settings (key, value) VALUES ('a', '1'), ('B', '2'), ('_', '3')");
  t.deepEqual(db.prepare('SELECT key FROM settings ORDER BY key').pluck().all(), ['B', '_', 'a']);
});

test('constraint violations carry the codes SQLite gives them; a full disk is storage full', async (t) => {
  const db = await store(t);
  db.exec(
    "INSERT INTO users (id, name, created_at) VALUES ('usr_1', 'u', 1);" +
      "INSERT INTO workspaces (id, name, tier, owner_id, created_at) VALUES ('ws_1', 'w', 'free', 'usr_1', 1)",
  );
  const key = db.prepare(
    `INSERT INTO api_keys (id, kind, user_id, workspace_id, name, hash, hint, scopes, environment, created_at)
     VALUES (?, 'standard', 'usr_1', 'ws_1', 'k', ?, 'h', '[]', 'sandbox', 1)`,
  );
  key.run('key_1', 'hash_1');
  t.throws(() => key.run('key_1', 'hash_2'), { code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
  t.throws(() => key.run('key_2', 'hash_1'), { code: 'SQLITE_CONSTRAINT_UNIQUE' });
  t.throws(
    () =>
      db
        .prepare(
          "INSERT INTO workspaces (id, name, tier, owner_id, created_at) VALUES ('ws_2', 'w', 'free', 'nobody', 1)",
        )
        .run(),
    { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' },
  );
  t.throws(
    () =>
      db
        .prepare(
          "INSERT INTO workspaces (id, name, tier, owner_id, created_at) VALUES ('ws_3', 'w', 'gold', 'usr_1', 1)",
        )
        .run(),
    { code: 'SQLITE_CONSTRAINT_CHECK' },
  );
  t.throws(() => db.prepare('INSERT INTO settings (key) VALUES (?)').run('k'), {
    code: 'SQLITE_CONSTRAINT_NOTNULL',
  });
  // disk_full (53100) cannot be made on demand here: its mapping is what the 507 path reads.
  t.true(isStorageFull(new PostgresError('could not extend file', '53100', undefined)));
  t.false(isStorageFull(new PostgresError('syntax error', '42601', undefined)));
});

test('an unreachable PostgreSQL is StoreUnavailableError naming host:port/database, never the password', async (t) => {
  const error = t.throws(
    () =>
      openPostgresDatabase({
        url: 'postgres://svc:s3cret@127.0.0.1:9/team',
        schema: freshSchema(),
      }),
    { instanceOf: StoreUnavailableError },
  );
  t.regex(error!.message, /127\.0\.0\.1:9\/team/);
  t.notRegex(error!.message, /s3cret/);
});

test.serial(
  'a PostgreSQL restart: statements meanwhile are StoreUnavailableError, the next one after reconnects',
  async (t) => {
    const server = await testPostgres();
    if (!server.halt || !server.start) {
      t.pass('SVC_TEST_PG_URL names a server this test may not restart');
      return;
    }
    const db = await store(t);
    const put = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)');
    put.run('before', '1');
    // A transaction the server loses is rolled back, and says so.
    t.throws(
      () =>
        db.transaction(() => {
          put.run('lost', '2');
          server.halt!();
          put.run('lost too', '3');
        })(),
      { instanceOf: StoreUnavailableError },
    );
    t.false(db.inTransaction);
    t.throws(() => setting(db, 'before'), { instanceOf: StoreUnavailableError });
    server.start();
    // The first work after the outage is a transaction: its BEGIN goes on the new connection with
    // its first statement, so it is whole (it was refused as lost, a 503 after every outage).
    db.transaction(() => put.run('first', '5'))();
    t.is(setting(db, 'first'), '5', 'the first transaction after the outage committed');
    t.is(setting(db, 'before'), '1', 'reconnected on the next statement');
    t.is(setting(db, 'lost'), undefined, 'the lost transaction was rolled back');
    // Prepared statements are parsed again on the new connection.
    put.run('after', '4');
    t.is(setting(db, 'after'), '4');
  },
);
