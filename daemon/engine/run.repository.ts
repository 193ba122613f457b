// Workflow run rows: the execution (status, frontier of pending work, outcome), one row per
// finished step attempt, and the approvals a run waits on. Only this module writes them.
import { WORKFLOW_EXECUTION_STATUSES } from '../../shared/schemas/workflows.js';
import type { ErrorCode } from '../../shared/errors.js';
import type { ListQueryInput, Page } from '../domain/pages.js';
import type { Db } from '../store/db.js';
import { forUpdate, jsonArrayValues } from '../store/dialect.js';
import { storeKind } from '../store/db.js';
import { WRITE_AT_ONCE, type CounterDeferral } from '../store/commit-queue.js';
import { ListCounts, ListCountWrites } from '../store/list-counts.js';
import { ListQuery } from '../store/list-query.js';
import { prepareLaterInsert, prepareLaterRowWrite, prepareRows } from '../store/object-rows.js';
import { RUN_STATE_PREFIX } from '../store/run-state.js';

export interface RunListFilter {
  workflowId: string;
  status?: string | undefined;
  /** Runs created before this are past retention. */
  since: number;
}

/** The runs of a workspace, across its workflows (the dashboard's runs page). */
export interface WorkspaceRunFilter {
  workspaceId: string;
  workflowId?: string | undefined;
  status?: string | undefined;
  /** Created at or after (ms on the daemon clock). */
  from?: number | undefined;
  /** Created before (ms on the daemon clock). */
  to?: number | undefined;
  /** Runs created before this are past retention. */
  since: number;
}

export type RunStatus = (typeof WORKFLOW_EXECUTION_STATUSES)[number];

const RUN_STATUSES: ReadonlySet<string> = new Set<RunStatus>(WORKFLOW_EXECUTION_STATUSES);

export function isRunStatus(text: string): text is RunStatus {
  return RUN_STATUSES.has(text);
}

export interface RunRow {
  id: string;
  workflow_id: string;
  workspace_id: string;
  version: number;
  status: RunStatus;
  trigger_type: string;
  input: string;
  /** JSON of RunState: what is pending and how branches join. */
  frontier: string;
  steps_completed: number;
  result: string | null;
  error_code: ErrorCode | null;
  error_message: string | null;
  failed_step: string | null;
  failed_agent_id: string | null;
  deadline_at: number;
  created_at: number;
  completed_at: number | null;
  /** Real time (epoch ms, never the sandbox clock) the run started and ended, for elapsed_ms. */
  real_started_at: number | null;
  real_ended_at: number | null;
  cancelled_at: number | null;
  /** The run this one re-runs (svc workflows rerun), and the step it started at. */
  rerun_of: string | null;
  from_step_id: string | null;
}

export interface StepRunRow {
  execution_id: string;
  seq: number;
  step_id: string;
  attempt: number;
  /**
   * cancelled: the step the run was at when it was cancelled (see WorkflowEngine.cancel).
   * unknown: a call out stored before it left and not answered (yet, or ever: the daemon
   * stopped while it was in flight; error_message then says so).
   */
  status: 'completed' | 'failed' | 'cancelled' | 'unknown';
  result: string | null;
  error_code: ErrorCode | null;
  error_message: string | null;
  started_at: number;
  completed_at: number;
  /** The sandbox fault rule (flt_...) that produced this attempt's outcome. */
  injected_fault: string | null;
  /** How long the attempt took in real time (null: unknown, stored before svc measured it). */
  elapsed_ms: number | null;
}

export interface ApprovalRow {
  agent_execution_id: string;
  execution_id: string;
  activation: string;
}

export class RunRepository {
  private readonly list: ListQuery<RunRow, RunListFilter>;
  private readonly workspaceList: ListQuery<RunRow, WorkspaceRunFilter>;
  private readonly statusCountStmt;
  private readonly insertStmt;
  private readonly getForChangeStmt;
  private readonly getStmt;
  private readonly statusStmt;
  private readonly saveStmt;
  private readonly stepStmt;
  private readonly settleStmt;
  private readonly stepsStmt;
  private readonly stepAtStmt;
  private readonly unfinishedStmt;
  private readonly statesNotCurrentStmt;
  private readonly unfinishedOfStmt;
  private readonly purgeStepsStmt;
  private readonly purgeApprovalsStmt;
  private readonly purgeStmt;
  private readonly approvalInsertStmt;
  private readonly approvalGetStmt;
  private readonly approvalDeleteStmt;
  private readonly rerunsStmt;
  private readonly stepsOfRunsStmt;
  private readonly rerunsOfRunsStmt;
  private readonly counted: ListCountWrites;

  constructor(db: Db, deferral: CounterDeferral = WRITE_AT_ONCE) {
    this.counted = new ListCountWrites(db, 'runs', deferral);
    const counts = new ListCounts(db, 'runs');
    this.list = new ListQuery<RunRow, RunListFilter>(db, {
      table: 'workflow_executions',
      scope: { workflow_id: 'workflowId' },
      filters: { status: 'status' },
      conditions: (query) => [['created_at >= ?', query.since]],
      // The counters hold the runs past retention that housekeeping has not purged yet.
      count: ({ workflowId, status, since }) => {
        const statusSql = status ? ' AND status = ?' : '';
        const statusParams = status ? [status] : [];
        const expired = counts.countRows('workflow_executions', [
          `workflow_id = ? AND created_at < ?${statusSql}`,
          workflowId,
          since,
          ...statusParams,
        ]);
        return counts.sum(workflowId, status ? ['bucket = ?', status] : undefined) - expired;
      },
    });
    this.workspaceList = new ListQuery<RunRow, WorkspaceRunFilter>(db, {
      table: 'workflow_executions',
      scope: { workspace_id: 'workspaceId' },
      filters: { workflow_id: 'workflowId', status: 'status' },
      conditions: (query) => [
        ['created_at >= ?', Math.max(query.since, query.from ?? 0)],
        query.to !== undefined && ['created_at < ?', query.to],
      ],
    });
    this.statusCountStmt = db.prepare<[string, number], { status: RunStatus; n: number }>(
      'SELECT status, COUNT(*) AS n FROM workflow_executions WHERE workspace_id = ? AND created_at >= ? GROUP BY status',
    );
    // Writes whose results are not read: sent with their transaction's next statement or COMMIT
    // on PostgreSQL (store/later-writes.ts).
    this.insertStmt = prepareLaterInsert(
      db,
      'workflow_executions',
      'id, workflow_id, workspace_id, version, status, trigger_type, input, frontier, steps_completed, result, error_code, error_message, failed_step, failed_agent_id, deadline_at, created_at, completed_at, cancelled_at, rerun_of, from_step_id, real_started_at',
    );
    this.getStmt = prepareRows<RunRow, [string]>(
      db,
      'SELECT * FROM workflow_executions WHERE id = ?',
    );
    // A transition's read (PostgreSQL: the row stays locked until it commits, so two daemons'
    // transitions of one run take turns instead of one overwriting the other's state).
    this.getForChangeStmt =
      storeKind(db) === 'sqlite'
        ? this.getStmt
        : prepareRows<RunRow, [string]>(
            db,
            `SELECT * FROM workflow_executions WHERE id = ? ${forUpdate(db)}`,
          );
    this.statusStmt = db
      .prepare<[string], RunStatus>('SELECT status FROM workflow_executions WHERE id = ?')
      .pluck();
    this.saveStmt = prepareLaterRowWrite<RunRow>(
      db,
      `UPDATE workflow_executions SET status = @status, frontier = @frontier, steps_completed = @steps_completed,
         result = @result, error_code = @error_code, error_message = @error_message, failed_step = @failed_step,
         failed_agent_id = @failed_agent_id, completed_at = @completed_at, cancelled_at = @cancelled_at,
         real_ended_at = @real_ended_at WHERE id = @id`,
    );
    this.stepStmt = prepareLaterInsert(
      db,
      'workflow_step_runs',
      'execution_id, seq, step_id, attempt, status, result, error_code, error_message, started_at, completed_at, injected_fault, elapsed_ms',
    );
    // What became of an attempt stored before its call (status unknown); `from` is the status
    // it must still have (a late answer does not overwrite a cancel).
    this.settleStmt = prepareLaterRowWrite<StepRunRow & { from: string }>(
      db,
      `UPDATE workflow_step_runs SET status = @status, result = @result, error_code = @error_code,
         error_message = @error_message, completed_at = @completed_at, injected_fault = @injected_fault,
         elapsed_ms = @elapsed_ms
       WHERE execution_id = @execution_id AND seq = @seq AND status = @from`,
    );
    this.stepsStmt = prepareRows<StepRunRow, [string]>(
      db,
      'SELECT * FROM workflow_step_runs WHERE execution_id = ? ORDER BY seq',
    );
    this.stepAtStmt = prepareRows<StepRunRow, [string, number]>(
      db,
      'SELECT * FROM workflow_step_runs WHERE execution_id = ? AND seq = ?',
    );
    this.unfinishedStmt = db.prepare<[], { id: string }>(
      "SELECT id FROM workflow_executions WHERE status IN ('running', 'awaiting_approval')",
    );
    // Written by writeRunState, a current state begins with its version: the ones that do not
    // (older, newer, damaged) are found without parsing the others.
    this.statesNotCurrentStmt = db.prepare<
      [string, string, number],
      { id: string; frontier: string }
    >(
      `SELECT id, frontier FROM workflow_executions
         WHERE id > ? AND substr(frontier, 1, ${RUN_STATE_PREFIX.length}) <> ?
         ORDER BY id LIMIT ?`,
    );
    this.unfinishedOfStmt = prepareRows<RunRow, [string]>(
      db,
      "SELECT * FROM workflow_executions WHERE workflow_id = ? AND status IN ('running', 'awaiting_approval')",
    );
    this.purgeStepsStmt = db.prepare(
      'DELETE FROM workflow_step_runs WHERE execution_id IN (SELECT id FROM workflow_executions WHERE created_at < ?)',
    );
    this.purgeApprovalsStmt = db.prepare(
      'DELETE FROM workflow_approvals WHERE execution_id IN (SELECT id FROM workflow_executions WHERE created_at < ?)',
    );
    this.purgeStmt = db.prepare('DELETE FROM workflow_executions WHERE created_at < ?');
    this.approvalInsertStmt = db.prepare(
      `INSERT INTO workflow_approvals (agent_execution_id, execution_id, activation) VALUES (?, ?, ?)
       ON CONFLICT (agent_execution_id) DO UPDATE
       SET execution_id = excluded.execution_id, activation = excluded.activation`,
    );
    this.approvalGetStmt = db.prepare<[string], ApprovalRow>(
      'SELECT * FROM workflow_approvals WHERE agent_execution_id = ?',
    );
    this.rerunsStmt = db.prepare<[string], { id: string }>(
      'SELECT id FROM workflow_executions WHERE rerun_of = ? ORDER BY created_at, id',
    );
    // A page's runs in one read each (their ids as a JSON array), not one per run.
    this.stepsOfRunsStmt = prepareRows<StepRunRow, [string]>(
      db,
      `SELECT * FROM workflow_step_runs WHERE execution_id IN (${jsonArrayValues(db)}) ORDER BY execution_id, seq`,
    );
    this.rerunsOfRunsStmt = db.prepare<[string], { id: string; rerun_of: string }>(
      `SELECT id, rerun_of FROM workflow_executions WHERE rerun_of IN (${jsonArrayValues(db)}) ORDER BY created_at, id`,
    );
    this.approvalDeleteStmt = db.prepare(
      'DELETE FROM workflow_approvals WHERE agent_execution_id = ?',
    );
  }

  insert(row: RunRow): void {
    this.insertStmt.run(row);
    this.counted.inserted(row.workflow_id, row.status);
  }

  /** The run, read to be changed in the current transaction (locked on PostgreSQL). */
  getForChange(id: string): RunRow | undefined {
    return this.getForChangeStmt.get(id);
  }

  get(id: string): RunRow | undefined {
    return this.getStmt.get(id);
  }

  /** A run's status alone, without copying out its JSON columns (~3.8 µs against ~4.9 under load). */
  status(id: string): RunStatus | undefined {
    return this.statusStmt.get(id);
  }

  /** Writes a run read in this transaction; `stored` is its status as read (for the counters). */
  save(row: RunRow, stored: RunStatus): void {
    this.saveStmt.run(row);
    this.counted.moved(row.workflow_id, stored, row.status);
  }

  insertStep(row: StepRunRow): void {
    this.stepStmt.run(row);
  }

  /** Writes what became of a step row stored as unknown (see StepRunRow.status). */
  settleStep(row: StepRunRow): void {
    this.settleStmt.run({ ...row, from: 'unknown' });
  }

  steps(executionId: string): StepRunRow[] {
    return this.stepsStmt.all(executionId);
  }

  step(executionId: string, seq: number): StepRunRow | undefined {
    return this.stepAtStmt.get(executionId, seq);
  }

  /** The runs that re-run this one, oldest first. */
  rerunsOf(executionId: string): string[] {
    return this.rerunsStmt.all(executionId).map((row) => row.id);
  }

  /** The step rows of each of these runs, in order. */
  stepsOfRuns(executionIds: readonly string[]): Map<string, StepRunRow[]> {
    return groupBy(
      this.stepsOfRunsStmt.all(JSON.stringify(executionIds)),
      (row) => row.execution_id,
    );
  }

  /** The ids of the runs that re-run each of these runs, oldest first. */
  rerunsOfRuns(executionIds: readonly string[]): Map<string, string[]> {
    const byRun = groupBy(
      this.rerunsOfRunsStmt.all(JSON.stringify(executionIds)),
      (row) => row.rerun_of,
    );
    return new Map([...byRun].map(([id, rows]) => [id, rows.map((row) => row.id)]));
  }

  /** Runs that have not ended, to resume after a restart. */
  unfinishedIds(): string[] {
    return this.unfinishedStmt.all().map((row) => row.id);
  }

  /**
   * The runs, finished or not, whose stored state is not at the version this svc writes: a page
   * of them after `after` (an id), in id order.
   */
  statesNotCurrent(after: string, limit: number): { id: string; frontier: string }[] {
    return this.statesNotCurrentStmt.all(after, RUN_STATE_PREFIX, limit);
  }

  unfinishedOf(workflowId: string): RunRow[] {
    return this.unfinishedOfStmt.all(workflowId);
  }

  page(query: RunListFilter & ListQueryInput): Page<RunRow> {
    return this.list.page(query);
  }

  pageOfWorkspace(query: WorkspaceRunFilter & ListQueryInput): Page<RunRow> {
    return this.workspaceList.page(query);
  }

  /** How many runs of the workspace were created since a time, by status. */
  statusCounts(workspaceId: string, since: number): Record<string, number> {
    return Object.fromEntries(
      this.statusCountStmt.all(workspaceId, since).map((row) => [row.status, row.n]),
    );
  }

  purgeBefore(cutoff: number): number {
    this.purgeStepsStmt.run(cutoff);
    this.purgeApprovalsStmt.run(cutoff);
    return this.purgeStmt.run(cutoff).changes;
  }

  addApproval(agentExecutionId: string, executionId: string, activation: string): void {
    this.approvalInsertStmt.run(agentExecutionId, executionId, activation);
  }

  approval(agentExecutionId: string): ApprovalRow | undefined {
    return this.approvalGetStmt.get(agentExecutionId);
  }

  dropApproval(agentExecutionId: string): void {
    this.approvalDeleteStmt.run(agentExecutionId);
  }
}

function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const group = groups.get(key(row));
    if (group) group.push(row);
    else groups.set(key(row), [row]);
  }
  return groups;
}
