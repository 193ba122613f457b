// Fixed-window request counters in the store, for several daemons serving one sandbox (team
// mode, PostgreSQL): a client's requests are counted in the same row whichever daemon serves
// them, so a limit does not multiply with the daemons. The same rules as FixedWindowLimiter
// (limiter.ts): every bucket at once, none counted if any is full, the tightest reported. One
// transaction per request: each bucket's row is added to (an upsert that locks it, so two
// daemons count in turn), and if one went past its limit the transaction rolls back.
import type { Db, Statement } from '../store/db.js';
import type { Clock } from '../time/clock.js';
import type { BucketHit, BucketSpec, BucketState, LimitVerdict, Limiter } from './limiter.js';

/** Requests between two purges of ended windows. */
const PURGE_EVERY = 1000;

class Full extends Error {
  constructor(readonly state: BucketState) {
    super('rate limit reached');
  }
}

export class SharedWindowLimiter implements Limiter {
  private readonly add: Statement<[string, string, number, number], number>;
  private readonly purge: Statement<[number]>;
  private readonly count: (buckets: readonly BucketHit[], now: number) => LimitVerdict;
  private sincePurge = 0;

  constructor(
    db: Db,
    private readonly clock: Clock,
  ) {
    this.add = db
      .prepare<[string, string, number, number], number>(
        `INSERT INTO rate_counters (bucket, key, window_start, reset_at, count)
         VALUES (?, ?, ?, ?, 1)
         ON CONFLICT (bucket, key, window_start) DO UPDATE SET count = rate_counters.count + 1
         RETURNING count`,
      )
      .pluck();
    this.purge = db.prepare<[number]>('DELETE FROM rate_counters WHERE reset_at <= ?');
    this.count = db.transaction((buckets: readonly BucketHit[], now: number) => {
      let tightest: BucketState | undefined;
      for (const { spec, key } of buckets) {
        const windowStart = Math.floor(now / spec.windowMs) * spec.windowMs;
        const resetAt = windowStart + spec.windowMs;
        const count = this.add.get(spec.name, key, windowStart, resetAt) ?? 1;
        if (count > spec.limit) {
          // Rolled back: none of this request's counts is kept.
          throw new Full(state(spec, 0, resetAt));
        }
        const remaining = spec.limit - count;
        if (!tightest || remaining < tightest.remaining) {
          tightest = state(spec, remaining, resetAt);
        }
      }
      return { allowed: true, tightest } satisfies LimitVerdict;
    });
  }

  hit(buckets: readonly BucketHit[]): LimitVerdict {
    if (buckets.length === 0) return { allowed: true, tightest: undefined };
    const now = this.clock.now();
    if (++this.sincePurge >= PURGE_EVERY) {
      this.sincePurge = 0;
      this.purge.run(now);
    }
    try {
      return this.count(buckets, now);
    } catch (error) {
      if (!(error instanceof Full)) throw error;
      return { allowed: false, exceeded: error.state, tightest: error.state };
    }
  }
}

function state(spec: BucketSpec, remaining: number, resetAt: number): BucketState {
  return { spec, limit: spec.limit, remaining, resetAt };
}
