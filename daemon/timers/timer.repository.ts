// Durable timers: "run this kind of job with this payload at time T", one row each.
import type { Db } from '../store/database.js';

export interface TimerRow {
  id: string;
  kind: string;
  due_at: number;
  payload: string;
  attempts: number;
  last_error: string | null;
  created_at: number;
}

export class TimerRepository {
  private readonly insertStmt;
  private readonly dueStmt;
  private readonly nextDueStmt;
  private readonly deleteStmt;
  private readonly failStmt;
  private readonly countStmt;
  private readonly cancelStmt;

  private readonly deleteAll: (ids: readonly string[]) => void;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      'INSERT INTO timers (id, kind, due_at, payload, created_at) VALUES (@id, @kind, @due_at, @payload, @created_at)',
    );
    this.dueStmt = db.prepare<[number, number], TimerRow>(
      'SELECT * FROM timers WHERE due_at <= ? ORDER BY due_at, id LIMIT ?',
    );
    this.nextDueStmt = db.prepare<[], { due_at: number }>(
      'SELECT due_at FROM timers ORDER BY due_at LIMIT 1',
    );
    this.deleteStmt = db.prepare('DELETE FROM timers WHERE id = ?');
    this.deleteAll = db.transaction((ids: readonly string[]) => {
      for (const id of ids) this.deleteStmt.run(id);
    });
    this.failStmt = db.prepare(
      'UPDATE timers SET attempts = attempts + 1, last_error = ?, due_at = ? WHERE id = ?',
    );
    this.countStmt = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM timers');
    this.cancelStmt = db.prepare('DELETE FROM timers WHERE kind = ? AND payload = ?');
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

  cancel(kind: string, payload: string): number {
    return this.cancelStmt.run(kind, payload).changes;
  }
}
