// The steps running in this process after their transaction (a webhook call, a remote brain, a
// stub's delay), by run and activation: a step is started once however often its run is pumped,
// and `svc clock advance` waits for idle() between two due times (ARCHITECTURE.md, Time).
import { EventEmitter, once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { HeldElsewhere } from '../cluster/held-elsewhere.js';
import { ALONE, type TeamNotices } from '../store/team-notices.js';

export class InFlight {
  private readonly running = new Map<string, Promise<void>>();
  /** Steps in flight that wait for a later time on the daemon clock (see idle()). */
  private readonly onClock = new Set<string>();
  private readonly changes = new EventEmitter<{ 'on-clock': [] }>();
  /** Team mode: steps another daemon of the sandbox holds so (svc settle leaves them out). */
  private readonly elsewhere: HeldElsewhere;

  constructor(notices: TeamNotices = ALONE) {
    this.elsewhere = new HeldElsewhere(notices, 'step');
  }

  has(executionId: string, actKey: string): boolean {
    return this.running.has(key(executionId, actKey));
  }

  /**
   * The step is in flight but waits for a later time on the daemon clock (untilDue), here or,
   * in team mode, on another daemon of the sandbox.
   */
  heldOnClock(executionId: string, actKey: string): boolean {
    const id = key(executionId, actKey);
    return this.onClock.has(id) || this.elsewhere.has(id);
  }

  /** Holds the step's run until it settles. */
  track(executionId: string, actKey: string, run: Promise<void>): void {
    const id = key(executionId, actKey);
    // Run here now (a daemon that held it was taken over): its old hold is past.
    this.elsewhere.forget(id);
    this.running.set(
      id,
      run.finally(() => this.running.delete(id)),
    );
  }

  /** The step waits for `waiting`, which only a move of the daemon clock ends. */
  untilDue<T>(executionId: string, actKey: string, waiting: Promise<T>): Promise<T> {
    const id = key(executionId, actKey);
    this.onClock.add(id);
    this.elsewhere.tell(id, true);
    this.changes.emit('on-clock');
    return waiting.finally(() => {
      this.onClock.delete(id);
      this.elsewhere.tell(id, false);
    });
  }

  /**
   * Resolves once no step runs here: the steps in flight and the ones they start, until every
   * run has parked or ended. A step waiting for a later time on the daemon clock (untilDue) is
   * not waited for: only a move of the clock ends it. `maxMs` of real time at most: a receiver
   * that does not answer must not hold the clock (its step goes on alongside, as without this
   * wait). `stopping` ends the wait at shutdown.
   */
  async idle(maxMs: number, stopping: () => boolean): Promise<void> {
    const giveUpAt = performance.now() + maxMs;
    for (;;) {
      // What the last move settled (an agent execution a step waits for) goes on first.
      await new Promise((resolve) => setImmediate(resolve));
      const busy = [...this.running].filter(([id]) => !this.onClock.has(id));
      const left = giveUpAt - performance.now();
      if (busy.length === 0 || stopping() || left <= 0) return;
      // Woken when those settle, when one of them starts to wait on the clock, or at the bound.
      const stop = new AbortController();
      await Promise.race([
        Promise.allSettled(busy.map(([, run]) => run)),
        once(this.changes, 'on-clock', { signal: stop.signal }),
        delay(left, undefined, { signal: stop.signal }),
      ]).catch(() => undefined);
      stop.abort();
    }
  }
}

function key(executionId: string, actKey: string): string {
  return `${executionId}/${actKey}`;
}
