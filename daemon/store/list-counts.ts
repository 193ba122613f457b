// The counters behind total_count of the lists that grow without bound (migration 9 keeps them
// with triggers, per scope and bucket): a list's count is the sum of a few counters, whatever
// the number of rows.
import type { Condition } from './list-query.js';
import type { Db } from './database.js';
import { StatementCache } from './statement-cache.js';

export type CountedList = 'events' | 'runs' | 'deliveries';

export class ListCounts {
  private readonly statements: StatementCache;

  constructor(
    db: Db,
    private readonly list: CountedList,
  ) {
    this.statements = new StatementCache(db);
  }

  /** Rows of `scope`, in every bucket or in those that meet `bucket` (a condition on `bucket`). */
  sum(scope: string, bucket?: Condition): number {
    const [sql, ...params] = bucket ?? ['1'];
    const row = this.statements
      .get(
        `SELECT COALESCE(SUM(n), 0) AS n FROM list_counts WHERE list = ? AND scope = ? AND ${sql}`,
      )
      .get(this.list, scope, ...params) as { n: number };
    return row.n;
  }

  /** A COUNT(*) of the rows `where` selects: for the few rows a counter holds but a list skips. */
  countRows(table: string, where: Condition): number {
    const [sql, ...params] = where;
    const row = this.statements
      .get(`SELECT COUNT(*) AS n FROM ${table} WHERE ${sql}`)
      .get(...params) as { n: number };
    return row.n;
  }
}
