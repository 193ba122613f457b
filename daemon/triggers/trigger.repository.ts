// Rows of workflow_triggers (what starts each non-manual workflow), event_triggered_runs and
// hook_signatures (the signed hook requests already accepted).
import type { Db } from '../store/db.js';
import { cacheRows } from '../store/row-cache.js';
import { forUpdate } from '../store/dialect.js';
import { TickMemo } from '../store/tick-memo.js';

export interface TriggerRow {
  workflow_id: string;
  workspace_id: string;
  type: 'webhook' | 'schedule' | 'event';
  active: 0 | 1;
  hook_path: string | null;
  hook_secret: string | null;
  event_patterns: string | null;
  cron: string | null;
  timezone: string | null;
  next_fire_at: number | null;
}

/** A signed hook request that started a run, kept until its signature can no longer verify. */
export interface HookSignatureRow {
  workspace_id: string;
  digest: string;
  workflow_id: string;
  execution_id: string;
  /** Daemon clock (ms). */
  accepted_at: number;
  /** Real time (ms), like the signature's t: when the signature stops verifying. */
  expires_at: number;
}

const HOOK_CACHE_LIMIT = 10_000;

export class TriggerRepository {
  private readonly getStmt;
  private readonly upsertStmt;
  private readonly deleteStmt;
  private readonly byPathStmt;
  private readonly eventStmt;
  private readonly dueSchedulesStmt;
  private readonly nextFireStmt;
  private readonly insertRunStmt;
  private readonly runDepthStmt;
  private readonly purgeRunsStmt;
  private readonly anyEventStmt;
  private readonly signatureStmt;
  private readonly insertSignatureStmt;
  private readonly purgeSignaturesStmt;

  /**
   * Webhook triggers by workspace and path, read on every hook call. Only rows read outside a
   * transaction (committed) are kept; every write of a trigger forgets them all.
   */
  private readonly hooks = new Map<string, TriggerRow>();
  /**
   * Whether this daemon is the store's one writer (SQLite), so that what it read of the
   * triggers stays true until it writes them itself; false in team mode, where other daemons
   * write them too (a hook paused or given a new secret there): nothing is kept then.
   */
  readonly keepsRows: boolean;
  /** The active event triggers of a workspace read in this synchronous stretch. */
  private readonly eventTriggers = new TickMemo<
    readonly Pick<TriggerRow, 'workflow_id' | 'event_patterns'>[]
  >();

  constructor(private readonly db: Db) {
    this.keepsRows = cacheRows(db);
    this.getStmt = db.prepare<[string], TriggerRow>(
      'SELECT * FROM workflow_triggers WHERE workflow_id = ?',
    );
    this.upsertStmt = db.prepare(
      `INSERT INTO workflow_triggers (workflow_id, workspace_id, type, active, hook_path, hook_secret, event_patterns, cron, timezone, next_fire_at)
       VALUES (@workflow_id, @workspace_id, @type, @active, @hook_path, @hook_secret, @event_patterns, @cron, @timezone, @next_fire_at)
       ON CONFLICT (workflow_id) DO UPDATE SET type = excluded.type, active = excluded.active, hook_path = excluded.hook_path,
         hook_secret = excluded.hook_secret, event_patterns = excluded.event_patterns, cron = excluded.cron,
         timezone = excluded.timezone, next_fire_at = excluded.next_fire_at`,
    );
    this.deleteStmt = db.prepare('DELETE FROM workflow_triggers WHERE workflow_id = ?');
    this.byPathStmt = db.prepare<[string, string], TriggerRow>(
      'SELECT * FROM workflow_triggers WHERE workspace_id = ? AND hook_path = ?',
    );
    this.eventStmt = db.prepare<[string], Pick<TriggerRow, 'workflow_id' | 'event_patterns'>>(
      "SELECT workflow_id, event_patterns FROM workflow_triggers WHERE workspace_id = ? AND type = 'event' AND active = 1",
    );
    this.dueSchedulesStmt = db.prepare<[number], TriggerRow>(
      `SELECT * FROM workflow_triggers WHERE type = 'schedule' AND active = 1 AND next_fire_at <= ? ${forUpdate(db)}`,
    );
    this.nextFireStmt = db.prepare(
      'UPDATE workflow_triggers SET next_fire_at = ? WHERE workflow_id = ?',
    );
    this.insertRunStmt = db.prepare(
      'INSERT INTO event_triggered_runs (execution_id, depth, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
    );
    this.runDepthStmt = db.prepare<[string], { depth: number }>(
      'SELECT depth FROM event_triggered_runs WHERE execution_id = ?',
    );
    this.purgeRunsStmt = db.prepare('DELETE FROM event_triggered_runs WHERE created_at < ?');
    this.anyEventStmt = db.prepare<[], { found: number }>(
      "SELECT EXISTS (SELECT 1 FROM workflow_triggers WHERE type = 'event') AS found",
    );
    this.signatureStmt = db.prepare<[string, string], HookSignatureRow>(
      'SELECT * FROM hook_signatures WHERE workspace_id = ? AND digest = ?',
    );
    this.insertSignatureStmt = db.prepare(
      `INSERT INTO hook_signatures (workspace_id, digest, workflow_id, execution_id, accepted_at, expires_at)
       VALUES (@workspace_id, @digest, @workflow_id, @execution_id, @accepted_at, @expires_at)`,
    );
    this.purgeSignaturesStmt = db.prepare('DELETE FROM hook_signatures WHERE expires_at <= ?');
  }

  get(workflowId: string): TriggerRow | undefined {
    return this.getStmt.get(workflowId);
  }

  /** When the workflow's active schedule fires next (daemon clock, ms); null for any other trigger. */
  nextRunAt(workflowId: string): number | null {
    const row = this.getStmt.get(workflowId);
    return row?.type === 'schedule' && row.active === 1 ? row.next_fire_at : null;
  }

  upsert(row: TriggerRow): void {
    this.hooks.clear();
    this.eventTriggers.forget();
    this.upsertStmt.run(row);
  }

  delete(workflowId: string): void {
    this.hooks.clear();
    this.eventTriggers.forget();
    this.deleteStmt.run(workflowId);
  }

  /** The row, the same object until a trigger is written (callers must not mutate it). */
  byHookPath(workspaceId: string, path: string): TriggerRow | undefined {
    const key = `${workspaceId}/${path}`;
    let row = this.hooks.get(key);
    if (!row) {
      row = this.byPathStmt.get(workspaceId, path);
      if (row && this.keepsRows && !this.db.inTransaction) {
        if (this.hooks.size >= HOOK_CACHE_LIMIT) this.hooks.clear();
        this.hooks.set(key, row);
      }
    }
    return row;
  }

  hasEventTriggers(): boolean {
    return this.anyEventStmt.get()!.found === 1;
  }

  /**
   * Read once per synchronous stretch (store/tick-memo.ts): every event a run's transition or a
   * group commit publishes asks it, and the ones of one stretch get the same answer.
   */
  activeEventTriggers(
    workspaceId: string,
  ): readonly Pick<TriggerRow, 'workflow_id' | 'event_patterns'>[] {
    return this.eventTriggers.get(workspaceId, () => this.eventStmt.all(workspaceId));
  }

  /** Active schedules whose next fire time is at or before the instant (missed ones at start). */
  dueSchedules(atMs: number): TriggerRow[] {
    return this.dueSchedulesStmt.all(atMs);
  }

  setNextFire(workflowId: string, atMs: number): void {
    this.hooks.clear();
    this.nextFireStmt.run(atMs, workflowId);
  }

  recordEventRun(executionId: string, depth: number, atMs: number): void {
    this.insertRunStmt.run(executionId, depth, atMs);
  }

  eventRunDepth(executionId: string): number | undefined {
    return this.runDepthStmt.get(executionId)?.depth;
  }

  purgeEventRunsBefore(atMs: number): number {
    return this.purgeRunsStmt.run(atMs).changes;
  }

  acceptedSignature(workspaceId: string, digest: string): HookSignatureRow | undefined {
    return this.signatureStmt.get(workspaceId, digest);
  }

  /** Throws SQLITE_CONSTRAINT_PRIMARYKEY for a signature already recorded in the workspace. */
  recordSignature(row: HookSignatureRow): void {
    this.insertSignatureStmt.run(row);
  }

  /** Forgets signatures that can no longer verify at `realMs`; returns how many. */
  purgeSignaturesExpiredAt(realMs: number): number {
    return this.purgeSignaturesStmt.run(realMs).changes;
  }
}
