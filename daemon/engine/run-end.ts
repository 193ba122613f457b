// How a run ends (completed, failed, timeout, cancelled), inside the transition that ends it: its
// status and outcome fields, a cancelled run's pending steps, the approvals it waited on (closed
// whatever ended it), its timers and its workflow's counters. The final event is written with
// the run (transitions.ts, commit).
import { elapsedSince } from './views.js';
import type { ErrorCode } from '../../shared/errors.js';
import type { WorkflowCatalog } from './ports.js';
import type { RunTimers } from './run-timers.js';
import type { RunRepository, StepRunRow } from './run.repository.js';
import type { Transition } from './transition.js';
import type { Activation } from './views.js';

export type EndStatus = 'completed' | 'failed' | 'timeout' | 'cancelled';

/** Why a run failed: the step, its agent, and the step's error. */
export interface RunFailure {
  step: string;
  agentId: string | null;
  code: ErrorCode;
  message: string;
}

/** Why a run no longer waits for an approval, for the agent execution's error. */
export interface ApprovalClosing {
  runId: string;
  /** The run was cancelled (error.code workflow_run_cancelled; else workflow_run_ended). */
  cancelled: boolean;
  /** What became of the run, a verb phrase: "timed out (settings.timeout_seconds 60 s)". */
  what: string;
}

/** The agents' approvals: a run closes the ones it no longer waits for. */
export interface RunApprovals {
  closeWithRun(agentExecutionId: string, closing: ApprovalClosing): void;
}

export interface RunEndDeps {
  repo: Pick<RunRepository, 'step' | 'insertStep' | 'settleStep' | 'dropApproval'>;
  workflows: Pick<WorkflowCatalog, 'recordEnd'>;
  timers: RunTimers;
  approvals: RunApprovals;
}

export class RunEnd {
  constructor(private readonly deps: RunEndDeps) {}

  /** `why` says why a cancelled run was (its error message and its approvals' say it). */
  end(t: Transition, status: EndStatus, failure?: RunFailure, why?: string): void {
    const { row, state } = t;
    const current = state.acts[0]?.step_id ?? null;
    row.status = status;
    if (status === 'cancelled') {
      this.keepCancelledSteps(t, why);
      row.cancelled_at = t.now;
    } else {
      // Whatever ended it, nothing it waited for can be decided afterwards.
      const what = endedAs(t, status, failure);
      for (const act of state.acts) this.closeApproval(t, act, { cancelled: false, what });
      row.completed_at = t.now;
    }
    state.acts = [];
    state.joins = [];
    if (status === 'completed') {
      // The last completed step's result: from this transition, else from its stored row.
      row.result =
        t.lastResult !== undefined
          ? t.lastResult
          : state.last_seq === null
            ? null
            : (this.deps.repo.step(row.id, state.last_seq)?.result ?? null);
    } else if (status === 'timeout') {
      row.error_code = 'workflow_timeout';
      row.error_message = `The run exceeded settings.timeout_seconds (${t.definition.settings.timeout_seconds} s).`;
      row.failed_step = current;
    } else if (status === 'cancelled') {
      // Stored like a failure, so that the run's view and its failed event name the step.
      row.error_code = 'execution_cancelled';
      row.error_message = why ? `The run was cancelled: ${why}.` : 'The run was cancelled.';
      row.failed_step = current;
      row.failed_agent_id = (current && t.definition.byId.get(current)?.agent_id) ?? null;
    } else if (failure) {
      row.error_code = failure.code;
      row.error_message = failure.message;
      row.failed_step = failure.step;
      row.failed_agent_id = failure.agentId;
    }
    this.deps.timers.cancel(t);
    this.deps.workflows.recordEnd(row.workflow_id, status === 'completed', t.now - row.created_at);
  }

  /**
   * The run no longer waits for `act` (it ended, or went on without it): an approval the step
   * awaited is closed in the same transaction, so it cannot be decided afterwards (a crash
   * cannot leave one approvable).
   */
  closeApproval(t: Transition, act: Activation, closing: Omit<ApprovalClosing, 'runId'>): void {
    if (act.state !== 'awaiting_approval' || !act.agent_execution_id) return;
    this.deps.repo.dropApproval(act.agent_execution_id);
    this.deps.approvals.closeWithRun(act.agent_execution_id, { runId: t.row.id, ...closing });
  }

  /**
   * A cancelled run keeps a row for each step it was at (in flight, waiting, retrying, awaiting
   * approval), marked cancelled; no step_completed event, as none of them completed. The
   * approvals it waited on are cancelled in the same transaction.
   */
  private keepCancelledSteps(t: Transition, why: string | undefined): void {
    const what = why ? `was cancelled (${why})` : 'was cancelled';
    for (const act of t.state.acts) {
      const agentId = t.definition.byId.get(act.step_id)?.agent_id ?? null;
      const approval = act.state === 'awaiting_approval' ? act.agent_execution_id : undefined;
      const stepRow: StepRunRow = {
        execution_id: t.row.id,
        // A call in flight: its row (stored before it left) is the one marked cancelled.
        seq: act.sent_seq ?? t.state.seq++,
        step_id: act.step_id,
        attempt: act.attempt,
        status: 'cancelled',
        // As the pending step showed it: the agent execution it waited on.
        result: approval
          ? JSON.stringify({ agent_id: agentId, agent_execution_id: approval })
          : null,
        error_code: null,
        error_message: null,
        started_at: act.started_at,
        completed_at: t.now,
        injected_fault: null,
        elapsed_ms: elapsedSince(act.real_started_at),
      };
      if (act.sent_seq === undefined) this.deps.repo.insertStep(stepRow);
      else this.deps.repo.settleStep(stepRow);
      t.recorded.push(stepRow);
      this.closeApproval(t, act, { cancelled: true, what });
    }
  }
}

/** What became of a run that ended other than by a cancel, as an approval's error says it. */
function endedAs(t: Transition, status: EndStatus, failure: RunFailure | undefined): string {
  if (status === 'timeout') {
    return `timed out (settings.timeout_seconds ${t.definition.settings.timeout_seconds} s)`;
  }
  if (status === 'failed' && failure) {
    return `failed at step '${failure.step}' (${failure.code})`;
  }
  return status;
}
