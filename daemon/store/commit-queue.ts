// Group commit: changes queued in the same tick are written in one transaction. Under
// concurrent load a commit's page writes are shared by many requests; each caller still answers
// only once its change is committed, so nothing acknowledged can be lost. If one change throws,
// the group is rolled back and each change is retried in its own transaction, so a failure
// stays with its own caller. Two daemons' groups may deadlock on PostgreSQL (their row locks
// taken in another order): the one aborted is run again change by change, and a change aborted
// again is tried up to CONFLICT_TRIES times.
//
// A group takes changes until it has run GROUP_SLICE_MS (at least one change); the rest wait for
// the next turn of the event loop, after the I/O that came in meanwhile. A transaction is
// synchronous: before the slice, twenty concurrent 900 KB webhook-triggered runs (each stores
// its input, its agent execution and their events) were one group that held /healthz 1.3-5 s
// (issue 38).
//
// Running counters (an agent's or a workflow's stats) that many changes of a group add to are
// written once, just before the group commits (deferCounters), instead of once per change.
import type { Db } from './db.js';
import { isTransactionConflict } from './store-errors.js';

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** What a repository adds to counters during a transaction, written at its end. */
export interface CounterWrites {
  /** Writes what was added since the last call (inside the transaction, before it commits). */
  write(): void;
  /** The transaction rolled back: forget what was added. */
  discard(): void;
}

export interface CounterDeferral {
  /**
   * Inside work of the queue: `writes` is written just before the transaction commits (true).
   * Outside: false, and the caller writes at once. Work must not count inside a nested
   * transaction whose failure it catches (that savepoint's counts would still be written).
   */
  deferCounters(writes: CounterWrites): boolean;
}

/** For repositories used without a group commit (tests, tools): counters are written at once. */
export const WRITE_AT_ONCE: CounterDeferral = { deferCounters: () => false };

/** How long one group transaction may run changes before it commits and lets I/O in. */
export const GROUP_SLICE_MS = 25;

/**
 * Tries of a change alone that PostgreSQL aborts for a conflict with another daemon's
 * transaction (isTransactionConflict): a caller that got the error would leave its work undone
 * (a step's outcome unrecorded, its run stuck until a takeover).
 */
export const CONFLICT_TRIES = 4;

export class CommitQueue implements CounterDeferral {
  private pending: Pending[] = [];
  /** Counter writes waiting for the end of the running transaction. */
  private readonly counters = new Set<CounterWrites>();
  private working = false;

  constructor(private readonly db: Db) {}

  /** Runs `work` inside the next group transaction; resolves with its result after the commit. */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (this.pending.length === 1) setImmediate(() => this.flush());
    });
  }

  deferCounters(writes: CounterWrites): boolean {
    if (!this.working) return false;
    this.counters.add(writes);
    return true;
  }

  private flush(): void {
    const queued = this.pending;
    this.pending = [];
    const deadline = performance.now() + GROUP_SLICE_MS;
    // The changes of this group: queued[0, taken); on a throw, the one that threw too.
    let taken = 0;
    let values: unknown[] | undefined;
    try {
      values = this.transact(() => {
        const results: unknown[] = [];
        do {
          results.push(queued[taken]!.work());
          taken += 1;
        } while (taken < queued.length && performance.now() < deadline);
        return results;
      });
    } catch {
      taken += 1;
    }
    this.requeue(queued.slice(taken));
    const group = queued.slice(0, taken);
    if (values) group.forEach((item, index) => item.resolve(values[index]));
    else for (const item of group) this.runAlone(item);
  }

  /** Puts changes left over from a group first in line, for the next turn of the event loop. */
  private requeue(rest: Pending[]): void {
    if (rest.length === 0) return;
    // Changes queued during the group already have a flush coming.
    if (this.pending.length === 0) setImmediate(() => this.flush());
    this.pending = rest.concat(this.pending);
  }

  private runAlone(item: Pending): void {
    for (let tries = 1; ; tries += 1) {
      try {
        item.resolve(this.transact(item.work));
        return;
      } catch (error) {
        // Team mode: another daemon's transaction won a lock conflict; this one was rolled back
        // whole and may run again (changes are written to be run again after a rollback).
        if (tries < CONFLICT_TRIES && isTransactionConflict(error)) continue;
        item.reject(error);
        return;
      }
    }
  }

  /** One transaction: the work, then the counters it added to; on failure, none of them. */
  private transact<T>(work: () => T): T {
    this.working = true;
    try {
      return this.db.transaction(() => {
        const value = work();
        for (const writes of this.counters) writes.write();
        return value;
      })();
    } catch (error) {
      for (const writes of this.counters) writes.discard();
      throw error;
    } finally {
      this.counters.clear();
      this.working = false;
    }
  }
}

/** What is added to a row's counters: each field is added up, but `at` (a time) keeps the latest. */
export type CounterDelta = { at: number } & Record<string, number>;

/** Adds `later` into `sum` (a copy PendingCounters owns). */
function mergeInto(sum: Record<string, number>, later: CounterDelta): void {
  for (const key in later) {
    const value = later[key]!;
    sum[key] = key === 'at' ? Math.max(sum[key]!, value) : (sum[key] ?? 0) + value;
  }
}

/** Deltas added to rows' counters, merged per row until written (see deferCounters). */
export class PendingCounters<Delta extends CounterDelta> implements CounterWrites {
  private readonly deltas = new Map<string, Delta>();

  constructor(
    private readonly deferral: CounterDeferral,
    private readonly writeRow: (id: string, delta: Delta) => void,
  ) {}

  /** Adds to a row's counters: at the end of the queue's transaction, or at once outside it. */
  add(id: string, delta: Delta): void {
    if (!this.deferral.deferCounters(this)) {
      this.writeRow(id, delta);
      return;
    }
    // One copy per row and group, added into in place: a busy group adds to the same few rows
    // many times.
    const sum = this.deltas.get(id);
    if (sum === undefined) this.deltas.set(id, { ...delta });
    else mergeInto(sum, delta);
  }

  write(): void {
    for (const [id, delta] of this.deltas) this.writeRow(id, delta);
    this.deltas.clear();
  }

  discard(): void {
    this.deltas.clear();
  }
}
