// Fixed-window request counters on the daemon clock. A request is checked against every
// bucket that applies to it at once: if any is full, none is counted and the caller answers
// 429; otherwise all are counted and the tightest one is reported in the headers.
import type { Clock } from '../clock/clock.js';

export interface BucketSpec {
  /** Names the rule, e.g. "tier.minute" or "op.agents.create"; shown in 429 messages. */
  name: string;
  limit: number;
  windowMs: number;
  /** Human description of the rule for error messages, e.g. "20 requests per minute". */
  describe: string;
}

export interface BucketHit {
  spec: BucketSpec;
  /** Whose counter it is: a credential id, a workspace id, a workspace + agent id... */
  key: string;
}

export interface BucketState {
  spec: BucketSpec;
  limit: number;
  remaining: number;
  /** When the window ends, ms on the daemon clock. */
  resetAt: number;
}

export type LimitVerdict =
  | { allowed: true; tightest: BucketState | undefined }
  | { allowed: false; exceeded: BucketState; tightest: BucketState };

interface Counter {
  windowStart: number;
  count: number;
  windowMs: number;
}

const PRUNE_THRESHOLD = 50_000;

export class FixedWindowLimiter {
  private readonly counters = new Map<string, Counter>();

  constructor(private readonly clock: Clock) {}

  hit(buckets: readonly BucketHit[]): LimitVerdict {
    const now = this.clock.now();
    const states: { counter: Counter; state: BucketState }[] = [];
    let exceeded: BucketState | undefined;
    for (const { spec, key } of buckets) {
      const counter = this.counter(`${spec.name}\u0000${key}`, spec.windowMs, now);
      const state: BucketState = {
        spec,
        limit: spec.limit,
        remaining: Math.max(0, spec.limit - counter.count),
        resetAt: counter.windowStart + spec.windowMs,
      };
      if (counter.count >= spec.limit && (!exceeded || state.resetAt > exceeded.resetAt)) {
        exceeded = state;
      }
      states.push({ counter, state });
    }
    if (exceeded) return { allowed: false, exceeded, tightest: exceeded };

    let tightest: BucketState | undefined;
    for (const { counter, state } of states) {
      counter.count += 1;
      state.remaining -= 1;
      if (!tightest || state.remaining < tightest.remaining) tightest = state;
    }
    return { allowed: true, tightest };
  }

  private counter(id: string, windowMs: number, now: number): Counter {
    const windowStart = Math.floor(now / windowMs) * windowMs;
    let counter = this.counters.get(id);
    if (!counter) {
      if (this.counters.size >= PRUNE_THRESHOLD) this.prune(now);
      counter = { windowStart, count: 0, windowMs };
      this.counters.set(id, counter);
    } else if (counter.windowStart !== windowStart) {
      counter.windowStart = windowStart;
      counter.count = 0;
    }
    return counter;
  }

  private prune(now: number): void {
    for (const [id, counter] of this.counters) {
      if (counter.windowStart + counter.windowMs <= now) this.counters.delete(id);
    }
  }
}
