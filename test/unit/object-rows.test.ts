import test from 'ava';
import { openDatabase } from '../../daemon/store/database.js';
import { prepareRows, prepareRowWrite } from '../../daemon/store/object-rows.js';

function setUp() {
  const db = openDatabase(':memory:', []);
  db.exec(`
    CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER, r REAL, s TEXT, b BLOB, z TEXT);
    CREATE TABLE u (id TEXT PRIMARY KEY, t_id TEXT, s TEXT);
  `);
  const insert = db.prepare('INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)');
  insert.run('a', 1, 1.5, 'text é 😀', Buffer.from([0, 255]), null);
  insert.run('b', -9_007_199_254_740_991, 0, '', Buffer.alloc(0), null);
  insert.run('c', null, null, null, null, 'z');
  db.prepare('INSERT INTO u VALUES (?, ?, ?)').run('u1', 'a', 'from u');
  return db;
}

test('rows equal better-sqlite3 object rows: every type, column order, same-named columns', (t) => {
  const db = setUp();
  for (const sql of [
    'SELECT * FROM t ORDER BY id',
    'SELECT s, id, n AS renamed FROM t ORDER BY id',
    // Two columns named id and s: the last one wins, in both.
    'SELECT t.*, u.* FROM t LEFT JOIN u ON u.t_id = t.id ORDER BY t.id',
  ]) {
    const expected = db.prepare(sql).all();
    const actual = prepareRows<Record<string, unknown>>(db, sql).all();
    t.deepEqual(actual, expected, sql);
    t.deepEqual(
      actual.map((row) => Object.keys(row)),
      expected.map((row) => Object.keys(row as object)),
      `${sql}: key order`,
    );
  }
});

test('get gives the first row or undefined; parameters bind as in better-sqlite3', (t) => {
  const db = setUp();
  const byId = prepareRows<{ id: string; n: number | null }, [string]>(
    db,
    'SELECT * FROM t WHERE id = ?',
  );
  t.deepEqual(byId.get('a'), db.prepare('SELECT * FROM t WHERE id = ?').get('a'));
  t.is(byId.get('nope'), undefined);
  const named = prepareRows<{ id: string }, [{ min: number }]>(
    db,
    'SELECT id FROM t WHERE n >= @min ORDER BY id',
  );
  t.deepEqual(named.all({ min: 0 }), [{ id: 'a' }]);
  t.deepEqual(named.all({ min: 10 }), []);
});

test('rows are separate objects: changing one changes no other', (t) => {
  const db = setUp();
  const reader = prepareRows<{ id: string; s: string | null }>(
    db,
    'SELECT id, s FROM t ORDER BY id',
  );
  const [first, second] = reader.all();
  first!.s = 'changed';
  t.is(second!.s, '');
  t.is(reader.get()!.s, 'text é 😀');
});

test('prepareRowWrite stores what better-sqlite3 stores from the same named parameters', (t) => {
  const db = setUp();
  const insert = 'INSERT INTO t (id, n, r, s, b, z) VALUES (@id, @n, @r, @s, @b, @s)';
  const update =
    "UPDATE t SET n = @n + 1, s = @s || '' WHERE id = @id AND (n IS NULL OR n < @n) AND s <> '@n'";
  const rows = [
    { id: 'w1', n: 7, r: 0.25, s: 'é 😀 @not_a_name', b: Buffer.from([1, 2]) },
    { id: 'w2', n: 9_007_199_254_740_991, r: null, s: null, b: null },
  ];
  const mine = prepareRowWrite<(typeof rows)[number]>(db, insert);
  for (const row of rows) t.is(mine.run(row).changes, 1);
  const theirs = db.prepare(insert.replace(/VALUES \(@id/, "VALUES ('x' || @id"));
  for (const row of rows) theirs.run(row);
  const read = (id: string) => db.prepare('SELECT n, r, s, b, z FROM t WHERE id = ?').get(id);
  for (const row of rows) t.deepEqual(read(row.id), read(`x${row.id}`), row.id);

  // A name used twice binds twice, a literal '@n' stays text; changes come back as usual.
  const bump = prepareRowWrite<{ id: string; n: number; s: string }>(db, update);
  t.is(bump.run({ id: 'w1', n: 8, s: 'bumped' }).changes, 1);
  t.deepEqual(read('w1'), { n: 9, r: 0.25, s: 'bumped', b: Buffer.from([1, 2]), z: rows[0]!.s });
  t.is(bump.run({ id: 'w1', n: 8, s: 'again' }).changes, 0);
});

test('prepareRowWrite refuses a row that lacks a parameter, as better-sqlite3 does', (t) => {
  const db = setUp();
  const write = prepareRowWrite<{ id: string; n?: number }>(
    db,
    'INSERT INTO t (id, n) VALUES (@id, @n)',
  );
  t.throws(() => write.run({ id: 'w3' }), {
    instanceOf: RangeError,
    message: 'Missing named parameter "n"',
  });
  t.is(db.prepare('SELECT COUNT(*) FROM t WHERE id = ?').pluck().get('w3'), 0);
});
