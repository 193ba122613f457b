// The durable workflow engine. A run is its execution row (status + the frontier of pending
// step activations and parallel joins) and one row per finished step attempt. Every transition
// (a step ended -> its row, what runs next, its events) is one transaction, group-committed;
// only then does the engine start the next steps in memory. Timers only wake parked work up
// (waits, retries, the run's timeout); after a restart, resume() starts again whatever the
// stored frontier says is ready. See ARCHITECTURE.md.
//
// This class is the engine's surface for the rest of the daemon; it wires the parts, each with
// one job: start.ts (a run's start), driver.ts (driving runs in this process), transitions.ts
// (one transaction each), outcomes.ts and run-end.ts (what an outcome or an end does to a run),
// run-timers.ts, waiters.ts, in-flight.ts, run-memory.ts, run-views.ts, run-changes.ts.
import type { WorkflowExecutionView } from '../../shared/schemas/workflows.js';
import type { StepClaims } from '../cluster/step-claims.js';
import type { Transactions } from '../domain/transactions.js';
import type { Hooks } from '../domain/hooks.js';
import type { EventService } from '../events/event.service.js';
import type { CommitQueue } from '../store/commit-queue.js';
import { readRunState } from '../store/run-state.js';
import type { Alarms } from '../time/alarms.js';
import type { Clock } from '../time/clock.js';
import type { TimerService } from '../time/timer.service.js';
import { approvalOutcome, type SettledAgentExecution } from './approval-outcome.js';
import { RunDriver } from './driver.js';
import { InFlight } from './in-flight.js';
import { Outcomes } from './outcomes.js';
import type { WorkflowCatalog } from './ports.js';
import { runActivity, runActivityOf, type RunActivity } from './run-activity.js';
import { heardRunChange, RunChanges } from './run-changes.js';
import { ALONE, type TeamNotices } from '../store/team-notices.js';
import { RunEnd, type RunApprovals } from './run-end.js';
import { RunMemory } from './run-memory.js';
import { RunTimers } from './run-timers.js';
import { RunViews } from './run-views.js';
import type { RunRepository, RunRow } from './run.repository.js';
import { RunStarter, type StartOptions } from './start.js';
import { StepContexts } from './step-context.js';
import { StepRetries } from './step-retries.js';
import type { StepRunner } from './steps/runner.js';
import { Transitions } from './transitions.js';
import { Waiters } from './waiters.js';

/** Stored states read per page by checkStoredStates (a page is held in memory at once). */
const STATE_CHECK_PAGE = 500;

export type { RunActivity } from './run-activity.js';
export type { RunChange } from './run-changes.js';
export type { StartOptions, TriggerType } from './start.js';

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
  /** The agents' approvals: a run closes the ones it no longer waits for, whatever ended it. */
  approvals: RunApprovals;
  reveal(workspaceId: string, name: string): string | undefined;
  /** runChanged and stepRetrying are told here (domain/hooks.ts). */
  hooks: Hooks;
  /** Team mode: which daemon runs each step attempt (default: this one, alone on its store). */
  claims?: StepClaims;
  log: { error(obj: object, msg: string): void };
  /** Team mode: runs' changes are told to the other daemons of the sandbox, theirs heard here. */
  notices?: TeamNotices;
}

/** How long (real time) a clock move waits at most for the steps it set going. */
const IDLE_WAIT_MS = 10_000;

export class WorkflowEngine {
  private readonly inFlight: InFlight;
  private readonly changes: RunChanges;
  private readonly waiters: Waiters;
  private readonly runViews: RunViews;
  private readonly transitions: Transitions;
  private readonly driver: RunDriver;
  private readonly starter: RunStarter;

  constructor(private readonly deps: EngineDeps) {
    const notices = deps.notices ?? ALONE;
    this.inFlight = new InFlight(notices);
    this.changes = new RunChanges(deps.hooks, notices);
    notices.on('run', (payload) => this.heard(payload));
    const { inFlight, changes } = this;
    const memory = new RunMemory(deps.repo);
    const waiters = (this.waiters = new Waiters({ ...deps, memory }));
    const views = (this.runViews = new RunViews({ ...deps, memory }));
    const timers = new RunTimers(deps.timers);
    const ending = new RunEnd({ ...deps, timers });
    const retries = new StepRetries(deps.repo, deps.hooks);
    const outcomes = new Outcomes({ ...deps, memory, timers, ending, retries });
    const contexts = new StepContexts({ ...deps, memory, inFlight });
    const transitions = (this.transitions = new Transitions({
      ...deps,
      contexts,
      inFlight,
      outcomes,
      ending,
      views,
      waiters,
      memory,
      changes,
    }));
    this.driver = new RunDriver({ ...deps, contexts, transitions, inFlight, memory, waiters });
    this.starter = new RunStarter({ ...deps, memory, transitions, changes, ending });
    timers.register(this.driver);
  }

  /**
   * Starts a run: the one entry point for every trigger. Synchronous and transactional, so a
   * caller may call it inside its own transaction (an event trigger in the event's); the first
   * step starts once that transaction has committed.
   */
  start(workspaceId: string, workflowId: string, options: StartOptions): WorkflowExecutionView {
    const { view, row, ready } = this.starter.start(workspaceId, workflowId, options);
    // Steps left to start once committed (none when the run ended inline).
    if (ready) queueMicrotask(() => this.driver.pump(row.id, row));
    return view;
  }

  /**
   * At daemon start, before any run goes on (before timers, catch-up and resume): every stored
   * run state is one this svc can read. A state written by a newer svc, or a damaged one,
   * refuses the start naming its run, and no run has moved: resume() alone would have moved the
   * runs it reached before that one. Only states not at the current version are parsed.
   */
  checkStoredStates(): void {
    let after = '';
    for (;;) {
      const page = this.deps.repo.statesNotCurrent(after, STATE_CHECK_PAGE);
      for (const row of page) readRunState(row.frontier, row.id);
      if (page.length < STATE_CHECK_PAGE) return;
      after = page.at(-1)!.id;
    }
  }

  /**
   * After a restart, or a takeover of a lost daemon's work (team mode): every unfinished run
   * continues from its stored frontier (steps another live daemon runs are claimed: skipped).
   */
  resume(): number {
    const ids = this.deps.repo.unfinishedIds();
    for (const id of ids) this.driver.pump(id);
    return ids.length;
  }

  /**
   * Another daemon changed a run (team mode): the live pages here hear it, and so do requests
   * that wait for it here (wait_for_completion), once it has ended or waits for a person.
   */
  private heard(payload: string): void {
    const change = heardRunChange(payload);
    if (!change) return;
    this.changes.heard(change);
    if (change.status !== 'running' && this.waiters.has(change.execution_id)) {
      this.waiters.settled(change.execution_id);
    }
  }

  /**
   * Cancels a run wherever it is; undefined when it had already ended. One transaction: the
   * run, the steps it was at (kept, marked cancelled), the approvals it waited on (cancelled)
   * and its workflow.execution.failed event with status cancelled.
   */
  cancel(executionId: string, why?: string): RunRow | undefined {
    const apply = (): RunRow | undefined => this.transitions.cancel(executionId, why);
    return this.deps.db.inTransaction ? apply() : this.deps.db.transaction(apply)();
  }

  /** Inside the deleting transaction of a workflow: its unfinished runs are cancelled. */
  cancelRunsOf(workflowId: string): void {
    for (const row of this.deps.repo.unfinishedOf(workflowId)) {
      this.cancel(row.id, 'its workflow was deleted');
    }
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
    return this.inFlight.idle(maxMs, () => this.driver.closing);
  }

  /** What each unfinished run still has to do at `now` on the daemon clock (svc settle). */
  activity(now: number): RunActivity[] {
    return runActivity(this.deps.repo, this.inFlight, now);
  }

  /** One run's activity; undefined once it has ended (svc workflows wait on a parked run). */
  activityOf(executionId: string, now: number): RunActivity | undefined {
    return runActivityOf(this.deps.repo, this.inFlight, executionId, now);
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
  readonly onAgentSettled = (agentExecution: SettledAgentExecution): void => {
    const outcome = approvalOutcome(agentExecution);
    if (!outcome) return;
    const approval = this.deps.repo.approval(agentExecution.id);
    if (!approval) return;
    this.deps.repo.dropApproval(agentExecution.id);
    this.transitions.outcome(
      approval.execution_id,
      approval.activation,
      'awaiting_approval',
      outcome,
    );
    queueMicrotask(() => this.driver.pump(approval.execution_id));
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
    this.driver.stop();
    this.waiters.answerAll();
    return Promise.resolve();
  }
}
