// The counters behind total_count of the lists that grow without bound, per scope and bucket
// (migration 9): a list's count is the sum of a few counters, whatever the number of rows.
// Inserts and status changes are counted by their repositories (ListCountWrites), deletes by
// triggers.
import type { Condition } from './list-query.js';
import { PendingCounters, type CounterDeferral } from './commit-queue.js';
import type { Db } from './db.js';
import { prepareLaterWrite } from './later-writes.js';
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
    const [sql, ...params] = bucket ?? ['TRUE'];
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

/**
 * Counts the rows a repository inserts into a counted list. An AFTER INSERT trigger did this
 * until migration 14, but a statement with a trigger opens a statement journal, which copies
 * every page the insert touches: measured 2-2.8 µs of an event's 7-10 µs insert, for a trigger
 * that did nothing. In the group commit's transaction the counts are added up per counter and
 * written once, just before it commits (CounterDeferral); in any other transaction at once.
 * Either way in the transaction of the rows, so a counter never disagrees with its rows after a
 * crash (PendingCounters, as agents' and workflows' stats). A status change (the bucket of runs
 * and deliveries) is counted the same way since migration 15: its trigger cost 2.8 µs of a
 * delivery's 13 µs update. Deletes keep their triggers (housekeeping, once a minute).
 */
export class ListCountWrites {
  /** Rows added per counter, keyed `scope` NUL `bucket` (`at` is not used). */
  private readonly pending: PendingCounters<{ at: number; n: number }>;

  constructor(db: Db, list: CountedList, deferral: CounterDeferral) {
    // Sent with the transaction's next statement or its COMMIT on PostgreSQL (later-writes.ts).
    const upsert = prepareLaterWrite<[CountedList, string, string, number]>(
      db,
      `INSERT INTO list_counts (list, scope, bucket, n) VALUES (?, ?, ?, ?)
       ON CONFLICT (list, scope, bucket) DO UPDATE SET n = list_counts.n + excluded.n`,
    );
    this.pending = new PendingCounters(deferral, (key, { n }) => {
      // A row inserted and moved on in the same group leaves its first bucket as it was.
      if (n === 0) return;
      const split = key.indexOf('\0');
      upsert.run(list, key.slice(0, split), key.slice(split + 1), n);
    });
  }

  /** One row of `scope` in `bucket` was inserted (call it in the insert's transaction). */
  inserted(scope: string, bucket: string): void {
    this.pending.add(`${scope}\0${bucket}`, { at: 0, n: 1 });
  }

  /** One row of `scope` moved from bucket `from` to `to` (call it in the update's transaction). */
  moved(scope: string, from: string, to: string): void {
    if (from === to) return;
    this.pending.add(`${scope}\0${from}`, { at: 0, n: -1 });
    this.pending.add(`${scope}\0${to}`, { at: 0, n: 1 });
  }
}
