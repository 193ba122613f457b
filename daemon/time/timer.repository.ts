// Durable timers: "run this kind of job with this payload at time T", one row each.
import type { Db } from '../store/db.js';
import { limitParam } from '../store/dialect.js';
import { prepareInsert } from '../store/object-rows.js';

export interface TimerRow {
  id: string;
  kind: string;
  due_at: number;
  payload: string;
  /** The object the timer works for (an execution, a delivery): cancelled together by it. */
  owner: string | null;
  attempts: number;
  last_error: string | null;
  created_at: number;
}

export class TimerRepository {
  private readonly insertStmt;
  private readonly dueStmt;
  private readonly nextDueStmt;
  private readonly nextDueAfterStmt;
  private readonly deleteStmt;
  private readonly failStmt;
  private readonly countStmt;
  private readonly cancelStmt;
  private readonly existsStmt;
  private readonly buryStmt;
  private readonly deadCountStmt;

  private readonly deleteAll: (ids: readonly string[]) => void;

  constructor(db: Db) {
    this.insertStmt = prepareInsert(db, 'timers', 'id, kind, due_at, payload, owner, created_at');
    this.dueStmt = db.prepare<[number, number], TimerRow>(
      `SELECT * FROM timers WHERE due_at <= ? ORDER BY due_at, id ${limitParam(db)}`,
    );
    this.nextDueStmt = db.prepare<[], { due_at: number }>(
      'SELECT due_at FROM timers ORDER BY due_at LIMIT 1',
    );
    this.nextDueAfterStmt = db.prepare<[number], { due_at: number }>(
      'SELECT due_at FROM timers WHERE due_at > ? ORDER BY due_at LIMIT 1',
    );
    this.deleteStmt = db.prepare('DELETE FROM timers WHERE id = ?');
    this.deleteAll = db.transaction((ids: readonly string[]) => {
      for (const id of ids) this.deleteStmt.run(id);
    });
    this.failStmt = db.prepare(
      'UPDATE timers SET attempts = attempts + 1, last_error = ?, due_at = ? WHERE id = ?',
    );
    this.countStmt = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM timers');
    this.cancelStmt = db.prepare('DELETE FROM timers WHERE owner = ?');
    this.existsStmt = db.prepare<[string], { id: string }>('SELECT id FROM timers WHERE id = ?');
    const copyDead = db.prepare(
      `INSERT INTO dead_timers (id, kind, owner, payload, attempts, last_error, created_at, died_at)
       SELECT id, kind, owner, payload, attempts + 1, ?, created_at, ? FROM timers WHERE id = ?`,
    );
    this.buryStmt = db.transaction((id: string, error: string, at: number) => {
      copyDead.run(error, at, id);
      this.deleteStmt.run(id);
    });
    this.deadCountStmt = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM dead_timers');
  }

  insert(row: Omit<TimerRow, 'attempts' | 'last_error'>): void {
    this.insertStmt.run(row);
  }

  due(now: number, limit: number): TimerRow[] {
    return this.dueStmt.all(now, limit);
  }

  nextDueAt(): number | undefined {
    return this.nextDueStmt.get()?.due_at;
  }

  /** The earliest due time later than `time`. */
  nextDueAfter(time: number): number | undefined {
    return this.nextDueAfterStmt.get(time)?.due_at;
  }

  delete(id: string): void {
    this.deleteStmt.run(id);
  }

  deleteMany(ids: readonly string[]): void {
    this.deleteAll(ids);
  }

  recordFailure(id: string, error: string, retryAt: number): void {
    this.failStmt.run(error, retryAt, id);
  }

  count(): number {
    return this.countStmt.get()?.n ?? 0;
  }

  /** Deletes every pending timer of an owner (indexed). */
  cancelOwned(owner: string): number {
    return this.cancelStmt.run(owner).changes;
  }

  exists(id: string): boolean {
    return this.existsStmt.get(id) !== undefined;
  }

  /** Moves a timer that used up its attempts to dead_timers, where it stays for inspection. */
  bury(id: string, error: string, at: number): void {
    this.buryStmt(id, error, at);
  }

  deadCount(): number {
    return this.deadCountStmt.get()?.n ?? 0;
  }
}
