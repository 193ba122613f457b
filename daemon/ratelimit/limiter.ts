// Fixed-window request counters on the daemon clock. A request is checked against every
// bucket that applies to it at once: if any is full, none is counted and the caller answers
// 429; otherwise all are counted and the tightest one is reported in the headers.
import type { Clock } from '../time/clock.js';

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

/** Counts a request in its buckets, or refuses it: in memory here, in the store for a team. */
export interface Limiter {
  hit(buckets: readonly BucketHit[]): LimitVerdict;
}

export class FixedWindowLimiter implements Limiter {
  /** Per bucket rule, per key: no string building on the hot path. */
  private readonly counters = new Map<BucketSpec, Map<string, Counter>>();
  private size = 0;
  /** The counters of the request being checked (hit() is synchronous). */
  private readonly gathered: Counter[] = [];

  constructor(private readonly clock: Clock) {}

  hit(buckets: readonly BucketHit[]): LimitVerdict {
    const now = this.clock.now();
    // Every request passes here: its counters are gathered in one reused array, and a state
    // object is made only for the bucket reported (measured: 822 bytes a request before).
    const counters = this.gathered;
    counters.length = 0;
    let exceeded: BucketState | undefined;
    for (const { spec, key } of buckets) {
      const counter = this.counter(spec, key, now);
      counters.push(counter);
      if (counter.count >= spec.limit && (!exceeded || resetOf(spec, counter) > exceeded.resetAt)) {
        exceeded = bucketState(spec, counter, 0);
      }
    }
    if (exceeded) return { allowed: false, exceeded, tightest: exceeded };

    // Count the request in every bucket; report the one with the fewest requests left.
    let tightest = -1;
    let fewestLeft = Infinity;
    for (let i = 0; i < counters.length; i++) {
      const counter = counters[i]!;
      counter.count += 1;
      const remaining = buckets[i]!.spec.limit - counter.count;
      if (remaining < fewestLeft) {
        tightest = i;
        fewestLeft = remaining;
      }
    }
    if (tightest < 0) return { allowed: true, tightest: undefined };
    return {
      allowed: true,
      tightest: bucketState(buckets[tightest]!.spec, counters[tightest]!, fewestLeft),
    };
  }

  private counter(spec: BucketSpec, key: string, now: number): Counter {
    const windowMs = spec.windowMs;
    const windowStart = Math.floor(now / windowMs) * windowMs;
    let byKey = this.counters.get(spec);
    if (!byKey) {
      byKey = new Map();
      this.counters.set(spec, byKey);
    }
    let counter = byKey.get(key);
    if (!counter) {
      if (this.size >= PRUNE_THRESHOLD) this.prune(now);
      counter = { windowStart, count: 0, windowMs };
      byKey.set(key, counter);
      this.size += 1;
    } else if (counter.windowStart !== windowStart) {
      counter.windowStart = windowStart;
      counter.count = 0;
    }
    return counter;
  }

  private prune(now: number): void {
    for (const byKey of this.counters.values()) {
      for (const [key, counter] of byKey) {
        if (counter.windowStart + counter.windowMs <= now) {
          byKey.delete(key);
          this.size -= 1;
        }
      }
    }
  }
}

/** When the counter's window ends, ms on the daemon clock. */
function resetOf(spec: BucketSpec, counter: Counter): number {
  return counter.windowStart + spec.windowMs;
}

function bucketState(spec: BucketSpec, counter: Counter, remaining: number): BucketState {
  return { spec, limit: spec.limit, remaining, resetAt: resetOf(spec, counter) };
}
