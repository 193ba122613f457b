// Drives runs in this process: starts a run's ready steps that need the network or time (once
// each, however often the run is pumped), stores each outcome as the run's next transition
// (waiting out a full disk), and turns timers and the deadline alarm into transitions. After a
// crash nothing of this is lost: what was in flight is still `ready` in the store.
import { setTimeout as delay } from 'node:timers/promises';
import { NO_STEP_CLAIMS, type StepClaims } from '../cluster/step-claims.js';
import type { CommitQueue } from '../store/commit-queue.js';
import { isStorageFull } from '../store/storage-full.js';
import type { InFlight } from './in-flight.js';
import type { RunMemory } from './run-memory.js';
import type { RunRepository, RunRow, RunStatus } from './run.repository.js';
import type { StepContexts } from './step-context.js';
import { kindOf } from './steps/index.js';
import { lostCall, type StepOutcome } from './steps/outcome.js';
import type { StepRunner } from './steps/runner.js';
import { storedRow, UNFINISHED } from './transition.js';
import type { Transitions } from './transitions.js';
import type { Activation, RunState } from './views.js';
import { readRunState } from '../store/run-state.js';
import type { Waiters } from './waiters.js';

/**
 * Real-time pauses between tries to store an outcome the full disk refused: 1 s, doubling up to
 * 10 s, so a run goes on within seconds of space being freed (a try costs one transaction).
 */
const STORE_RETRY_MS = 1_000;
const MAX_STORE_RETRY_MS = 10_000;

export interface RunDriverDeps {
  repo: Pick<RunRepository, 'get' | 'status'>;
  commits: CommitQueue;
  steps: Pick<StepRunner, 'run'>;
  contexts: StepContexts;
  transitions: Transitions;
  inFlight: InFlight;
  memory: RunMemory;
  waiters: Waiters;
  /** Team mode: a step attempt starts on the one daemon that claimed it (cluster/step-claims.ts). */
  claims?: StepClaims;
  log: { error(obj: object, msg: string): void };
}

export class RunDriver {
  private stopped = false;
  private readonly claims: StepClaims;

  constructor(private readonly deps: RunDriverDeps) {
    this.claims = deps.claims ?? NO_STEP_CLAIMS;
  }

  /** Shutting down: no step starts, and outcomes that come in are dropped (see stop). */
  get closing(): boolean {
    return this.stopped;
  }

  stop(): void {
    this.stopped = true;
  }

  /**
   * Starts every ready activation of a run that is not already running here. Idempotent.
   * `started` is the row a start just inserted (see storedRow).
   */
  pump(executionId: string, started?: RunRow): void {
    const { repo, inFlight, waiters } = this.deps;
    if (this.stopped) return;
    // Claims compare the state read with the stored one: read it from the store then.
    const shared = this.claims !== NO_STEP_CLAIMS;
    const row = storedRow(repo, executionId, shared ? undefined : started);
    if (!row || !UNFINISHED.has(row.status)) return;
    const state = readRunState(row.frontier, row.id);
    for (const act of state.acts) {
      if (act.state !== 'ready') continue;
      if (inFlight.has(executionId, act.key)) continue;
      // Another daemon runs it, or the state moved on since the read (whoever moved it pumps).
      if (!this.claims.claim(executionId, act.key, act.attempt, row.frontier)) continue;
      inFlight.track(executionId, act.key, this.launch(row, state, act));
    }
    waiters.watchDeadline(row, (id) => void this.timeOut(id).catch(() => undefined));
  }

  /** Timer: a wait ended, or a retry is due; what became ready starts. */
  async wake(executionId: string, key: string): Promise<void> {
    await this.store(executionId, () => this.deps.transitions.wake(executionId, key));
    this.pump(executionId);
  }

  /** Timer or alarm: the run's deadline. */
  async timeOut(executionId: string): Promise<void> {
    await this.store(executionId, () => this.deps.transitions.timeOut(executionId));
  }

  /**
   * A timer's transition. One that could not be stored (a full disk: its timer tries again) may
   * have left results in the run's memory: it is rebuilt from the store.
   */
  private async store(executionId: string, transition: () => void): Promise<void> {
    try {
      await this.deps.commits.run(transition);
    } catch (error) {
      this.deps.memory.forget(executionId);
      throw error;
    }
  }

  private async launch(row: RunRow, state: RunState, act: Activation): Promise<void> {
    let goOn = false;
    const stored = { outcome: false };
    try {
      goOn = await this.attempt(row, state, act, stored);
    } finally {
      // Recorded (its characters are in the run's state now) or dropped: no longer reserved.
      this.deps.memory.release(row.id, act.key);
      if (!stored.outcome) this.releaseClaim(row.id, act);
    }
    if (goOn) this.pump(row.id);
  }

  /** Runs the activation and stores its outcome; whether the run has steps left to start. */
  /** An attempt that ended without an outcome stored: another daemon may start it. */
  private releaseClaim(executionId: string, act: Activation): void {
    try {
      this.claims.release(executionId, act.key, act.attempt);
    } catch (error) {
      // The store is away: the claim goes with this daemon's lease (taken over, or stopped).
      this.deps.log.error(
        { execution_id: executionId, step_id: act.step_id, err: String(error) },
        'step claim not released',
      );
    }
  }

  private async attempt(
    row: RunRow,
    state: RunState,
    act: Activation,
    stored: { outcome: boolean },
  ): Promise<boolean> {
    try {
      const context = this.deps.contexts.of(row, state, act, true);
      let sentSeq = act.sent_seq;
      let outcome: StepOutcome;
      if (sentSeq !== undefined) {
        // Its call was stored as sent by a process that stopped before the answer: that
        // attempt counts (a retry, or the step fails if it was the last).
        outcome = lostCall(context.step, act.attempt);
      } else {
        if (kindOf(context.step).callsOut) {
          // On record before it leaves: the send waits for the commit of the attempt's row.
          sentSeq = await this.deps.commits.run(() =>
            this.deps.transitions.sending(row.id, act.key, act.attempt),
          );
          // Moved on meanwhile (cancelled, timed out), or stopping: nothing is sent.
          if (sentSeq === undefined || this.stopped) return false;
          // Team mode: whoever moves a run's state pumps it. Another daemon that read the state
          // this transition replaced could claim none of its ready steps (a sibling made ready
          // there meanwhile), which would otherwise wait for this call's answer.
          if (this.claims !== NO_STEP_CLAIMS) this.pump(row.id);
        }
        outcome = await this.deps.steps.run(context);
      }
      // Stopping: the step stays ready in the store and runs again after the restart (a call
      // that was sent, as the next attempt).
      if (outcome.type === 'interrupted' || this.stopped) return false;
      const status = await this.storeOutcome(row, act, outcome, sentSeq);
      stored.outcome = true;
      // The run ended with this step: nothing is left to start.
      return !(status && !UNFINISHED.has(status));
    } catch (error) {
      // A transition that could not be stored: the step stays ready and runs again on resume.
      this.deps.memory.forget(row.id);
      this.deps.log.error(
        { execution_id: row.id, step_id: act.step_id, err: String(error) },
        'workflow step could not be recorded',
      );
      return false;
    }
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
    sentSeq: number | undefined,
  ): Promise<RunStatus | undefined> {
    for (let tries = 0; ; tries += 1) {
      try {
        return await this.deps.commits.run(() => {
          // The step's own records happened whatever becomes of the run (cancelled meanwhile).
          outcome.store?.();
          this.claims.settle(row.id, act.key, act.attempt);
          return this.deps.transitions.outcome(row.id, act.key, 'ready', outcome, sentSeq);
        });
      } catch (error) {
        if (!isStorageFull(error) || this.stopped) throw error;
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
        if (this.stopped) throw error;
      }
    }
  }
}
