// The durable workflow engine. A run is its execution row (status + the frontier of pending
// step activations and parallel joins) and one row per finished step attempt. Every transition
// (a step ended -> its row, what runs next, its events) is one transaction, group-committed;
// only then does the engine start the next steps in memory. Timers only wake parked work up
// (waits, retries, the run's timeout); after a restart, resume() starts again whatever the
// stored frontier says is ready. See ARCHITECTURE.md.
import { setTimeout as delay } from 'node:timers/promises';
import type { ErrorCode } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { WorkflowExecutionView } from '../../shared/schemas/workflows.js';
import type { Clock } from '../time/clock.js';
import type { EventService } from '../events/event.service.js';
import type { CommitQueue } from '../store/commit-queue.js';
import { isStorageFull } from '../store/storage-full.js';
import type { Transactions } from '../domain/transactions.js';
import type { TimerService } from '../time/timer.service.js';
import type { WorkflowCatalog } from './ports.js';
import type { Alarms } from '../time/alarms.js';
import type { RunRepository, RunRow, RunStatus, StepRunRow } from './run.repository.js';
import { InFlight } from './in-flight.js';
import { RunChanges, type RunChange } from './run-changes.js';
import { completedResults, RunMemory } from './run-memory.js';
import { kindOf } from './steps/index.js';
import type { StepContext } from './steps/kind.js';
import type { StepOutcome } from './steps/outcome.js';
import type { StepRunner } from './steps/runner.js';
import { definitionOf, storedRow, UNFINISHED, type Transition } from './transition.js';
import { Outcomes } from './outcomes.js';
import { RunEnd } from './run-end.js';
import { RunTimers } from './run-timers.js';
import { RunViews } from './run-views.js';
import {
  executionView,
  failedEventData,
  parseState,
  type Activation,
  type RunState,
} from './views.js';
import { Waiters } from './waiters.js';

export type { RunChange } from './run-changes.js';

export type TriggerType = 'manual' | 'webhook' | 'schedule' | 'event';

export interface StartOptions {
  /** The run's input; trigger.payload unless the trigger carries its own payload. */
  input: Record<string, unknown>;
  trigger?: { type: TriggerType; payload?: unknown; headers?: Record<string, string> };
  /**
   * Run the first steps that need only the store and the CPU in the caller's transaction (see
   * advance). Not from inside an event's publication: their events would start runs there.
   */
  inline?: boolean;
  /**
   * A re-run of `of`: it starts at `fromStepId` (else at the entry), with `keep` (the original's
   * step rows before that step) as its own history, their results in scope.
   */
  rerun?: { of: string; fromStepId?: string | undefined; keep: StepRunRow[] };
}

export interface EngineDeps {
  db: Transactions;
  commits: CommitQueue;
  repo: RunRepository;
  workflows: WorkflowCatalog;
  events: EventService;
  timers: TimerService;
  clock: Clock;
  alarms: Alarms;
  steps: StepRunner;
  /** The agents' approvals: a cancelled run cancels the ones it waits on. */
  approvals: { cancelWithRun(agentExecutionId: string, runId: string): void };
  reveal(workspaceId: string, name: string): string | undefined;
  log: { error(obj: object, msg: string): void };
}

/** Steps one transition runs inline at most (a guard: a graph has no cycles). */
const MAX_INLINE_STEPS = 1000;
/** How long (real time) a clock move waits at most for the steps it set going. */
const IDLE_WAIT_MS = 10_000;
/**
 * Real-time pauses between tries to store an outcome the full disk refused: 1 s, doubling up to
 * 10 s, so a run goes on within seconds of space being freed (a try costs one transaction).
 */
const STORE_RETRY_MS = 1_000;
const MAX_STORE_RETRY_MS = 10_000;

export class WorkflowEngine {
  private readonly inFlight = new InFlight();
  private readonly runChanges = new RunChanges();
  private readonly memory: RunMemory;
  private readonly waiters: Waiters;
  private readonly runViews: RunViews;
  private readonly ending: RunEnd;
  private readonly outcomes: Outcomes;
  private closing = false;

  constructor(private readonly deps: EngineDeps) {
    this.memory = new RunMemory(deps.repo);
    this.waiters = new Waiters({ ...deps, memory: this.memory });
    this.runViews = new RunViews({ ...deps, memory: this.memory });
    const timers = new RunTimers(deps.timers);
    this.ending = new RunEnd({ ...deps, timers });
    this.outcomes = new Outcomes({ ...deps, memory: this.memory, timers, ending: this.ending });
    timers.register({
      wake: (executionId, key) => this.wake(executionId, key),
      timeOut: (executionId) => this.timeOut(executionId),
    });
  }

  /**
   * Starts a run: the one entry point for every trigger. Synchronous and transactional, so a
   * caller may call it inside its own transaction (an event trigger in the event's); the first
   * step starts once that transaction has committed.
   */
  start(workspaceId: string, workflowId: string, options: StartOptions): WorkflowExecutionView {
    const workflow = this.deps.workflows.configuredRow(workspaceId, workflowId);
    const definition = this.deps.workflows.definition(workflow.id, workflow.version)!;
    const now = this.deps.clock.now();
    const payload = options.trigger?.payload ?? options.input;
    const id = newId('workflowExecution');
    const entry = options.rerun?.fromStepId ?? definition.steps[0]!.id;
    // A re-run from a step: the original's earlier step rows become this run's own.
    const kept: StepRunRow[] = (options.rerun?.keep ?? []).map((step, seq) => ({
      ...step,
      execution_id: id,
      seq,
    }));
    const lastKept = kept.findLastIndex((step) => step.status === 'completed');
    const state: RunState = {
      n: 1,
      seq: kept.length,
      acts: [
        {
          key: `${entry}#0`,
          step_id: entry,
          attempt: 1,
          branch: null,
          state: 'ready',
          started_at: now,
        },
      ],
      joins: [],
      last_seq: lastKept === -1 ? null : lastKept,
      armed: false,
      ...(options.trigger?.headers ? { headers: options.trigger.headers } : {}),
    };
    const row: RunRow = {
      id,
      workflow_id: workflow.id,
      workspace_id: workspaceId,
      version: workflow.version,
      status: 'running',
      trigger_type: options.trigger?.type ?? 'manual',
      input: JSON.stringify(payload),
      frontier: JSON.stringify(state),
      steps_completed: kept.filter((step) => step.status === 'completed').length,
      result: null,
      error_code: null,
      error_message: null,
      failed_step: null,
      failed_agent_id: null,
      deadline_at: now + definition.settings.timeout_seconds * 1000,
      created_at: now,
      completed_at: null,
      cancelled_at: null,
      rerun_of: options.rerun?.of ?? null,
      from_step_id: options.rerun?.fromStepId ?? null,
    };
    const view = executionView(row, state, definition, kept, payload);
    const store = () => {
      this.deps.workflows.recordStart(workflow.id, now);
      for (const step of kept) this.deps.repo.insertStep(step);
      this.deps.events.publish(workspaceId, 'workflow.execution.started', view);
      if (!options.inline) {
        this.deps.repo.insert(row);
        this.runChanges.announce(row);
        return;
      }
      // A new run has no step rows to read its memory from, and its trigger is at hand.
      this.memory.keep(row.id, completedResults(kept), {
        type: row.trigger_type,
        payload,
        headers: state.headers ?? {},
      });
      const t: Transition = { row, state, definition, now, recorded: [], stored: null };
      this.advance(t);
      this.commit(t);
    };
    if (this.deps.db.inTransaction) store();
    else this.deps.db.transaction(store)();
    // Steps left to start once committed (none when the run ended inline).
    if (state.acts.some((act) => act.state === 'ready')) {
      queueMicrotask(() => this.pump(row.id, row));
    }
    return view;
  }

  /** After a restart: every unfinished run continues from its stored frontier. */
  resume(): number {
    const ids = this.deps.repo.unfinishedIds();
    for (const id of ids) this.pump(id);
    return ids.length;
  }

  /** Hears each committed change of a run; returns the function that stops listening. */
  onRunChange(listener: (change: RunChange) => void): () => void {
    return this.runChanges.listen(listener);
  }

  /**
   * Cancels a run wherever it is; undefined when it had already ended. One transaction: the
   * run, the steps it was at (kept, marked cancelled), the approvals it waited on (cancelled)
   * and its workflow.execution.failed event with status cancelled.
   */
  cancel(executionId: string): RunRow | undefined {
    const apply = (): RunRow | undefined => {
      const t = this.begin(executionId);
      if (!t) return undefined;
      this.ending.end(t, 'cancelled');
      this.commit(t);
      return t.row;
    };
    return this.deps.db.inTransaction ? apply() : this.deps.db.transaction(apply)();
  }

  /** Inside the deleting transaction of a workflow: its unfinished runs are cancelled. */
  cancelRunsOf(workflowId: string): void {
    for (const row of this.deps.repo.unfinishedOf(workflowId)) this.cancel(row.id);
  }

  /** Runs someone waits for (wait_for_completion); each leaves once its waiters are answered. */
  get waitedRuns(): number {
    return this.waiters.count;
  }

  /**
   * Resolves when the run ends or waits for an approval, or once `maxMs` have passed on the
   * daemon clock (an alarm, not a real-time sleep), or at shutdown.
   */
  waitFor(executionId: string, maxMs: number): Promise<RunRow | undefined> {
    return this.waiters.waitFor(executionId, maxMs);
  }

  /**
   * Resolves once no step runs here: the steps in flight and the ones they start, until every
   * run has parked or ended (svc clock advance waits for this between two due times). A step
   * waiting for a later time on the daemon clock (untilDue) is not waited for: only a move of
   * the clock ends it. `maxMs` of real time at most: a receiver that does not answer must not
   * hold the clock (its step goes on alongside, as without this wait).
   */
  idle(maxMs = IDLE_WAIT_MS): Promise<void> {
    return this.inFlight.idle(maxMs, () => this.closing);
  }

  /** The run as the API shows it; for a run that just ended, the view its event carried. */
  viewOf(row: RunRow): WorkflowExecutionView {
    return this.runViews.viewOf(row);
  }

  /** A run by id as the API shows it (no workspace check: callers have done it). */
  find(executionId: string): WorkflowExecutionView | undefined {
    return this.runViews.find(executionId);
  }

  /** The run as the API shows it. */
  view(row: RunRow): WorkflowExecutionView {
    return this.runViews.view(row);
  }

  /** Runs as the API shows them (a page of a list): their step rows and re-runs in two reads. */
  views(rows: readonly RunRow[]): WorkflowExecutionView[] {
    return this.runViews.views(rows);
  }

  /** The agents' decision on an approval a run waits for (inside the deciding transaction). */
  readonly onAgentSettled = (agentExecution: {
    id: string;
    status: string;
    action: string | null;
    output: string | null;
    confidence: number | null;
    error_code: ErrorCode | null;
    error_message: string | null;
    agent_id: string;
  }): void => {
    // Only a decided (or ended) execution can release a run; most are settled as they start.
    if (agentExecution.status === 'awaiting_approval' || agentExecution.status === 'processing') {
      return;
    }
    const approval = this.deps.repo.approval(agentExecution.id);
    if (!approval) return;
    this.deps.repo.dropApproval(agentExecution.id);
    const outcome: StepOutcome =
      agentExecution.status === 'completed'
        ? {
            type: 'completed',
            result: {
              agent_execution_id: agentExecution.id,
              action: agentExecution.action,
              output: agentExecution.output,
              confidence: agentExecution.confidence,
            },
            next: [],
          }
        : {
            type: 'failed',
            code:
              agentExecution.status === 'cancelled'
                ? 'approval_rejected'
                : (agentExecution.error_code ?? 'step_failed'),
            message:
              agentExecution.status === 'cancelled'
                ? (agentExecution.error_message ?? 'The reviewer rejected the action.')
                : (agentExecution.error_message ?? 'The agent execution failed.'),
            agentId: agentExecution.agent_id,
            result: null,
          };
    this.transition(approval.execution_id, approval.activation, 'awaiting_approval', outcome);
    queueMicrotask(() => this.pump(approval.execution_id));
  };

  /** Deletes runs past the 30-day retention. */
  purgeBefore(cutoff: number): number {
    return this.deps.repo.purgeBefore(cutoff);
  }

  /**
   * Shutdown, promptly: no new step starts, waiting requests are answered with the run as it
   * stands, and steps in flight are not waited for (a slow webhook would hold the stop): their
   * outcome is dropped and, being still `ready` in the store, they run again after the restart.
   */
  stop(): Promise<void> {
    this.closing = true;
    this.waiters.answerAll();
    return Promise.resolve();
  }

  // --- running steps --------------------------------------------------------------------------

  /**
   * Starts every ready activation of a run that is not already running here. Idempotent.
   * `started` is the row a start just inserted (see storedRow).
   */
  private pump(executionId: string, started?: RunRow): void {
    if (this.closing) return;
    const row = storedRow(this.deps.repo, executionId, started);
    if (!row || !UNFINISHED.has(row.status)) return;
    const state = parseState(row.frontier);
    for (const act of state.acts) {
      if (act.state !== 'ready') continue;
      if (this.inFlight.has(executionId, act.key)) continue;
      this.inFlight.track(executionId, act.key, this.launch(row, state, act));
    }
    this.waiters.watchDeadline(row, (id) => void this.timeOut(id).catch(() => undefined));
  }

  private async launch(row: RunRow, state: RunState, act: Activation): Promise<void> {
    try {
      const outcome = await this.deps.steps.run(this.stepContext(row, state, act));
      // Stopping: the step stays ready in the store and runs again after the restart.
      if (outcome.type === 'interrupted' || this.closing) return;
      const status = await this.storeOutcome(row, act, outcome);
      // The run ended with this step: nothing is left to start.
      if (status && !UNFINISHED.has(status)) return;
    } catch (error) {
      // A transition that could not be stored: the step stays ready and runs again on resume.
      this.memory.forget(row.id);
      this.deps.log.error(
        { execution_id: row.id, step_id: act.step_id, err: String(error) },
        'workflow step could not be recorded',
      );
      return;
    }
    this.pump(row.id);
  }

  /**
   * Stores a step's outcome: its transition. One the full disk refuses is kept and tried again,
   * after growing pauses, until it is stored or the daemon stops: an acknowledged run carries on
   * once space is freed, without a restart and without running the step again.
   */
  private async storeOutcome(
    row: RunRow,
    act: Activation,
    outcome: StepOutcome,
  ): Promise<RunStatus | undefined> {
    for (let tries = 0; ; tries += 1) {
      try {
        return await this.deps.commits.run(() => {
          // The step's own records happened whatever becomes of the run (cancelled meanwhile).
          outcome.store?.();
          return this.transition(row.id, act.key, 'ready', outcome);
        });
      } catch (error) {
        if (!isStorageFull(error) || this.closing) throw error;
        if (tries === 0) {
          this.deps.log.error(
            { execution_id: row.id, step_id: act.step_id, err: String(error) },
            'workflow step outcome not stored: the disk is full; trying again until it is stored',
          );
        }
        // Not held by the daemon: a stop leaves the step ready, to run again after the restart.
        await delay(Math.min(STORE_RETRY_MS * 2 ** tries, MAX_STORE_RETRY_MS), undefined, {
          ref: false,
        });
        if (this.closing) throw error;
      }
    }
  }

  private stepContext(row: RunRow, state: RunState, act: Activation): StepContext {
    return {
      workspaceId: row.workspace_id,
      executionId: row.id,
      workflowId: row.workflow_id,
      attempt: act.attempt,
      step: definitionOf(this.deps.workflows, row).byId.get(act.step_id)!,
      scope: this.memory.scope(row, state),
      reveal: (name) => this.deps.reveal(row.workspace_id, name),
      untilDue: (waiting) => this.inFlight.untilDue(row.id, act.key, waiting),
    };
  }

  /** Timer: a wait ended, or a retry is due. */
  private async wake(executionId: string, key: string): Promise<void> {
    await this.deps.commits.run(() => {
      const t = this.begin(executionId);
      if (!t) return;
      const act = t.state.acts.find((candidate) => candidate.key === key);
      if (!act) return;
      if (act.state === 'waiting') {
        const step = t.definition.byId.get(act.step_id)!;
        const result = kindOf(step).wokenResult?.(step) ?? null;
        this.outcomes.apply(t, act, { type: 'completed', result, next: [] });
        this.advance(t);
        this.commit(t);
      } else if (act.state === 'retrying') {
        act.state = 'ready';
        act.started_at = t.now;
        delete act.wake_at;
        this.advance(t);
        this.commit(t);
      }
    });
    this.pump(executionId);
  }

  private async timeOut(executionId: string): Promise<void> {
    await this.deps.commits.run(() => {
      const t = this.begin(executionId);
      if (!t || t.now < t.row.deadline_at) return;
      this.ending.end(t, 'timeout');
      this.commit(t);
    });
  }

  // --- transitions (inside a transaction; no effect outside the database but caches) -----------

  /**
   * Applies one step outcome to the run if the activation is still in the expected state;
   * answers the run's status after it (undefined when the outcome was dropped).
   */
  private transition(
    executionId: string,
    key: string,
    expected: Activation['state'],
    outcome: StepOutcome,
  ): RunStatus | undefined {
    const t = this.begin(executionId);
    if (!t) {
      // An agent step in flight when its run was cancelled, whose execution then asked for
      // approval (a stub's delay): cancelled too, in this transaction, as the run's others were.
      if (
        outcome.type === 'awaiting_approval' &&
        this.deps.repo.status(executionId) === 'cancelled'
      ) {
        this.deps.approvals.cancelWithRun(outcome.agentExecutionId, executionId);
      }
      return undefined;
    }
    const act = t.state.acts.find((candidate) => candidate.key === key);
    // Gone or moved on (cancelled, timed out, a parallel sibling won): the outcome is dropped.
    if (!act || act.state !== expected) return undefined;
    if (t.now >= t.row.deadline_at) this.ending.end(t, 'timeout');
    else {
      this.outcomes.apply(t, act, outcome);
      this.advance(t);
    }
    this.commit(t);
    return t.row.status;
  }

  private begin(executionId: string): Transition | undefined {
    const row = this.deps.repo.get(executionId);
    if (!row || !UNFINISHED.has(row.status)) return undefined;
    return {
      row: { ...row },
      stored: row.status,
      state: parseState(row.frontier),
      definition: definitionOf(this.deps.workflows, row),
      now: this.deps.clock.now(),
      recorded: [],
    };
  }

  /**
   * After a change: the ready steps that need only the store and the CPU (conditions, waits,
   * forks, agents a stub or a local brain decides; StepRunner.runNow) run inside this
   * transaction, one after the other; the others start once it has committed. A run with
   * nothing left completes.
   */
  private advance(t: Transition): number {
    const later = new Set<string>();
    let ran = 0;
    while (ran < MAX_INLINE_STEPS && UNFINISHED.has(t.row.status)) {
      const act = t.state.acts.find(
        (candidate) =>
          candidate.state === 'ready' &&
          !later.has(candidate.key) &&
          !this.inFlight.has(t.row.id, candidate.key),
      );
      if (!act) break;
      const outcome = this.deps.steps.runNow(this.stepContext(t.row, t.state, act));
      if (!outcome || outcome.type === 'interrupted') {
        later.add(act.key);
        continue;
      }
      outcome.store?.();
      this.outcomes.apply(t, act, outcome);
      ran += 1;
    }
    if (UNFINISHED.has(t.row.status) && t.state.acts.length === 0 && t.state.joins.length === 0) {
      this.ending.end(t, 'completed');
    }
    return ran;
  }

  /** Writes the run and its final event; wakes waiters once committed. */
  private commit(t: Transition): void {
    const { row, state } = t;
    if (UNFINISHED.has(row.status)) {
      row.status = state.acts.some((act) => act.state === 'awaiting_approval')
        ? 'awaiting_approval'
        : 'running';
    }
    row.frontier = JSON.stringify(state);
    if (t.stored === null) this.deps.repo.insert(row);
    else this.deps.repo.save(row, t.stored);
    this.runChanges.announce(row);
    if (row.status === 'completed') {
      const view = this.runViews.after(t);
      if (this.waiters.has(row.id)) this.runViews.keepFinal(row.id, view);
      this.deps.events.publish(row.workspace_id, 'workflow.execution.completed', { ...view });
    } else if (row.status === 'failed' || row.status === 'timeout' || row.status === 'cancelled') {
      // A cancelled run too: the spec has no cancelled event; data.status says which.
      this.deps.events.publish(row.workspace_id, 'workflow.execution.failed', {
        ...failedEventData(row, t.definition, t.now),
      });
    }
    // An ended run's memory goes now (were this rolled back, it is rebuilt from the store).
    if (!UNFINISHED.has(row.status)) this.memory.forget(row.id);
    if (row.status !== 'running') {
      const ended = UNFINISHED.has(row.status) ? undefined : row;
      queueMicrotask(() => this.waiters.settled(row.id, ended));
    }
  }
}
