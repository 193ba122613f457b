// How a run ends (completed, failed, timeout, cancelled), inside the transition that ends it: its
// status and outcome fields, a cancelled run's pending steps and approvals, its timers and its
// workflow's counters. The final event is written with the run (transitions.ts, commit).
import { elapsedSince } from './views.js';
import type { ErrorCode } from '../../shared/errors.js';
import type { WorkflowCatalog } from './ports.js';
import type { RunTimers } from './run-timers.js';
import type { RunRepository, StepRunRow } from './run.repository.js';
import type { Transition } from './transition.js';

export type EndStatus = 'completed' | 'failed' | 'timeout' | 'cancelled';

/** Why a run failed: the step, its agent, and the step's error. */
export interface RunFailure {
  step: string;
  agentId: string | null;
  code: ErrorCode;
  message: string;
}

export interface RunEndDeps {
  repo: Pick<RunRepository, 'step' | 'insertStep' | 'settleStep' | 'dropApproval'>;
  workflows: Pick<WorkflowCatalog, 'recordEnd'>;
  timers: RunTimers;
  /** The agents' approvals: a cancelled run cancels the ones it waits on. */
  approvals: { cancelWithRun(agentExecutionId: string, runId: string): void };
}

export class RunEnd {
  constructor(private readonly deps: RunEndDeps) {}

  end(t: Transition, status: EndStatus, failure?: RunFailure): void {
    const { row, state } = t;
    const current = state.acts[0]?.step_id ?? null;
    row.status = status;
    if (status === 'cancelled') {
      this.keepCancelledSteps(t);
      row.cancelled_at = t.now;
    } else row.completed_at = t.now;
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
      row.error_message = 'The run was cancelled.';
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
   * A cancelled run keeps a row for each step it was at (in flight, waiting, retrying, awaiting
   * approval), marked cancelled; no step_completed event, as none of them completed. The
   * approvals it waited on are cancelled in the same transaction, so none of them can be
   * decided afterwards (a crash cannot leave one approvable).
   */
  private keepCancelledSteps(t: Transition): void {
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
      if (approval) {
        this.deps.repo.dropApproval(approval);
        this.deps.approvals.cancelWithRun(approval, t.row.id);
      }
    }
  }
}
