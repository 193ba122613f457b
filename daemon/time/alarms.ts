// In-memory alarms on the daemon clock, for things that only matter while this process runs (a
// request waiting at most 60 s for its run, the deadline of a step in flight). Durable work uses
// timers instead. One real-time wake-up serves all alarms; a clock move calls check().
import type { Clock } from './clock.js';
import { WakeUp } from './wake-up.js';

interface Alarm {
  dueAt: number;
  fire: () => void;
}

export class Alarms {
  private readonly alarms = new Map<number, Alarm>();
  private nextId = 0;
  private readonly wakeUp: WakeUp;
  private wakeAt = Infinity;

  constructor(private readonly clock: Clock) {
    this.wakeUp = new WakeUp(clock, () => this.check());
  }

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
    this.wakeUp.cancel();
    if (next !== Infinity) this.arm(next);
  }

  /** Drops every alarm (shutdown). */
  clear(): void {
    this.alarms.clear();
    this.wakeUp.cancel();
    this.wakeAt = Infinity;
  }

  private arm(dueAt: number): void {
    this.wakeAt = dueAt;
    this.wakeUp.at(dueAt);
  }
}
