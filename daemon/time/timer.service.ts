// Fires durable timers when the daemon clock reaches them. Timers are rows, so work that is
// due later survives a restart; a timer is deleted only after its handler succeeded
// (at-least-once), and a failing handler is retried with a growing delay, at most
// MAX_TIMER_ATTEMPTS times; then it is moved to dead_timers (reported by `svc daemon status`).
// Handlers run concurrently (a slow webhook receiver does not hold up the others), up to a limit.
// A timer stored as due now is handed to the loop only once its transaction has committed.
// A handler whose work the disk cannot store (full) has not failed: its timer stays due as it
// is, not counted as an attempt, and is tried again after a real-time pause until it is stored,
// so work that fell due while the disk was full runs once space is freed, without a clock move.
// Team mode: a timer stored for later is told to the sandbox's other daemons (a notice sent with
// the transaction's commit), whose real-time wake-ups then know it as well: it runs on time on
// whichever daemon claims it, also when the daemon that stored it died meanwhile.
import { newId } from '../../shared/ids.js';
import { HeldElsewhere } from '../cluster/held-elsewhere.js';
import { isStorageFull } from '../store/storage-full.js';
import { ALONE, type TeamNotices } from '../store/team-notices.js';
import type { Clock } from './clock.js';
import type { TimerRepository, TimerRow } from './timer.repository.js';
import { WakeUp } from './wake-up.js';

export interface TimerContext {
  id: string;
  dueAt: number;
  /**
   * Wraps a wait that only a later time on the daemon clock ends (an injected --latency): while
   * it lasts the handler is parked, so runDue (and with it a clock move) and stop() do not wait
   * for it. A handler parked at stop() never finishes here; its timer runs again after a restart.
   */
  untilDue<T>(waiting: Promise<T>): Promise<T>;
  /**
   * Deletes the timer in the caller's transaction, the handler's last one: the timer is done
   * when that commits, atomically with the work (else it is deleted after the handler returns,
   * with the others of its pass: one transaction less). Only where the handler lets that
   * transaction's failure through: a handler that threw is retried, its timer still stored.
   */
  finish(): void;
}

/** A timer due now, as svc settle names it. */
export interface DueTimer {
  id: string;
  kind: string;
  owner: string | null;
  due_at: number;
  /** Its handler is running (else it waits for a slot or the next pass). */
  running: boolean;
}

export type TimerHandler = (payload: unknown, timer: TimerContext) => Promise<void> | void;

export interface TimerLogger {
  error(obj: object, msg: string): void;
}

const MAX_CONCURRENCY = 256;
/** Look for more due timers once fewer than this many handlers are running. */
const REFILL_BELOW = MAX_CONCURRENCY / 2;
const MAX_RETRY_DELAY_MS = 3_600_000;
/** Attempts before a failing timer is declared dead (about 17 minutes of retries in all). */
export const MAX_TIMER_ATTEMPTS = 10;
/**
 * Real-time pauses before timers the full disk refused are tried again: 1 s, doubling up to
 * 10 s, so they run within seconds of space being freed (a try costs one transaction each).
 */
const SPACE_RETRY_MS = 1_000;
const MAX_SPACE_RETRY_MS = 10_000;

export class TimerService {
  private readonly handlers = new Map<string, TimerHandler>();
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Handlers in flight that wait for a later time on the daemon clock (untilDue). */
  private readonly parked = new Set<string>();
  /** Something may have become due since the last look (a timer was stored, time moved). */
  private dirty = true;
  /** Timers stored as due now while the service runs, not yet started. */
  private readonly ready = new Map<string, TimerRow>();
  /** Due-now timers stored in a transaction that may not have committed yet. */
  private readonly staged = new Set<string>();
  /** The staged timers of this synchronous stretch, looked up together once it ends. */
  private handOff: TimerRow[] = [];
  /** Timers whose handlers succeeded, not yet deleted. */
  private readonly done: string[] = [];
  private readonly wakeUp: WakeUp;
  private running: Promise<void> | undefined;
  private draining = false;
  private nudge: (() => void) | undefined;
  private nudged = false;
  /** Real-time wake-ups are set only between start() and stop(). */
  private armed = false;
  /** After stop(), no handler is started. */
  private closing = false;
  /** Due timers whose work the full disk refused, waiting for the next try (spaceRetry). */
  private readonly refused = new Set<string>();
  private spaceRetry: NodeJS.Timeout | undefined;
  private spaceTries = 0;
  /** The due time the real-time wake-up is set for (Infinity: none). */
  private wakeAt = Infinity;
  /** Team mode: timers whose handlers another daemon has parked (svc settle leaves them out). */
  private readonly parkedElsewhere: HeldElsewhere;

  constructor(
    private readonly repo: TimerRepository,
    private readonly clock: Clock,
    private readonly log: TimerLogger,
    /** Team mode: tells the other daemons of timers stored for later, and hears theirs. */
    private readonly notices?: TeamNotices,
  ) {
    this.wakeUp = new WakeUp(clock, () => void this.runDue());
    this.parkedElsewhere = new HeldElsewhere(notices ?? ALONE, 'timer');
    notices?.on('timer', (payload) => this.heardTimer(Number(payload)));
    // Notices were missed while the listening connection was away: look at the table again.
    notices?.onResync(() => {
      if (this.armed) void this.runDue();
    });
  }

  register(kind: string, handler: TimerHandler): void {
    this.handlers.set(kind, handler);
  }

  /**
   * Stores a timer. Synchronous, so callers can do it inside their own transaction. `owner`
   * names the object it works for, so cancelOwned(owner) drops all of that object's timers.
   */
  schedule(kind: string, dueAt: number, payload: unknown, owner: string | null = null): string {
    const row: TimerRow & { claimed_by: string | null } = {
      id: newId('timer'),
      kind,
      due_at: dueAt,
      payload: JSON.stringify(payload ?? null),
      owner,
      attempts: 0,
      last_error: null,
      created_at: this.clock.now(),
      claimed_by: null,
    };
    const dueNow = this.armed && dueAt <= row.created_at;
    // Team mode: a timer this daemon hands to its own loop is claimed as it is stored.
    if (dueNow && this.repo.claimant !== undefined) row.claimed_by = this.repo.claimant;
    this.repo.insert(row);
    if (dueNow) {
      // Due now: hand it to the loop directly instead of having it look in the table, but only
      // once the caller's transaction has settled (transactions are synchronous, so a microtask
      // runs after the commit or rollback). A rolled-back timer, e.g. from a group commit that
      // was retried change by change, is gone from the table and never fires.
      this.staged.add(row.id);
      this.handOff.push(row);
      if (this.handOff.length === 1) queueMicrotask(() => this.handOver());
    } else {
      this.dirty = true;
      if (this.armed) this.arm();
      // Sent with the caller's commit (dropped with its rollback); none on SQLite.
      this.notices?.notify('timer', String(dueAt));
    }
    return row.id;
  }

  /**
   * The due-now timers scheduled in the synchronous stretch that just ended (its transactions
   * have committed or rolled back): the stored ones go to the loop. One read for all of them.
   */
  private handOver(): void {
    const rows = this.handOff;
    this.handOff = [];
    // Not staged any more: a pass already found it in the table.
    const staged = rows.filter((row) => this.staged.delete(row.id));
    if (this.closing || staged.length === 0) return;
    const stored = this.repo.existing(staged.map((row) => row.id));
    let handed = 0;
    for (const row of staged) {
      if (!stored.has(row.id)) continue;
      this.ready.set(row.id, row);
      handed += 1;
    }
    if (handed > 0) void this.kick();
  }

  /** Another daemon stored a timer due at `dueAt`: wake for it if that is sooner than planned. */
  private heardTimer(dueAt: number): void {
    if (!this.armed || !Number.isFinite(dueAt) || dueAt >= this.wakeAt) return;
    this.dirty = true;
    this.wakeAt = dueAt;
    this.wakeUp.at(dueAt);
  }

  /** Removes every pending timer of an owner (an indexed delete; call it in the owner's transaction). */
  cancelOwned(owner: string): number {
    return this.repo.cancelOwned(owner);
  }

  /** The earliest due time of a stored timer later than `time` (svc clock advance steps there). */
  nextDueAfter(time: number): number | undefined {
    return this.repo.nextDueAfter(time);
  }

  pending(): number {
    return this.repo.count();
  }

  /**
   * Timers due at the daemon clock's now whose work is not done (svc settle), at most `limit`:
   * waiting to start or running. Handlers parked on a later time (untilDue) are left out: only
   * a clock move ends them.
   */
  dueNow(limit: number): DueTimer[] {
    const skip = new Set([...this.parked, ...this.done]);
    return this.repo
      .due(this.clock.now(), limit + skip.size)
      .filter((row) => !skip.has(row.id) && !this.parkedElsewhere.has(row.id))
      .slice(0, limit)
      .map((row) => ({
        id: row.id,
        kind: row.kind,
        owner: row.owner,
        due_at: row.due_at,
        running: this.inFlight.has(row.id),
      }));
  }

  /** Timers that failed MAX_TIMER_ATTEMPTS times and will not run again. */
  dead(): number {
    return this.repo.deadCount();
  }

  start(): void {
    this.armed = true;
    this.closing = false;
    void this.runDue();
  }

  /** Stops starting handlers; waits for the ones already running, except parked ones. */
  async stop(): Promise<void> {
    this.armed = false;
    this.closing = true;
    // Timers handed over but not started stay in the table for the next start.
    this.ready.clear();
    this.staged.clear();
    this.wakeUp.cancel();
    this.wakeAt = Infinity;
    clearTimeout(this.spaceRetry);
    this.spaceRetry = undefined;
    this.refused.clear();
    this.poke();
    await this.running;
    // A pass that ends once every handler has finished or parked.
    await this.kick();
    this.flushDone();
    // Team mode: what this daemon claimed and did not finish goes to the others.
    try {
      this.repo.releaseClaims();
    } catch (error) {
      this.log.error({ err: error }, 'timer claims not released; they go with this daemon lease');
    }
  }

  /**
   * Runs every timer that is due now, including those that become due while it runs (a
   * handler may schedule an immediate follow-up). Resolves when nothing due is left running.
   */
  runDue(): Promise<void> {
    this.dirty = true;
    return this.kick();
  }

  /** Starts a drain pass, or wakes the one under way. */
  private kick(): Promise<void> {
    if (this.draining) {
      this.poke();
      return this.running!;
    }
    this.draining = true;
    this.running = this.drain();
    return this.running;
  }

  private async drain(): Promise<void> {
    try {
      // A runDue() that arrives while the last loop is returning pokes; go round once more.
      do await this.drainLoop();
      while (this.nudged && !this.closing);
    } finally {
      this.flushDone();
      // Cleared synchronously as the pass ends, so a runDue() right after starts a new pass.
      this.draining = false;
      if (this.armed) this.arm();
    }
  }

  private async drainLoop(): Promise<void> {
    for (;;) {
      this.nudged = false;
      this.flushDone();
      let started = 0;
      // A handler finishing frees a slot but makes nothing new due: look again only when
      // something was stored or time moved, or the last look was cut short by the limit.
      if (this.inFlight.size < REFILL_BELOW && !this.closing) {
        started = this.startReady();
        if (this.dirty) started += this.startDue();
      }
      if (this.busy() === 0 && started === 0 && !this.nudged) return;
      if (this.nudged) continue;
      // Woken by a handler finishing or by poke(): one promise, whatever the number in flight.
      await new Promise<void>((resolve) => (this.nudge = resolve));
      this.nudge = undefined;
    }
  }

  /**
   * Deletes the timers whose handlers succeeded, in one transaction per pass. If that cannot be
   * stored (a full disk), they are kept for the next pass: thrown here, it would leave the pass
   * marked as running and no timer would fire again.
   */
  private flushDone(): void {
    if (this.done.length === 0) return;
    try {
      this.repo.deleteMany(this.done);
      this.done.length = 0;
    } catch (error) {
      this.log.error({ err: error, timers: this.done.length }, 'finished timers not deleted yet');
    }
  }

  /** Starts timers scheduled as due now, without a query. */
  private startReady(): number {
    let started = 0;
    for (const row of this.ready.values()) {
      if (this.inFlight.size >= MAX_CONCURRENCY) break;
      this.ready.delete(row.id);
      if (this.launch(row)) started += 1;
    }
    return started;
  }

  private startDue(): number {
    this.dirty = false;
    const limit = MAX_CONCURRENCY + this.inFlight.size;
    const rows = this.repo.claimDue(this.clock.now(), limit);
    if (rows.length === limit) this.dirty = true;
    let started = 0;
    for (const row of rows) {
      if (this.inFlight.size >= MAX_CONCURRENCY) break;
      this.ready.delete(row.id);
      this.staged.delete(row.id);
      if (this.launch(row)) started += 1;
    }
    return started;
  }

  /** Handlers in flight that are not parked on the daemon clock. */
  private busy(): number {
    return this.inFlight.size - this.parked.size;
  }

  private launch(row: TimerRow): boolean {
    if (this.inFlight.has(row.id)) return false;
    // Run here now (the daemon that parked it was taken over): its old hold is past.
    this.parkedElsewhere.forget(row.id);
    const run = this.fire(row).finally(() => {
      this.inFlight.delete(row.id);
      // A parked handler may finish after its pass ended: a new pass deletes its timer.
      if (!this.draining && this.armed) void this.kick();
      else this.poke();
    });
    this.inFlight.set(row.id, run);
    return true;
  }

  private poke(): void {
    this.nudged = true;
    this.nudge?.();
  }

  private async fire(row: TimerRow): Promise<void> {
    const handler = this.handlers.get(row.kind);
    let finished = false;
    try {
      if (!handler) throw new Error(`no handler registered for timer kind ${row.kind}`);
      await handler(JSON.parse(row.payload), {
        id: row.id,
        dueAt: row.due_at,
        untilDue: (waiting) => {
          this.parked.add(row.id);
          this.parkedElsewhere.tell(row.id, true);
          this.poke();
          return waiting.finally(() => {
            this.parked.delete(row.id);
            this.parkedElsewhere.tell(row.id, false);
          });
        },
        finish: () => {
          this.repo.deleteLater(row.id);
          finished = true;
        },
      });
      // Deleted with the others of this pass; a crash before that runs it again (at-least-once).
      if (!finished) this.done.push(row.id);
      if (this.spaceRetry === undefined && this.refused.size === 0) this.spaceTries = 0;
    } catch (error) {
      if (isStorageFull(error)) {
        this.waitForSpace(row, error);
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      const attempts = row.attempts + 1;
      if (attempts >= MAX_TIMER_ATTEMPTS) {
        this.repo.bury(row.id, message, this.clock.now());
        this.log.error(
          { timer: row.id, kind: row.kind, owner: row.owner, attempts, err: message },
          `timer handler failed ${attempts} times; the timer is dead (kept in dead_timers, counted by svc daemon status) and will not run again`,
        );
        return;
      }
      const delay = Math.min(1000 * 2 ** row.attempts, MAX_RETRY_DELAY_MS);
      this.repo.recordFailure(row.id, message, this.clock.now() + delay);
      this.log.error(
        { timer: row.id, kind: row.kind, attempts, err: message },
        `timer handler failed; retry ${attempts + 1} of ${MAX_TIMER_ATTEMPTS} in ${delay} ms`,
      );
    }
  }

  /**
   * The disk could not store what the timer's handler did (nor, then, a failed attempt): the
   * timer stays due as it is, and all such timers are tried again after a real-time pause.
   */
  private waitForSpace(row: TimerRow, error: unknown): void {
    // Said once for a spell of full disk, not at every try.
    if (this.spaceTries === 0 && this.refused.size === 0) {
      this.log.error(
        { timer: row.id, kind: row.kind, owner: row.owner, err: String(error) },
        'timer work not stored: the disk is full; trying again until it is stored',
      );
    }
    this.refused.add(row.id);
    if (this.spaceRetry !== undefined || this.closing) return;
    const pause = Math.min(SPACE_RETRY_MS * 2 ** this.spaceTries, MAX_SPACE_RETRY_MS);
    this.spaceTries += 1;
    this.spaceRetry = setTimeout(() => {
      this.spaceRetry = undefined;
      this.refused.clear();
      if (this.armed) void this.runDue();
    }, pause);
    // Never keeps the process alive, as the other wake-ups.
    this.spaceRetry.unref();
  }

  /** Sets one real-time wake-up for the nearest due timer (re-read after clock moves). */
  private arm(): void {
    // Every timer due now has finished, is parked or waits for space when a pass ends: wake for a
    // later one (the ones refused by a full disk have their own retry, see waitForSpace).
    const waiting = this.parked.size > 0 || this.refused.size > 0;
    const next = waiting
      ? this.repo.nextClaimableAfter(this.clock.now())
      : this.repo.nextClaimableAt();
    this.wakeAt = next ?? Infinity;
    if (next === undefined) this.wakeUp.cancel();
    else this.wakeUp.at(next);
  }
}
