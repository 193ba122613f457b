// The one real-time wake-up of the daemon's time keeping: durable timers and in-memory alarms
// each keep one, set for their earliest due time on the daemon clock.
import type { Clock } from './clock.js';

/**
 * The longest real-time sleep before due times are looked at again. The daemon clock can jump
 * (`svc clock advance`, a suspended laptop), so no wake-up trusts a far-off due time.
 */
export const MAX_SLEEP_MS = 60_000;

export class WakeUp {
  private handle: NodeJS.Timeout | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly onDue: () => void,
  ) {}

  /** Calls onDue when the daemon clock reaches `dueAt` (or MAX_SLEEP_MS from now, if sooner). */
  at(dueAt: number): void {
    this.cancel();
    const delay = Math.max(0, Math.min(dueAt - this.clock.now(), MAX_SLEEP_MS));
    this.handle = setTimeout(this.onDue, delay);
    // Never keeps the process alive: a stopping daemon does not wait for a due time.
    this.handle.unref();
  }

  cancel(): void {
    if (this.handle) clearTimeout(this.handle);
    this.handle = undefined;
  }
}
