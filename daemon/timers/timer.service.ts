// Fires durable timers when the daemon clock reaches them. Timers are rows, so work that is
// due later survives a restart; a timer is deleted only after its handler succeeded
// (at-least-once), and a failing handler is retried with a growing delay.
import { newId } from '../../shared/ids.js';
import type { Clock } from '../clock/clock.js';
import type { TimerRepository } from './timer.repository.js';

export type TimerHandler = (
  payload: unknown,
  timer: { id: string; dueAt: number },
) => Promise<void> | void;

export interface TimerLogger {
  error(obj: object, msg: string): void;
}

const BATCH = 100;
const MAX_SLEEP_MS = 60_000;
const MAX_RETRY_DELAY_MS = 3_600_000;

export class TimerService {
  private readonly handlers = new Map<string, TimerHandler>();
  private wakeUp: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private rerun = false;
  private stopped = true;

  constructor(
    private readonly repo: TimerRepository,
    private readonly clock: Clock,
    private readonly log: TimerLogger,
  ) {}

  register(kind: string, handler: TimerHandler): void {
    this.handlers.set(kind, handler);
  }

  /** Stores a timer. Synchronous, so callers can do it inside their own transaction. */
  schedule(kind: string, dueAt: number, payload: unknown): string {
    const id = newId('timer');
    this.repo.insert({
      id,
      kind,
      due_at: dueAt,
      payload: JSON.stringify(payload ?? null),
      created_at: this.clock.now(),
    });
    if (!this.stopped) this.arm();
    return id;
  }

  /** Removes pending timers of a kind whose payload equals the given one. */
  cancel(kind: string, payload: unknown): number {
    return this.repo.cancel(kind, JSON.stringify(payload ?? null));
  }

  pending(): number {
    return this.repo.count();
  }

  start(): void {
    this.stopped = false;
    void this.runDue();
  }

  /** Stops arming; waits for the handlers already running. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.wakeUp) clearTimeout(this.wakeUp);
    this.wakeUp = undefined;
    await this.running;
  }

  /**
   * Runs every timer that is due now, including those that become due while it runs
   * (a handler may schedule an immediate follow-up). Resolves when nothing due is left.
   */
  runDue(): Promise<void> {
    if (this.running) {
      this.rerun = true;
      return this.running;
    }
    this.running = this.drain().finally(() => {
      this.running = undefined;
      if (!this.stopped) this.arm();
    });
    return this.running;
  }

  private async drain(): Promise<void> {
    do {
      this.rerun = false;
      for (;;) {
        const batch = this.repo.due(this.clock.now(), BATCH);
        if (batch.length === 0) break;
        await Promise.all(batch.map((row) => this.fire(row)));
      }
    } while (this.rerun);
  }

  private async fire(row: {
    id: string;
    kind: string;
    due_at: number;
    payload: string;
    attempts: number;
  }): Promise<void> {
    const handler = this.handlers.get(row.kind);
    try {
      if (!handler) throw new Error(`no handler registered for timer kind ${row.kind}`);
      await handler(JSON.parse(row.payload), { id: row.id, dueAt: row.due_at });
      this.repo.delete(row.id);
    } catch (error) {
      const delay = Math.min(1000 * 2 ** row.attempts, MAX_RETRY_DELAY_MS);
      const message = error instanceof Error ? error.message : String(error);
      this.repo.recordFailure(row.id, message, this.clock.now() + delay);
      this.log.error(
        { timer: row.id, kind: row.kind, err: message },
        'timer handler failed; will retry',
      );
    }
  }

  /** Sets one real-time wake-up for the nearest due timer (re-read after clock moves). */
  private arm(): void {
    if (this.wakeUp) clearTimeout(this.wakeUp);
    this.wakeUp = undefined;
    const next = this.repo.nextDueAt();
    if (next === undefined) return;
    const delay = Math.max(0, Math.min(next - this.clock.now(), MAX_SLEEP_MS));
    this.wakeUp = setTimeout(() => void this.runDue(), delay);
    this.wakeUp.unref();
  }
}
