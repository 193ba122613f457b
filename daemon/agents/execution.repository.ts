// Agent execution rows, and the figures analytics and guardrails read from them.
import type { ErrorCode } from '../../shared/errors.js';
import type { ListQueryInput, Page } from '../domain/pages.js';
import type { Db } from '../store/db.js';
import { ListQuery } from '../store/list-query.js';
import { prepareLaterInsert, prepareLaterRowWrite } from '../store/object-rows.js';
import { SharedTexts } from '../store/shared-texts.js';

export interface ExecutionRow {
  id: string;
  agent_id: string;
  workspace_id: string;
  status: 'processing' | 'awaiting_approval' | 'completed' | 'failed' | 'cancelled';
  autonomy_level: string;
  input: string;
  context: string;
  action: string | null;
  output: string | null;
  confidence: number | null;
  error_code: ErrorCode | null;
  error_message: string | null;
  execution_time_ms: number | null;
  needed_approval: number;
  decision: 'approve' | 'reject' | null;
  decision_notes: string | null;
  created_at: number;
  completed_at: number | null;
  decided_at: number | null;
  /** The sandbox fault rule (flt_...) that failed this execution. */
  injected_fault: string | null;
}

/** A row as stored: a long input is in shared_texts, by its digest (input is then ''). */
type StoredExecutionRow = ExecutionRow & { input_digest?: string | null };

export interface PeriodFigures {
  executions: number;
  finished: number;
  completed: number;
  escalated: number;
  total_time_ms: number;
  timed: number;
  confidence_sum: number;
  confident: number;
  l2_decided: number;
  l2_approved: number;
  l3_finished: number;
  l3_completed: number;
}

export class ExecutionRepository {
  /** Executions of a workspace awaiting approval (a partial index holds just those). */
  private readonly awaitingList: ListQuery<StoredExecutionRow, { workspaceId: string }>;
  /** One agent's executions, newest first (agent_executions_by_agent_recent, version 21). */
  private readonly agentList: ListQuery<StoredExecutionRow, { agentId: string }>;
  /** One agent's executions awaiting approval (a partial index holds just those). */
  private readonly agentAwaitingList: ListQuery<StoredExecutionRow, { agentId: string }>;
  private readonly insertStmt;
  private readonly getStmt;
  private readonly saveStmt;
  private readonly recentStmt;
  private readonly figuresStmt;
  private readonly actionsStmt;
  private readonly purgeStmt;
  private readonly runningStmt;
  private readonly awaitingCountStmt;
  private readonly latestStmt;
  private readonly unsharedStmt;
  /** Long inputs, stored once by content (a fan-out's 50 executions share one). */
  private readonly texts: SharedTexts;

  constructor(db: Db) {
    this.texts = new SharedTexts(db);
    this.awaitingList = new ListQuery<StoredExecutionRow, { workspaceId: string }>(db, {
      table: 'agent_executions',
      scope: { workspace_id: 'workspaceId' },
      conditions: () => [["status = 'awaiting_approval'"]],
    });
    this.agentList = new ListQuery<StoredExecutionRow, { agentId: string }>(db, {
      table: 'agent_executions',
      scope: { agent_id: 'agentId' },
    });
    this.agentAwaitingList = new ListQuery<StoredExecutionRow, { agentId: string }>(db, {
      table: 'agent_executions',
      scope: { agent_id: 'agentId' },
      conditions: () => [["status = 'awaiting_approval'"]],
    });
    this.latestStmt = db.prepare<[string], StoredExecutionRow>(
      'SELECT * FROM agent_executions WHERE agent_id = ? ORDER BY created_at DESC, id DESC LIMIT 1',
    );
    // Writes whose results are not read: sent with their transaction's next statement or COMMIT
    // on PostgreSQL (store/later-writes.ts).
    this.insertStmt = prepareLaterInsert(
      db,
      'agent_executions',
      'id, agent_id, workspace_id, status, autonomy_level, input, input_digest, context, action, output, confidence, error_code, error_message, execution_time_ms, needed_approval, decision, decision_notes, created_at, completed_at, decided_at, injected_fault',
    );
    this.getStmt = db.prepare<[string], StoredExecutionRow>(
      'SELECT * FROM agent_executions WHERE id = ?',
    );
    this.saveStmt = prepareLaterRowWrite<ExecutionRow>(
      db,
      `UPDATE agent_executions SET status = @status, action = @action, output = @output, confidence = @confidence,
         error_code = @error_code, error_message = @error_message, execution_time_ms = @execution_time_ms,
         needed_approval = @needed_approval, decision = @decision, decision_notes = @decision_notes,
         completed_at = @completed_at, decided_at = @decided_at, injected_fault = @injected_fault WHERE id = @id`,
    );
    this.recentStmt = db.prepare<[string, number], { n: number }>(
      "SELECT COUNT(*) AS n FROM agent_executions WHERE agent_id = ? AND created_at >= ? AND status != 'failed'",
    );
    this.figuresStmt = db.prepare<[string, number], PeriodFigures>(
      `SELECT COUNT(*) AS executions,
         COALESCE(SUM(CASE WHEN status IN ('completed', 'failed', 'cancelled') THEN 1 ELSE 0 END), 0) AS finished,
         COALESCE(SUM(CASE WHEN status = 'completed' THEN 1 ELSE 0 END), 0) AS completed,
         COALESCE(SUM(needed_approval), 0) AS escalated,
         COALESCE(SUM(execution_time_ms), 0) AS total_time_ms,
         COALESCE(SUM(CASE WHEN execution_time_ms IS NOT NULL THEN 1 ELSE 0 END), 0) AS timed,
         COALESCE(SUM(CASE WHEN status = 'completed' THEN confidence END), 0) AS confidence_sum,
         COALESCE(SUM(CASE WHEN status = 'completed' AND confidence IS NOT NULL THEN 1 ELSE 0 END), 0) AS confident,
         COALESCE(SUM(CASE WHEN autonomy_level = 'L2' AND decision IS NOT NULL THEN 1 ELSE 0 END), 0) AS l2_decided,
         COALESCE(SUM(CASE WHEN autonomy_level = 'L2' AND decision = 'approve' THEN 1 ELSE 0 END), 0) AS l2_approved,
         COALESCE(SUM(CASE WHEN autonomy_level = 'L3' AND status IN ('completed', 'failed', 'cancelled') THEN 1 ELSE 0 END), 0) AS l3_finished,
         COALESCE(SUM(CASE WHEN autonomy_level = 'L3' AND status = 'completed' THEN 1 ELSE 0 END), 0) AS l3_completed
       FROM agent_executions WHERE agent_id = ? AND created_at >= ?`,
    );
    this.purgeStmt = db.prepare('DELETE FROM agent_executions WHERE created_at < ?');
    this.unsharedStmt = db.prepare(
      'DELETE FROM shared_texts WHERE NOT EXISTS (SELECT 1 FROM agent_executions WHERE agent_executions.input_digest = shared_texts.digest)',
    );
    this.runningStmt = db.prepare<[string], StoredExecutionRow>(
      "SELECT * FROM agent_executions WHERE agent_id = ? AND status IN ('processing', 'awaiting_approval')",
    );
    this.awaitingCountStmt = db
      .prepare<[], number>(
        "SELECT COUNT(*) FROM agent_executions WHERE status = 'awaiting_approval'",
      )
      .pluck();
    this.actionsStmt = db.prepare<[string, number], { action: string; n: number }>(
      'SELECT action, COUNT(*) AS n FROM agent_executions WHERE agent_id = ? AND created_at >= ? AND action IS NOT NULL GROUP BY action ORDER BY action',
    );
  }

  /** Executions awaiting approval in every workspace (the partial index counts them). */
  awaitingApprovalCount(): number {
    return this.awaitingCountStmt.get()!;
  }

  awaitingApproval(query: { workspaceId: string } & ListQueryInput): Page<ExecutionRow> {
    return this.withInputs(this.awaitingList.page(query));
  }

  /** An agent's executions, newest first; only those awaiting approval with `awaiting`. */
  ofAgent(query: { agentId: string; awaiting: boolean } & ListQueryInput): Page<ExecutionRow> {
    return this.withInputs((query.awaiting ? this.agentAwaitingList : this.agentList).page(query));
  }

  /** An agent's newest execution (one row read from the index, no count). */
  latestOf(agentId: string): ExecutionRow | undefined {
    return this.withInput(this.latestStmt.get(agentId));
  }

  /** Deletes executions created before `cutoff`, and the shared inputs none refers to any more. */
  purgeBefore(cutoff: number): number {
    const purged = this.purgeStmt.run(cutoff).changes;
    if (purged > 0) this.unsharedStmt.run();
    return purged;
  }

  /** Executions of an agent that have not ended (processing or awaiting approval). */
  unfinishedOf(agentId: string): ExecutionRow[] {
    return this.runningStmt.all(agentId).map((row) => this.withInput(row)!);
  }

  /** A long input is stored once by content (shared_texts) and the row refers to it. */
  insert(row: ExecutionRow): void {
    if (!SharedTexts.shares(row.input)) {
      this.insertStmt.run({ ...row, input_digest: null });
      return;
    }
    const digest = this.texts.put(row.input, row.created_at);
    this.insertStmt.run({ ...row, input: '', input_digest: digest });
  }

  get(id: string): ExecutionRow | undefined {
    return this.withInput(this.getStmt.get(id));
  }

  save(row: ExecutionRow): void {
    this.saveStmt.run(row);
  }

  /** The row with its input whole: a shared one is read from shared_texts. */
  private withInput(stored: StoredExecutionRow | undefined): ExecutionRow | undefined {
    if (stored === undefined) return undefined;
    const { input_digest: digest, ...row } = stored;
    return digest === null || digest === undefined
      ? row
      : { ...row, input: this.texts.get(digest) };
  }

  private withInputs(page: Page<StoredExecutionRow>): Page<ExecutionRow> {
    return { ...page, items: page.items.map((row) => this.withInput(row)!) };
  }

  /** Executions started since a time that were not refused (for actions_per_hour). */
  countSince(agentId: string, since: number): number {
    return this.recentStmt.get(agentId, since)?.n ?? 0;
  }

  figures(agentId: string, since: number): PeriodFigures {
    return this.figuresStmt.get(agentId, since)!;
  }

  actionsByType(agentId: string, since: number): Record<string, number> {
    return Object.fromEntries(
      this.actionsStmt.all(agentId, since).map((row) => [row.action, row.n]),
    );
  }
}
