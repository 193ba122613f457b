// What the store asks SQLite, for tests that hold list and lookup queries to their indexes: the
// statements a piece of work prepares, and SQLite's plan for a statement (EXPLAIN QUERY PLAN).
import type { Db } from '../../daemon/store/db.js';

/** The SQL of the statements matching `kind` that the store prepares while `work` runs. */
export function prepared(db: Db, kind: RegExp, work: () => void): string[] {
  const seen: string[] = [];
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    if (kind.test(sql)) seen.push(sql);
    return prepare(sql);
  }) as Db['prepare'];
  try {
    work();
  } finally {
    db.prepare = prepare as Db['prepare'];
  }
  return seen;
}

/** The SELECT statements prepared while `work` runs. */
export const preparedSelects = (db: Db, work: () => void): string[] =>
  prepared(db, /^\s*SELECT/i, work);

/** SQLite's plan for `sql` (each `?` bound to null): one detail line per step. */
export function queryPlan(db: Db, sql: string): string[] {
  const params = new Array<null>(sql.split('?').length - 1).fill(null);
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map(
    (row) => row.detail,
  );
}
