// A clock for unit tests that stands still unless the test moves it (ms is public): many
// things happen at the same instant, and time passes only where the test says so.
import type { Clock } from '../../daemon/time/clock.js';

export class StillClock implements Clock {
  constructor(public ms: number) {}

  now(): number {
    return this.ms;
  }

  iso(): string {
    return new Date(this.ms).toISOString();
  }
}
