// What waits on a run in this process: requests with wait_for_completion (answered when the run
// ends or waits for a person, or at their bound) and the in-memory alarm at the run's deadline
// while its steps run here (a parked run has a durable timer instead). Both go when it settles.
import type { Alarms } from '../time/alarms.js';
import type { Clock } from '../time/clock.js';
import type { RunMemory } from './run-memory.js';
import type { RunRepository, RunRow } from './run.repository.js';
import { storedRow, UNFINISHED } from './transition.js';

export interface WaitersDeps {
  repo: Pick<RunRepository, 'get' | 'status'>;
  alarms: Alarms;
  clock: Clock;
  memory: RunMemory;
}

export class Waiters {
  private readonly waiters = new Map<string, Set<(row?: RunRow) => void>>();
  private readonly deadlines = new Map<string, () => void>();

  constructor(private readonly deps: WaitersDeps) {}

  /** Runs someone waits for; each leaves once its waiters are answered. */
  get count(): number {
    return this.waiters.size;
  }

  has(executionId: string): boolean {
    return this.waiters.has(executionId);
  }

  /**
   * Resolves when the run ends or waits for an approval, or once `maxMs` have passed on the
   * daemon clock (an alarm, not a real-time sleep), or at shutdown.
   */
  waitFor(executionId: string, maxMs: number): Promise<RunRow | undefined> {
    const { repo, alarms, clock } = this.deps;
    return new Promise((resolve) => {
      let cancelAlarm = (): void => undefined;
      /** Answers the run as it stands (given when the caller has just read it). */
      const done = (row?: RunRow) => {
        cancelAlarm();
        // The last waiter takes the run's entry with it: a run that had ended before its
        // caller began to wait (every run whose steps need no waiting) left an empty set
        // behind for good, 40,000 of them after 40,000 such runs.
        const set = this.waiters.get(executionId);
        if (set?.delete(done) && set.size === 0) this.waiters.delete(executionId);
        resolve(row ?? repo.get(executionId));
      };
      const set = this.waiters.get(executionId) ?? new Set();
      set.add(done);
      this.waiters.set(executionId, set);
      cancelAlarm = alarms.at(clock.now() + maxMs, () => done());
      // Ended (or waiting for a person) already: answered now, with the row read by done().
      if (repo.status(executionId) !== 'running') done();
    });
  }

  /** An in-memory alarm at the deadline while steps run here; parked runs have a timer. */
  watchDeadline(row: RunRow, onDeadline: (executionId: string) => void): void {
    if (this.deadlines.has(row.id)) return;
    const cancel = this.deps.alarms.at(row.deadline_at, () => {
      this.deadlines.delete(row.id);
      onDeadline(row.id);
    });
    this.deadlines.set(row.id, cancel);
  }

  /**
   * The run ended or waits for a person: answer waiting requests; forget its memory. `ended` is
   * the row a transition that ended the run wrote (see storedRow; an ended run changes no more).
   */
  settled(executionId: string, ended?: RunRow): void {
    const { memory, repo } = this.deps;
    // Memory and alarms are for runs going on here; a run that ended has done with them.
    let row: RunRow | undefined;
    if (memory.has(executionId) || this.deadlines.has(executionId)) {
      row = storedRow(repo, executionId, ended);
      if (row && !UNFINISHED.has(row.status)) {
        memory.forget(executionId);
        this.deadlines.get(executionId)?.();
        this.deadlines.delete(executionId);
      }
    }
    const set = this.waiters.get(executionId);
    if (!set) return;
    this.waiters.delete(executionId);
    for (const done of set) done(row);
  }

  /** Shutdown: every waiting request is answered with its run as it stands. */
  answerAll(): void {
    for (const id of [...this.waiters.keys()]) this.settled(id);
  }
}
