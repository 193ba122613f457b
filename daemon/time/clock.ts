// The daemon's one clock. Domain code asks it for the time and never calls Date.now():
// in the sandbox it is real time plus an offset that `svc clock` moves, and it keeps ticking,
// unless it is frozen (`svc clock freeze`): then only advance and set move it, so a test sees
// the same instant however long its steps take.

export interface Clock {
  /** Milliseconds since the epoch on the daemon's clock. */
  now(): number;
  /** The same instant as an ISO 8601 string in UTC. */
  iso(): string;
}

/** An OffsetClock's settings at one moment (see OffsetClock.reading). */
export interface ClockReading {
  readonly offsetMs: number;
  readonly frozenAt: number | undefined;
}

export class OffsetClock implements Clock {
  /** The instant the clock stands at while frozen. */
  private frozenAt: number | undefined;

  constructor(private offsetMs = 0) {}

  now(): number {
    return this.frozenAt ?? Date.now() + this.offsetMs;
  }

  iso(): string {
    return toIso(this.now());
  }

  /** How far the clock is from real time (while frozen, this changes as real time goes on). */
  get offset(): number {
    return this.frozenAt === undefined ? this.offsetMs : this.frozenAt - Date.now();
  }

  get frozen(): boolean {
    return this.frozenAt !== undefined;
  }

  /** Puts the clock `offsetMs` from real time now (a frozen clock stays frozen there). */
  setOffset(offsetMs: number): void {
    if (this.frozenAt === undefined) this.offsetMs = offsetMs;
    else this.frozenAt = Date.now() + offsetMs;
  }

  /** Moves the clock forward (or back) by `ms`, frozen or not. */
  shift(ms: number): void {
    if (this.frozenAt === undefined) this.offsetMs += ms;
    else this.frozenAt += ms;
  }

  /** Stops the clock at `at` (its current time when not given). */
  freeze(at = this.now()): void {
    this.frozenAt = at;
  }

  /** Where the clock stands, to go back there (restore) if a change of it cannot be kept. */
  reading(): ClockReading {
    return { offsetMs: this.offsetMs, frozenAt: this.frozenAt };
  }

  restore(reading: ClockReading): void {
    this.offsetMs = reading.offsetMs;
    this.frozenAt = reading.frozenAt;
  }

  /** Lets a frozen clock tick again from the instant it stood at. */
  resume(): void {
    if (this.frozenAt === undefined) return;
    this.offsetMs = this.frozenAt - Date.now();
    this.frozenAt = undefined;
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
