// An execution awaiting approval ends one of two ways: a person decides it (POST .../approve),
// or the workflow run that asked for it stops waiting for it (it ended: cancelled, failed, timed
// out, completed; or a parallel sibling won). Each is one transaction that only the first of them
// finds awaiting.
import type { EventService } from '../events/event.service.js';
import { ApiError } from '../domain/errors.js';
import type { Transactions } from '../domain/transactions.js';
import type { Clock } from '../time/clock.js';
import type { TimerService } from '../time/timer.service.js';
import type { AgentRepository, AgentRow } from './agent.repository.js';
import type { ExecutionRepository, ExecutionRow } from './execution.repository.js';
import { executionEventData } from './execution-views.js';

/** error.code of an execution cancelled because the workflow run that asked for it was. */
export const RUN_CANCELLED = 'workflow_run_cancelled';
/** error.code of one closed because its run ended otherwise, or went on without it. */
export const RUN_ENDED = 'workflow_run_ended';

/** Why the workflow run that asked for an approval no longer waits for it (the engine says). */
export interface ApprovalClosing {
  runId: string;
  /** The run was cancelled (by hand, or with its workflow): error.code workflow_run_cancelled. */
  cancelled: boolean;
  /** What became of the run, as a verb phrase: "timed out (settings.timeout_seconds 60 s)". */
  what: string;
}

/** What ExecutionApprovals is built from (ExecutionService passes them by name). */
export interface ExecutionApprovalsDeps {
  db: Transactions;
  repo: ExecutionRepository;
  agentRepo: AgentRepository;
  events: EventService;
  timers: TimerService;
  clock: Clock;
  /** Tells the workflow engine, inside the deciding transaction. */
  announce: (row: ExecutionRow) => void;
}

export class ExecutionApprovals {
  private readonly db: Transactions;
  private readonly repo: ExecutionRepository;
  private readonly agentRepo: AgentRepository;
  private readonly events: EventService;
  private readonly timers: TimerService;
  private readonly clock: Clock;
  private readonly announce: (row: ExecutionRow) => void;

  constructor(deps: ExecutionApprovalsDeps) {
    this.db = deps.db;
    this.repo = deps.repo;
    this.agentRepo = deps.agentRepo;
    this.events = deps.events;
    this.timers = deps.timers;
    this.clock = deps.clock;
    this.announce = deps.announce;
  }

  /** approve -> completed, reject -> cancelled; 409 unless `row` still awaits approval. */
  decide(
    agent: AgentRow,
    row: ExecutionRow,
    decision: 'approve' | 'reject',
    notes?: string,
  ): ExecutionRow {
    const now = this.clock.now();
    return this.db.transaction((): ExecutionRow => {
      // Read again inside the deciding transaction: a cancel of the run that asked for it and
      // this decision are serialised by the store, and only one of them finds it awaiting.
      const current = this.repo.get(row.id) ?? row;
      if (current.status !== 'awaiting_approval') throw undecidable(current);
      const next: ExecutionRow = {
        ...current,
        status: decision === 'approve' ? 'completed' : 'cancelled',
        decision,
        decision_notes: notes ?? null,
        decided_at: now,
        completed_at: now,
        error_code: decision === 'reject' ? 'approval_rejected' : null,
        error_message:
          decision === 'reject' ? `Rejected by the reviewer${notes ? `: ${notes}` : '.'}` : null,
      };
      this.repo.save(next);
      this.agentRepo.addStats(
        agent.id,
        { interactions: 0, finished: 1, succeeded: decision === 'approve' ? 1 : 0, timeMs: null },
        now,
      );
      this.events.publish(
        row.workspace_id,
        decision === 'approve' ? 'agent.execution.completed' : 'agent.execution.failed',
        executionEventData(agent, next),
      );
      this.announce(next);
      return next;
    })();
  }

  /**
   * The workflow run that asked for this approval no longer waits for it (inside the
   * transaction that ended the run or dropped its step): the execution is cancelled as a
   * rejection cancels it (status cancelled, agent.execution.failed), its error naming the run and
   * what became of it, so that it can no longer be approved nor listed as awaiting. Nothing
   * happens to an execution that is not awaiting approval (decided already).
   */
  closeWithRun(executionId: string, closing: ApprovalClosing): void {
    const row = this.repo.get(executionId);
    if (row?.status !== 'awaiting_approval') return;
    const now = this.clock.now();
    const cancelled: ExecutionRow = {
      ...row,
      status: 'cancelled',
      completed_at: now,
      error_code: closing.cancelled ? RUN_CANCELLED : RUN_ENDED,
      error_message: `Workflow run ${closing.runId} ${closing.what} before this execution was decided.`,
    };
    this.repo.save(cancelled);
    this.timers.cancelOwned(row.id);
    const agent = this.agentRepo.get(row.agent_id);
    if (agent) {
      this.agentRepo.addStats(
        agent.id,
        { interactions: 0, finished: 1, succeeded: 0, timeMs: null },
        now,
      );
    }
    this.events.publish(
      row.workspace_id,
      'agent.execution.failed',
      executionEventData(agent ?? { id: row.agent_id, name: '(deleted agent)' }, cancelled),
    );
  }
}

/**
 * 409 conflict for deciding an execution that no longer awaits approval; one that was closed
 * with its workflow run says so (its error names the run).
 */
function undecidable(row: ExecutionRow): ApiError {
  const message =
    row.error_code === RUN_CANCELLED || row.error_code === RUN_ENDED
      ? `Execution ${row.id} is ${row.status}. ${row.error_message} Only executions awaiting approval can be decided.`
      : `Execution ${row.id} is ${row.status}; only executions awaiting approval can be decided.`;
  return new ApiError('conflict', message, { extras: { execution_status: row.status } });
}
