// What a step's outcome does to its run, inside the transition's transaction: the attempt's row
// and step_completed event, the successors it activates (or its branch's end, and a parallel
// step's join), a retry's backoff, a wait's or an approval's parking; a failure with nothing to
// follow ends the run (run-end.ts). The frontier is changed in `t.state`; the run row is written
// when the transition commits.
import type { ErrorCode } from '../../shared/errors.js';
import type { StepCompletedData } from '../../shared/schemas/workflows.js';
import type { EventService } from '../events/event.service.js';
import type { RunEnd } from './run-end.js';
import type { RunMemory } from './run-memory.js';
import type { RunTimers } from './run-timers.js';
import type { StepRetries } from './step-retries.js';
import { judgeStepFailure } from './step-retry.js';
import type { RunRepository, StepRunRow } from './run.repository.js';
import type { StepOutcome } from './steps/outcome.js';
import type { Transition } from './transition.js';
import { elapsedSince, realNow, type Activation } from './views.js';

export interface OutcomesDeps {
  repo: Pick<RunRepository, 'insertStep' | 'settleStep' | 'step' | 'addApproval'>;
  events: Pick<EventService, 'publish'>;
  memory: RunMemory;
  timers: RunTimers;
  ending: RunEnd;
  retries: StepRetries;
}

export class Outcomes {
  constructor(private readonly deps: OutcomesDeps) {}

  /** Applies the outcome of `act` (still pending in `t.state`) to the run. */
  apply(t: Transition, act: Activation, outcome: StepOutcome): void {
    const step = t.definition.byId.get(act.step_id)!;
    if (outcome.interpolated) {
      t.state.interpolated += outcome.interpolated;
      this.deps.memory.noteInterpolated(t.row.id, t.state.interpolated);
    }
    switch (outcome.type) {
      case 'completed': {
        this.record(t, act, 'completed', outcome.result, null, true, outcome.injectedFault);
        const next =
          outcome.next.length > 0 || step.type === 'condition'
            ? outcome.next
            : step.next_step_id
              ? [step.next_step_id]
              : [];
        this.follow(t, act, next);
        break;
      }
      case 'failed': {
        const error = { code: outcome.code, message: outcome.message };
        const status = outcome.lost ? 'unknown' : 'failed';
        const retry = judgeStepFailure(
          act.attempt,
          t.definition.settings.retry_policy,
          outcome.lost === true,
          t.now,
        );
        if (retry.kind === 'retry') {
          const row = this.record(
            t,
            act,
            status,
            outcome.result,
            error,
            false,
            outcome.injectedFault,
          );
          this.deps.retries.announce(row, {
            workspace_id: t.row.workspace_id,
            workflow_id: t.row.workflow_id,
            execution_id: t.row.id,
            step_id: step.id,
            step_type: step.type,
            retry_at: retry.at,
          });
          act.attempt = retry.attempt;
          act.state = 'retrying';
          act.wake_at = retry.at;
          this.deps.timers.park(t, act);
          break;
        }
        this.record(t, act, status, outcome.result, error, true, outcome.injectedFault);
        if (step.on_error) this.follow(t, act, [step.on_error]);
        else if (t.definition.settings.error_handling === 'continue') {
          this.follow(t, act, step.next_step_id ? [step.next_step_id] : []);
        } else {
          this.deps.ending.end(t, 'failed', { step: step.id, agentId: outcome.agentId, ...error });
        }
        break;
      }
      case 'waiting':
        act.state = 'waiting';
        act.wake_at = outcome.wakeAt;
        this.deps.timers.park(t, act);
        break;
      case 'awaiting_approval':
        act.state = 'awaiting_approval';
        act.agent_execution_id = outcome.agentExecutionId;
        this.deps.repo.addApproval(outcome.agentExecutionId, t.row.id, act.key);
        this.deps.timers.armTimeout(t);
        break;
      case 'fork': {
        t.state.acts = t.state.acts.filter((candidate) => candidate !== act);
        t.state.joins.push({
          key: act.key,
          step_id: act.step_id,
          branch: act.branch,
          pending: outcome.children.length,
          wait_for_all: outcome.waitForAll,
          started_at: act.started_at,
          ...(act.real_started_at === undefined ? {} : { real_started_at: act.real_started_at }),
        });
        for (const child of outcome.children) this.activate(t, child, act.key);
        break;
      }
      case 'interrupted':
        break;
    }
  }

  /**
   * Stores the row of an attempt whose call is about to leave: status unknown until its
   * outcome settles it (record), completed_at the time it left. Answers its seq.
   */
  sent(t: Transition, act: Activation): number {
    const seq = t.state.seq++;
    this.deps.repo.insertStep({
      execution_id: t.row.id,
      seq,
      step_id: act.step_id,
      attempt: act.attempt,
      status: 'unknown',
      result: null,
      error_code: null,
      error_message: null,
      started_at: act.started_at,
      completed_at: t.now,
      injected_fault: null,
      elapsed_ms: elapsedSince(act.real_started_at),
    });
    return seq;
  }

  /**
   * The answer to a call whose run moved on without it (it ended, or a sibling won): its row,
   * if still unknown, says what the call came to; the run is not changed.
   */
  late(executionId: string, seq: number, outcome: StepOutcome, now: number): void {
    if (outcome.type !== 'completed' && (outcome.type !== 'failed' || outcome.lost)) return;
    const failed = outcome.type === 'failed';
    const stored = this.deps.repo.step(executionId, seq);
    if (!stored || stored.status !== 'unknown') return;
    this.deps.repo.settleStep({
      ...stored,
      status: outcome.type,
      result: outcome.result === undefined ? null : JSON.stringify(outcome.result),
      error_code: failed ? outcome.code : null,
      error_message: failed ? outcome.message : null,
      completed_at: now,
      injected_fault: outcome.injectedFault ?? null,
    });
  }

  /** Removes the activation and starts its successors (or ends its branch). */
  private follow(t: Transition, act: Activation, next: string[]): void {
    t.state.acts = t.state.acts.filter((candidate) => candidate !== act);
    if (next.length === 0) {
      this.branchEnded(t, act.branch);
      return;
    }
    for (const id of next) this.activate(t, id, act.branch);
  }

  private activate(t: Transition, stepId: string, branch: string | null): void {
    t.state.acts.push({
      key: `${stepId}#${t.state.n++}`,
      step_id: stepId,
      attempt: 1,
      branch,
      state: 'ready',
      started_at: t.now,
      real_started_at: realNow(),
    });
  }

  /** A chain inside a parallel step ended: join when all (or, without wait_for_all, one) did. */
  private branchEnded(t: Transition, branch: string | null): void {
    if (branch === null) return;
    const join = t.state.joins.find((candidate) => candidate.key === branch);
    if (!join) return;
    join.pending -= 1;
    if (join.wait_for_all && join.pending > 0) return;
    this.dropBranch(t, join.key, join.step_id);
    t.state.joins = t.state.joins.filter((candidate) => candidate !== join);
    const step = t.definition.byId.get(join.step_id)!;
    const children = step.type === 'parallel' ? step.config.steps : [];
    const pseudo: Activation = {
      key: join.key,
      step_id: join.step_id,
      attempt: 1,
      branch: join.branch,
      state: 'ready',
      started_at: join.started_at,
      ...(join.real_started_at === undefined ? {} : { real_started_at: join.real_started_at }),
    };
    this.record(
      t,
      pseudo,
      'completed',
      {
        branches: children.length,
        wait_for_all: join.wait_for_all,
        results: Object.fromEntries(
          children.map((id) => [id, this.deps.memory.resultOf(t.row.id, id)]),
        ),
      },
      null,
    );
    if (step.next_step_id) this.activate(t, step.next_step_id, join.branch);
    else this.branchEnded(t, join.branch);
  }

  /**
   * Without wait_for_all the first chain wins: what still runs in the others is dropped, and an
   * approval one of them awaited is closed (the run goes on without it).
   */
  private dropBranch(t: Transition, branch: string, parallelStep: string): void {
    const what = `went on without it (another branch of parallel step '${parallelStep}' finished first)`;
    for (const act of t.state.acts) {
      if (act.branch === branch) this.deps.ending.closeApproval(t, act, { cancelled: false, what });
    }
    t.state.acts = t.state.acts.filter((candidate) => candidate.branch !== branch);
    for (const inner of t.state.joins.filter((candidate) => candidate.branch === branch)) {
      t.state.joins = t.state.joins.filter((candidate) => candidate !== inner);
      this.dropBranch(t, inner.key, parallelStep);
    }
  }

  /**
   * Stores a finished attempt (into its row stored before its call, if it has one); `final`
   * ones emit step_completed, and those that completed count in steps_completed (a failed
   * step, even one the run goes on after, does not; an unknown one is reported failed).
   */
  private record(
    t: Transition,
    act: Activation,
    status: 'completed' | 'failed' | 'unknown',
    result: unknown,
    error: { code: ErrorCode; message: string } | null,
    final = true,
    injectedFault: string | null = null,
  ): StepRunRow {
    // A step counts once in steps_completed even if it completes again: graphs that reach a step
    // twice inside a parallel are refused when written, but one stored before that rule (or
    // brought in by a snapshot) may still run it twice. Asked before the row below is stored.
    const counts =
      final && status === 'completed' && !this.deps.memory.completed(t.row.id, act.step_id);
    const seq = act.sent_seq ?? t.state.seq++;
    const step = t.definition.byId.get(act.step_id)!;
    const stored = result === undefined ? null : JSON.stringify(result);
    const stepRow: StepRunRow = {
      execution_id: t.row.id,
      seq,
      step_id: act.step_id,
      attempt: act.attempt,
      status,
      result: stored,
      error_code: error?.code ?? null,
      error_message: error?.message ?? null,
      started_at: act.started_at,
      completed_at: t.now,
      injected_fault: injectedFault,
      elapsed_ms: elapsedSince(act.real_started_at),
    };
    if (act.sent_seq === undefined) this.deps.repo.insertStep(stepRow);
    else {
      this.deps.repo.settleStep(stepRow);
      delete act.sent_seq;
    }
    t.recorded.push(stepRow);
    if (!final) return stepRow;
    if (status === 'completed') {
      if (counts) t.row.steps_completed += 1;
      t.state.last_seq = seq;
      t.lastResult = stored;
      this.deps.memory.remember(t.row.id, act.step_id, result);
    }
    const data: StepCompletedData = {
      execution_id: t.row.id,
      workflow_id: t.row.workflow_id,
      step_id: act.step_id,
      step_name: step.name,
      step_type: step.type,
      status: status === 'unknown' ? 'failed' : status,
      attempt: act.attempt,
      result: result ?? null,
      error,
      duration_ms: t.now - act.started_at,
    };
    this.deps.events.publish(t.row.workspace_id, 'workflow.execution.step_completed', { ...data });
    return stepRow;
  }
}
