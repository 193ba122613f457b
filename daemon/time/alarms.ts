// In-memory alarms on the daemon clock, for things that only matter while this process runs (a
// request waiting at most 60 s for its run, the deadline of a step in flight). Durable work uses
// timers instead. One real-time wake-up serves all alarms; a clock move calls check().
import type { Clock } from './clock.js';

interface Alarm {
  dueAt: number;
  fire: () => void;
}

const MAX_SLEEP_MS = 60_000;

export class Alarms {
  private readonly alarms = new Map<number, Alarm>();
  private nextId = 0;
  private wakeUp: NodeJS.Timeout | undefined;
  private wakeAt = Infinity;

  constructor(private readonly clock: Clock) {}

  /** Calls `fire` once the daemon clock reaches `dueAt`; returns the cancel function. */
  at(dueAt: number, fire: () => void): () => void {
    const id = this.nextId++;
    this.alarms.set(id, { dueAt, fire });
    if (dueAt < this.wakeAt) this.arm(dueAt);
    return () => void this.alarms.delete(id);
  }

  /** Fires what is due (after the clock moved, or on the real-time wake-up). */
  /** The earliest alarm later than `time`. */
  nextDueAfter(time: number): number | undefined {
    let next: number | undefined;
    for (const alarm of this.alarms.values()) {
      if (alarm.dueAt > time && (next === undefined || alarm.dueAt < next)) next = alarm.dueAt;
    }
    return next;
  }

  check(): void {
    const now = this.clock.now();
    let next = Infinity;
    for (const [id, alarm] of this.alarms) {
      if (alarm.dueAt <= now) {
        this.alarms.delete(id);
        alarm.fire();
      } else if (alarm.dueAt < next) next = alarm.dueAt;
    }
    this.wakeAt = Infinity;
    if (this.wakeUp) clearTimeout(this.wakeUp);
    this.wakeUp = undefined;
    if (next !== Infinity) this.arm(next);
  }

  /** Drops every alarm (shutdown). */
  clear(): void {
    this.alarms.clear();
    if (this.wakeUp) clearTimeout(this.wakeUp);
    this.wakeUp = undefined;
    this.wakeAt = Infinity;
  }

  private arm(dueAt: number): void {
    if (this.wakeUp) clearTimeout(this.wakeUp);
    this.wakeAt = dueAt;
    const delay = Math.max(0, Math.min(dueAt - this.clock.now(), MAX_SLEEP_MS));
    this.wakeUp = setTimeout(() => this.check(), delay);
    this.wakeUp.unref();
  }
}
