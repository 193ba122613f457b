// Numbers sent as parameters mean on PostgreSQL what they mean on SQLite. PostgreSQL types an
// untyped parameter by what is beside it (NULLIF(?, 0) or ? * 1000 make it an int4), which
// refused epoch milliseconds ('value 1795917697024 is out of range for type integer') and
// would overflow 32 bits where SQLite computes in 64; the adapter declares integers as int8
// and fractions as float8 (postgres/worker.ts). Each statement runs on both stores.
import test from 'ava';
import type { Db, StoreKind } from '../../daemon/store/db.js';
import { openTestStore, STORE_KINDS } from '../helpers/postgres.js';

const EPOCH_MS = 1_795_917_697_024;

async function store(t: import('ava').ExecutionContext, kind: StoreKind): Promise<Db> {
  const db = await openTestStore(kind);
  t.teardown(() => db.close());
  return db;
}

for (const kind of STORE_KINDS) {
  test(`${kind}: an integer beside a small literal keeps its 64 bits`, async (t) => {
    const db = await store(t, kind);
    const nullIf = db.prepare('SELECT NULLIF(@at, 0) AS v').pluck();
    t.is(nullIf.get({ at: EPOCH_MS }), EPOCH_MS);
    t.is(nullIf.get({ at: 0 }), null);
    t.is(db.prepare('SELECT ? * 1000 AS v').pluck().get(3_000_000), 3_000_000_000);
    t.is(
      db
        .prepare('SELECT ? + 1 AS v')
        .pluck()
        .get(2 ** 31),
      2 ** 31 + 1,
    );
    t.is(db.prepare('SELECT COALESCE(?, 0) AS v').pluck().get(-EPOCH_MS), -EPOCH_MS);
    t.is(db.prepare('SELECT ? AS v').pluck().get(BigInt(EPOCH_MS)), EPOCH_MS);
  });

  test(`${kind}: a statement first run with null or a small number takes an epoch later`, async (t) => {
    const db = await store(t, kind);
    // PostgreSQL parses a prepared statement once per connection: the types of its first run
    // must not decide the later ones.
    const due = db.prepare('SELECT COALESCE(NULLIF(?, 0), -1) AS v').pluck();
    t.is(due.get(null), -1);
    t.is(due.get(5), 5);
    t.is(due.get(EPOCH_MS), EPOCH_MS);
    t.is(due.get(0.5), 0.5);
    t.is(due.get(null), -1);
  });

  test(`${kind}: a fraction stays a fraction`, async (t) => {
    const db = await store(t, kind);
    t.is(db.prepare('SELECT ? * 2 AS v').pluck().get(0.25), 0.5);
    t.is(db.prepare('SELECT NULLIF(?, 0) AS v').pluck().get(1.5), 1.5);
    t.is(db.prepare('SELECT ? AS v').pluck().get(1e300), 1e300);
  });

  test(`${kind}: numbers still go into bigint and float columns and compare with them`, async (t) => {
    const db = await store(t, kind);
    db.exec('CREATE TABLE times (at BIGINT, score DOUBLE PRECISION)');
    db.prepare('INSERT INTO times (at, score) VALUES (?, ?)').run(EPOCH_MS, 3);
    db.prepare('INSERT INTO times (at, score) VALUES (?, ?)').run(7, 0.5);
    t.deepEqual(
      db.prepare('SELECT at FROM times WHERE at > ? AND score >= ? ORDER BY at').pluck().all(10, 1),
      [EPOCH_MS],
    );
    t.deepEqual(db.prepare('SELECT at FROM times WHERE score < ?').pluck().all(0.75), [7]);
    t.deepEqual(db.prepare('SELECT at FROM times ORDER BY at LIMIT ?').pluck().all(1), [7]);
    // A length for substr is an int4 on PostgreSQL: the SQL casts it (event.repository.ts).
    t.is(db.prepare('SELECT substr(?, 1, CAST(? AS INTEGER)) AS v').pluck().get('evt.a', 3), 'evt');
  });
}
