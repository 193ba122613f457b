// A run's transitions, each inside one transaction (no effect outside the database but caches):
// read the run, apply what happened (a step's outcome, a timer, a cancel) if the activation is
// still what was expected, run inline the steps that need no waiting (advance), then write the
// run, its final event, and tell waiters and listeners once committed (commit).
import type { EventService } from '../events/event.service.js';
import { readRunState, writeRunState } from '../store/run-state.js';
import type { Clock } from '../time/clock.js';
import type { InFlight } from './in-flight.js';
import type { Outcomes } from './outcomes.js';
import type { WorkflowCatalog } from './ports.js';
import type { RunChanges } from './run-changes.js';
import type { RunApprovals, RunEnd } from './run-end.js';
import type { RunMemory } from './run-memory.js';
import type { RunViews } from './run-views.js';
import type { RunRepository, RunRow, RunStatus } from './run.repository.js';
import type { StepContexts } from './step-context.js';
import { kindOf } from './steps/index.js';
import type { StepOutcome } from './steps/outcome.js';
import type { StepRunner } from './steps/runner.js';
import { definitionOf, UNFINISHED, type Transition } from './transition.js';
import { executionEventData, failedEventData, realNow, type Activation } from './views.js';
import type { Waiters } from './waiters.js';

/** Steps one transition runs inline at most (a guard: a graph has no cycles). */
const MAX_INLINE_STEPS = 1000;

export interface TransitionsDeps {
  repo: Pick<RunRepository, 'get' | 'getForChange' | 'status' | 'insert' | 'save'>;
  workflows: WorkflowCatalog;
  clock: Clock;
  events: Pick<EventService, 'publish'>;
  /** The agents' approvals: an approval asked for after its run moved on is closed. */
  approvals: RunApprovals;
  steps: Pick<StepRunner, 'runNow'>;
  contexts: StepContexts;
  inFlight: InFlight;
  outcomes: Outcomes;
  ending: RunEnd;
  views: RunViews;
  waiters: Waiters;
  memory: RunMemory;
  changes: RunChanges;
}

export class Transitions {
  constructor(private readonly deps: TransitionsDeps) {}

  /**
   * Applies one step outcome to the run if the activation is still in the expected state;
   * answers the run's status after it (undefined when the outcome was dropped).
   */
  outcome(
    executionId: string,
    key: string,
    expected: Activation['state'],
    outcome: StepOutcome,
    /** The attempt's row stored before its call (sending), if it has one. */
    sentSeq?: number,
  ): RunStatus | undefined {
    const t = this.begin(executionId);
    const act = t?.state.acts.find((candidate) => candidate.key === key);
    const current = act !== undefined && act.state === expected && act.sent_seq === sentSeq;
    // Gone or moved on (cancelled, timed out, a parallel sibling won): the outcome is dropped,
    // but a call's answer is still the truth about its attempt's row.
    if (!current && sentSeq !== undefined) {
      this.deps.outcomes.late(executionId, sentSeq, outcome, this.deps.clock.now());
    }
    if (!t || !current) {
      // An agent step in flight when its run ended or went on without it, whose execution then
      // asked for approval (a stub's delay): closed in this transaction, as the run's others were.
      if (outcome.type === 'awaiting_approval') this.lateApproval(executionId, t, outcome);
      return undefined;
    }
    if (t.now >= t.row.deadline_at) {
      this.deps.ending.end(t, 'timeout');
      if (outcome.type === 'awaiting_approval') this.lateApproval(executionId, t, outcome);
    } else {
      this.deps.outcomes.apply(t, act, outcome);
      this.advance(t);
    }
    this.commit(t);
    return t.row.status;
  }

  /** An approval asked for by a step its run no longer waits for: closed, saying why. */
  private lateApproval(
    executionId: string,
    t: Transition | undefined,
    outcome: { agentExecutionId: string },
  ): void {
    const status = t ? t.row.status : this.deps.repo.status(executionId);
    const what =
      status === undefined
        ? 'no longer exists'
        : status === 'timeout'
          ? 'timed out'
          : UNFINISHED.has(status)
            ? 'went on without it (the step that asked for it is no longer pending)'
            : status === 'cancelled'
              ? 'was cancelled'
              : status;
    this.deps.approvals.closeWithRun(outcome.agentExecutionId, {
      runId: executionId,
      cancelled: status === 'cancelled',
      what,
    });
  }

  /**
   * A step that calls out is about to (a webhook step): its attempt's row is stored first,
   * status unknown, and the activation remembers it (sent_seq), so that once this commits the
   * call is on record whatever happens to the process. Answers the row's seq; undefined when
   * the activation is no longer ready for it (cancelled, timed out, sent already).
   */
  sending(executionId: string, key: string, attempt: number): number | undefined {
    const t = this.begin(executionId);
    const act = t?.state.acts.find((candidate) => candidate.key === key);
    if (!t || !act || act.state !== 'ready' || act.attempt !== attempt) return undefined;
    if (act.sent_seq !== undefined) return undefined;
    if (t.now >= t.row.deadline_at) {
      this.deps.ending.end(t, 'timeout');
      this.commit(t);
      return undefined;
    }
    act.sent_seq = this.deps.outcomes.sent(t, act);
    this.commit(t);
    return act.sent_seq;
  }

  /** Timer: a wait ended, or a retry is due. */
  wake(executionId: string, key: string): void {
    const t = this.begin(executionId);
    if (!t) return;
    const act = t.state.acts.find((candidate) => candidate.key === key);
    if (!act) return;
    // A wake-up at or past the deadline (the same instant on a frozen clock): the deadline wins,
    // whichever of the two timers fires first, as every other transition here decides it.
    if (t.now >= t.row.deadline_at) {
      this.deps.ending.end(t, 'timeout');
      this.commit(t);
      return;
    }
    if (act.state === 'waiting') {
      const step = t.definition.byId.get(act.step_id)!;
      const result = kindOf(step).wokenResult?.(step) ?? null;
      this.deps.outcomes.apply(t, act, { type: 'completed', result, next: [] });
      this.advance(t);
      this.commit(t);
    } else if (act.state === 'retrying') {
      act.state = 'ready';
      act.started_at = t.now;
      act.real_started_at = realNow();
      delete act.wake_at;
      this.advance(t);
      this.commit(t);
    }
  }

  /** The run's deadline (its timer or its alarm): it ends timeout unless it ended already. */
  timeOut(executionId: string): void {
    const t = this.begin(executionId);
    if (!t || t.now < t.row.deadline_at) return;
    this.deps.ending.end(t, 'timeout');
    this.commit(t);
  }

  /**
   * Cancels an unfinished run (see WorkflowEngine.cancel); undefined when it had ended. `why`
   * is said in its error (and its approvals').
   */
  cancel(executionId: string, why?: string): RunRow | undefined {
    const t = this.begin(executionId);
    if (!t) return undefined;
    this.deps.ending.end(t, 'cancelled', undefined, why);
    this.commit(t);
    return t.row;
  }

  /** The run as stored, to change; undefined when it is gone or has ended. */
  private begin(executionId: string): Transition | undefined {
    const { repo, workflows, clock } = this.deps;
    const row = repo.getForChange(executionId);
    if (!row || !UNFINISHED.has(row.status)) return undefined;
    return {
      row: { ...row },
      stored: row.status,
      state: readRunState(row.frontier, row.id),
      definition: definitionOf(workflows, row),
      now: clock.now(),
      recorded: [],
    };
  }

  /**
   * After a change: the ready steps that need only the store and the CPU (conditions, waits,
   * forks, agents a stub or a local brain decides; StepRunner.runNow) run inside this
   * transaction, one after the other; the others start once it has committed. A run with
   * nothing left completes.
   */
  advance(t: Transition): number {
    const { steps, contexts, inFlight, outcomes, ending } = this.deps;
    const later = new Set<string>();
    let ran = 0;
    while (ran < MAX_INLINE_STEPS && UNFINISHED.has(t.row.status)) {
      const act = t.state.acts.find(
        (candidate) =>
          candidate.state === 'ready' &&
          candidate.sent_seq === undefined &&
          !later.has(candidate.key) &&
          !inFlight.has(t.row.id, candidate.key),
      );
      if (!act) break;
      const outcome = steps.runNow(contexts.of(t.row, t.state, act));
      if (!outcome || outcome.type === 'interrupted') {
        later.add(act.key);
        continue;
      }
      outcome.store?.();
      outcomes.apply(t, act, outcome);
      ran += 1;
    }
    if (UNFINISHED.has(t.row.status) && t.state.acts.length === 0 && t.state.joins.length === 0) {
      ending.end(t, 'completed');
    }
    return ran;
  }

  /** Writes the run and its final event; wakes waiters once committed. */
  commit(t: Transition): void {
    const { repo, events, views, waiters, memory, changes } = this.deps;
    const { row, state } = t;
    if (UNFINISHED.has(row.status)) {
      row.status = state.acts.some((act) => act.state === 'awaiting_approval')
        ? 'awaiting_approval'
        : 'running';
    }
    row.frontier = writeRunState(state);
    // The run's end in real time, once (its elapsed_ms); the sandbox clock gives completed_at.
    if (!UNFINISHED.has(row.status) && row.real_ended_at === null) row.real_ended_at = realNow();
    if (t.stored === null) repo.insert(row);
    else repo.save(row, t.stored);
    changes.announce(row);
    if (row.status === 'completed') {
      const view = views.after(t);
      if (waiters.has(row.id)) views.keepFinal(row.id, view);
      events.publish(
        row.workspace_id,
        'workflow.execution.completed',
        executionEventData(view, row.input),
      );
    } else if (row.status === 'failed' || row.status === 'timeout' || row.status === 'cancelled') {
      // A cancelled run too: the spec has no cancelled event; data.status says which.
      events.publish(row.workspace_id, 'workflow.execution.failed', {
        ...failedEventData(row, t.definition, t.now),
      });
    }
    // An ended run's memory goes now (were this rolled back, it is rebuilt from the store).
    if (!UNFINISHED.has(row.status)) memory.forget(row.id);
    if (row.status !== 'running') {
      const ended = UNFINISHED.has(row.status) ? undefined : row;
      queueMicrotask(() => waiters.settled(row.id, ended));
    }
  }
}
