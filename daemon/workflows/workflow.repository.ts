// Workflow rows and their versions (steps + settings per version, so a run keeps the definition
// it started with). Rows and versions are cached: every run reads them.
import type { ListQueryInput, Page } from '../domain/pages.js';
import { cacheRows, RowCache } from '../store/row-cache.js';
import { PendingCounters, type CounterDeferral } from '../store/commit-queue.js';
import type { Db } from '../store/db.js';
import { prepareLaterWrite } from '../store/later-writes.js';
import { ListQuery } from '../store/list-query.js';
import { prepareInsert } from '../store/object-rows.js';

export interface WorkflowListFilter {
  workspaceId: string;
  status?: string | undefined;
}

export interface WorkflowRow {
  id: string;
  workspace_id: string;
  name: string;
  description: string | null;
  status: 'draft' | 'active' | 'paused' | 'archived';
  trigger: string;
  version: number;
  created_at: number;
  updated_at: number;
  last_executed_at: number | null;
  stat_total: number;
  stat_ended: number;
  stat_succeeded: number;
  stat_duration_ms: number;
}

export interface VersionRow {
  workflow_id: string;
  version: number;
  name: string;
  steps: string;
  settings: string;
  created_at: number;
}

/** What the stats UPDATE adds; `at` is the last start (last_executed_at) when started > 0. */
type RunStats = {
  started: number;
  at: number;
  ended: number;
  succeeded: number;
  duration_ms: number;
};

export class WorkflowRepository {
  private readonly list: ListQuery<WorkflowRow, WorkflowListFilter>;
  private readonly rows: RowCache<WorkflowRow>;
  /** By `<workflow id>:<version>`. */
  private readonly versions: RowCache<VersionRow>;
  private readonly insertStmt;
  private readonly versionStmt;
  private readonly getStmt;
  private readonly getVersionStmt;
  private readonly updateStmt;
  private readonly deleteStmt;
  private readonly statsStmt;
  /** Run counts added by a group commit's changes, written once at its end. */
  private readonly stats: PendingCounters<RunStats>;

  /** `deferral`: the commit queue, so that stats are written once per group commit. */
  constructor(db: Db, deferral: CounterDeferral) {
    this.rows = new RowCache(cacheRows(db));
    // A version, once stored, never changes: every daemon may keep it.
    this.versions = new RowCache();
    this.list = new ListQuery<WorkflowRow, WorkflowListFilter>(db, {
      table: 'workflows',
      scope: { workspace_id: 'workspaceId' },
      filters: { status: 'status' },
    });
    this.insertStmt = prepareInsert(
      db,
      'workflows',
      'id, workspace_id, name, description, status, trigger, version, created_at, updated_at',
    );
    this.versionStmt = prepareInsert(
      db,
      'workflow_versions',
      'workflow_id, version, name, steps, settings, created_at',
    );
    this.getStmt = db.prepare<[string], WorkflowRow>('SELECT * FROM workflows WHERE id = ?');
    this.getVersionStmt = db.prepare<[string, number], VersionRow>(
      'SELECT * FROM workflow_versions WHERE workflow_id = ? AND version = ?',
    );
    this.updateStmt = db.prepare(
      `UPDATE workflows SET name = @name, description = @description, status = @status, trigger = @trigger,
         version = @version, updated_at = @updated_at WHERE id = @id`,
    );
    this.deleteStmt = db.prepare('DELETE FROM workflows WHERE id = ?');
    // Sent with the transaction's COMMIT on PostgreSQL (store/later-writes.ts).
    this.statsStmt = prepareLaterWrite<[object]>(
      db,
      `UPDATE workflows SET stat_total = stat_total + @started,
         last_executed_at = CASE WHEN @started > 0 THEN @at ELSE last_executed_at END,
         stat_ended = stat_ended + @ended, stat_succeeded = stat_succeeded + @succeeded,
         stat_duration_ms = stat_duration_ms + @duration_ms WHERE id = @id`,
    );
    this.stats = new PendingCounters<RunStats>(deferral, (id, stats) => {
      // A row read since the stats were added (in the same transaction) is behind again.
      this.rows.moveCounters(id);
      this.statsStmt.run({ id, ...stats });
    });
  }

  insert(row: Omit<WorkflowRow, 'last_executed_at' | `stat_${string}`>, version: VersionRow): void {
    this.insertStmt.run(row);
    this.versionStmt.run(version);
  }

  /** The row, the same object until it is written (callers must not mutate it). */
  get(id: string): WorkflowRow | undefined {
    return this.rows.get(id, () => this.getStmt.get(id));
  }

  /** The row for what the workflow is configured to be: stat_* and last_executed_at may lag. */
  configured(id: string): WorkflowRow | undefined {
    return this.rows.configured(id, () => this.getStmt.get(id));
  }

  version(workflowId: string, version: number): VersionRow | undefined {
    return this.versions.get(`${workflowId}:${version}`, () =>
      this.getVersionStmt.get(workflowId, version),
    );
  }

  /** Saves the row; a new version row when the steps or settings changed. */
  update(row: WorkflowRow, version: VersionRow | undefined): void {
    this.rows.forget(row.id);
    this.updateStmt.run(row);
    if (version) this.versionStmt.run(version);
  }

  delete(id: string): void {
    this.rows.forget(id);
    this.deleteStmt.run(id);
  }

  recordStart(id: string, at: number): void {
    this.rows.moveCounters(id);
    this.stats.add(id, { started: 1, at, ended: 0, succeeded: 0, duration_ms: 0 });
  }

  recordEnd(id: string, succeeded: boolean, durationMs: number): void {
    this.rows.moveCounters(id);
    this.stats.add(id, {
      started: 0,
      at: 0,
      ended: 1,
      succeeded: succeeded ? 1 : 0,
      duration_ms: durationMs,
    });
  }

  /** Forgets cached rows (a transaction that wrote them rolled back). */
  forget(id: string): void {
    this.rows.forget(id);
  }

  page(query: WorkflowListFilter & ListQueryInput): Page<WorkflowRow> {
    return this.list.page(query);
  }
}
