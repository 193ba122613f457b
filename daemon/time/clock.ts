// The daemon's one clock. Domain code asks it for the time and never calls Date.now():
// in the sandbox it is real time plus an offset that `svc clock` moves, and it keeps ticking.

export interface Clock {
  /** Milliseconds since the epoch on the daemon's clock. */
  now(): number;
  /** The same instant as an ISO 8601 string in UTC. */
  iso(): string;
}

export class OffsetClock implements Clock {
  constructor(private offsetMs = 0) {}

  now(): number {
    return Date.now() + this.offsetMs;
  }

  iso(): string {
    return toIso(this.now());
  }

  get offset(): number {
    return this.offsetMs;
  }

  setOffset(offsetMs: number): void {
    this.offsetMs = offsetMs;
  }
}

/**
 * Real time, never moved by `svc clock`: only for times the outside world stamps with its own
 * clock, such as the `t` of a signed webhook-trigger request (the sender's real time, compared
 * with real time), so that a sandbox clock moved for a test does not refuse every signed hook.
 */
export const REAL_TIME: Clock = new OffsetClock(0);

export function toIso(ms: number): string;
export function toIso(ms: number | null | undefined): string | null;
export function toIso(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined) return null;
  // A transition formats the same instant many times (events, views): format it once.
  if (ms !== lastIso.ms) lastIso = { ms, text: new Date(ms).toISOString() };
  return lastIso.text;
}

let lastIso = { ms: Number.NaN, text: '' };
