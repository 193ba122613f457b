// Rows read on every request about them and written rarely (agents, workflows, workflow
// versions), except for their running counters (stats): a repository keeps them here until it writes them. A cached row is the same object
// on every read, so callers must not mutate it.
//
// Team mode (PostgreSQL): other daemons write the same rows, counters included, so nothing is
// kept across turns of the event loop (`keeps` false): get() loads the row each time, and
// configured() keeps it only for the synchronous stretch it was read in (TickMemo: the timers of
// one pass, the changes of one group commit read it once). Told-on invalidation would save the
// rest; not built yet (docs/team-mode.md, "Several daemons").
import { storeKind, type Db } from './db.js';
import { TickMemo } from './tick-memo.js';

export class RowCache<Row> {
  private readonly rows = new Map<string, Row>();
  /** Rows whose running counters (stats) changed in the store since they were cached. */
  private readonly countersMoved = new Set<string>();
  /** `keeps` false: rows read by configured() in this synchronous stretch. */
  private readonly stretch = new TickMemo<Row | undefined>();

  /** `keeps` false: a pass-through (a store other daemons write too). */
  constructor(private readonly keeps = true) {}

  /** The row as stored: the cached one unless its counters moved, else the one `load` reads. */
  get(key: string, load: () => Row | undefined): Row | undefined {
    if (this.countersMoved.delete(key)) this.rows.delete(key);
    return this.configured(key, load);
  }

  /**
   * The row for what it is configured to be: its running counters may lag behind the store.
   * Work that only uses the configuration (executing an agent, running a workflow) need not
   * read the row again each time one of them counts an interaction.
   */
  configured(key: string, load: () => Row | undefined): Row | undefined {
    if (!this.keeps) return this.stretch.get(key, load);
    let row = this.rows.get(key);
    if (!row) {
      row = load();
      if (row) this.rows.set(key, row);
    }
    return row;
  }

  /** The row's counters changed in the store: get() reads it again, configured() need not. */
  moveCounters(key: string): void {
    this.countersMoved.add(key);
  }

  /** Drops the row: the next read loads it again (call it before or after writing it). */
  forget(key: string): void {
    this.rows.delete(key);
    this.stretch.forget(key);
  }
}

/** Whether a repository on `db` may keep rows (RowCache): only when it is the one writer. */
export function cacheRows(db: Db): boolean {
  return storeKind(db) === 'sqlite';
}
