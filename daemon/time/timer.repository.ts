// Durable timers: "run this kind of job with this payload at time T", one row each.
//
// Team mode (several daemons on one PostgreSQL sandbox): a timer is claimed before its handler
// runs, `claimed_by` = the daemon (one UPDATE of the due rows it can lock, SKIP LOCKED, so two
// daemons never claim one timer); the claim goes when the timer is deleted, fails (free for any
// daemon to retry), or its daemon stops or is taken over (cluster/daemon-registry.ts). SQLite
// has one daemon: the due timers are read as they are, no claim is written.
import { storeKind, type Db } from '../store/db.js';
import { forUpdateSkipLocked, jsonArrayValues, limitParam } from '../store/dialect.js';
import { prepareLaterWrite } from '../store/later-writes.js';
import { prepareLaterInsert } from '../store/object-rows.js';

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
  /** The daemon that claimed it (team mode), null while any daemon may. */
  claimed_by?: string | null;
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
  private readonly existingStmt;
  private readonly deleteLaterStmt;
  private readonly buryStmt;
  private readonly deadCountStmt;
  private readonly claimStmt;
  private readonly nextFreeStmt;
  private readonly nextFreeAfterStmt;
  private readonly releaseStmt;

  private readonly deleteAll: (ids: readonly string[]) => void;

  /**
   * `claimant`: this daemon's name when several daemons may serve the store (PostgreSQL), so
   * that due timers are claimed; undefined alone on the store (SQLite).
   */
  constructor(
    db: Db,
    readonly claimant?: string,
  ) {
    // A new timer by a new id: sent with its transaction's next statement or COMMIT on
    // PostgreSQL (store/later-writes.ts); a due-now one is looked up only after the commit.
    this.insertStmt = prepareLaterInsert(
      db,
      'timers',
      'id, kind, due_at, payload, owner, created_at, claimed_by',
    );
    this.claimStmt = db.prepare<[string, number, string, number], TimerRow>(
      `UPDATE timers SET claimed_by = ? WHERE id IN (
         SELECT id FROM timers WHERE due_at <= ? AND (claimed_by IS NULL OR claimed_by = ?)
         ORDER BY due_at, id ${limitParam(db)} ${forUpdateSkipLocked(db)})
       RETURNING *`,
    );
    // The next timer this daemon could claim (team mode: one another daemon holds is not).
    this.nextFreeStmt = db.prepare<[], { due_at: number }>(
      'SELECT due_at FROM timers WHERE claimed_by IS NULL ORDER BY due_at LIMIT 1',
    );
    this.nextFreeAfterStmt = db.prepare<[number], { due_at: number }>(
      'SELECT due_at FROM timers WHERE due_at > ? AND claimed_by IS NULL ORDER BY due_at LIMIT 1',
    );
    this.releaseStmt = db.prepare('UPDATE timers SET claimed_by = NULL WHERE claimed_by = ?');
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
    // One transaction, its deletes sent with its COMMIT on PostgreSQL (one round trip).
    this.deleteLaterStmt = prepareLaterWrite<[string]>(db, 'DELETE FROM timers WHERE id = ?');
    this.deleteAll = db.transaction((ids: readonly string[]) => {
      for (const id of ids) this.deleteLaterStmt.run(id);
    });
    this.failStmt = db.prepare(
      'UPDATE timers SET attempts = attempts + 1, last_error = ?, due_at = ?, claimed_by = NULL WHERE id = ?',
    );
    this.countStmt = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM timers');
    this.cancelStmt = db.prepare('DELETE FROM timers WHERE owner = ?');
    this.existsStmt = db.prepare<[string], { id: string }>('SELECT id FROM timers WHERE id = ?');
    // PostgreSQL: the timers of a tick in one statement (one round trip); SQLite reads each by
    // key (no round trip to save, and a point read is cheaper than json_each).
    this.existingStmt =
      storeKind(db) === 'sqlite'
        ? undefined
        : db
            .prepare<[string], string>(`SELECT id FROM timers WHERE id IN (${jsonArrayValues(db)})`)
            .pluck();
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

  insert(
    row: Omit<TimerRow, 'attempts' | 'last_error' | 'claimed_by'> & { claimed_by: string | null },
  ): void {
    this.insertStmt.run(row);
  }

  /** Timers due at `now`, oldest first, without claiming them (svc settle's view). */
  due(now: number, limit: number): TimerRow[] {
    return this.dueStmt.all(now, limit);
  }

  /** Timers due at `now` for this daemon to run: claimed in team mode (see the top). */
  claimDue(now: number, limit: number): TimerRow[] {
    if (this.claimant === undefined) return this.dueStmt.all(now, limit);
    return this.claimStmt.all(this.claimant, now, this.claimant, limit);
  }

  nextDueAt(): number | undefined {
    return this.nextDueStmt.get()?.due_at;
  }

  /** The next due time of a timer this daemon could claim (its real-time wake-up). */
  nextClaimableAt(): number | undefined {
    if (this.claimant === undefined) return this.nextDueAt();
    return this.nextFreeStmt.get()?.due_at;
  }

  /** The next due time after `time` of a timer this daemon could claim. */
  nextClaimableAfter(time: number): number | undefined {
    if (this.claimant === undefined) return this.nextDueAfter(time);
    return this.nextFreeAfterStmt.get(time)?.due_at;
  }

  /** Stopping: every timer this daemon claimed is free for the others (team mode). */
  releaseClaims(): void {
    if (this.claimant !== undefined) this.releaseStmt.run(this.claimant);
  }

  /** The earliest due time later than `time`. */
  nextDueAfter(time: number): number | undefined {
    return this.nextDueAfterStmt.get(time)?.due_at;
  }

  delete(id: string): void {
    this.deleteStmt.run(id);
  }

  /** Deletes a timer in the caller's transaction (sent with its COMMIT on PostgreSQL). */
  deleteLater(id: string): void {
    this.deleteLaterStmt.run(id);
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

  /** Which of these timers are stored. */
  existing(ids: readonly string[]): Set<string> {
    if (this.existingStmt && ids.length > 1) {
      return new Set(this.existingStmt.all(JSON.stringify(ids)));
    }
    return new Set(ids.filter((id) => this.exists(id)));
  }

  /** Moves a timer that used up its attempts to dead_timers, where it stays for inspection. */
  bury(id: string, error: string, at: number): void {
    this.buryStmt(id, error, at);
  }

  deadCount(): number {
    return this.deadCountStmt.get()?.n ?? 0;
  }
}
