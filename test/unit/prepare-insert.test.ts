import test from 'ava';
import { openDatabase } from '../../daemon/store/database.js';
import { prepareInsert } from '../../daemon/store/object-rows.js';

function setUp() {
  const db = openDatabase(':memory:', []);
  db.exec("CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER, s TEXT, z TEXT DEFAULT ('kept'))");
  return db;
}

const read = (db: ReturnType<typeof setUp>, id: string) =>
  db.prepare('SELECT id, n, s, z FROM t WHERE id = ?').get(id);

test('prepareInsert writes the named columns from a row, in any field order, others left to their default', (t) => {
  const db = setUp();
  const insert = prepareInsert(db, 't', 'id, n, s');
  t.is(insert.run({ s: 'text @n', n: 7, id: 'a' }).changes, 1);
  // Fields that are not columns of the list are not written (a row type may have more).
  const wider = { id: 'b', n: null, s: null, extra: 'ignored' };
  t.is(insert.run(wider).changes, 1);
  t.deepEqual(read(db, 'a'), { id: 'a', n: 7, s: 'text @n', z: 'kept' });
  t.deepEqual(read(db, 'b'), { id: 'b', n: null, s: null, z: 'kept' });
});

test('prepareInsert refuses a row without one of its columns, writing nothing', (t) => {
  const db = setUp();
  const insert = prepareInsert(db, 't', 'id, n, s');
  t.throws(() => insert.run({ id: 'c', n: 1 } as unknown as { id: string; n: number; s: string }), {
    instanceOf: RangeError,
    message: 'Missing named parameter "s"',
  });
  t.is(read(db, 'c'), undefined);
});
