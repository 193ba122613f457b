// Fixed-window request counters in the store, for several daemons serving one sandbox (team
// mode, PostgreSQL): a client's requests are counted in the same row whichever daemon serves
// them, so a limit does not multiply with the daemons. The same rules as FixedWindowLimiter
// (limiter.ts): every bucket at once, none counted if any is full, the tightest reported. One
// transaction per request: each bucket's row is added to (an upsert that locks it, so two
// daemons count in turn), and if one went past its limit the transaction rolls back. All of a
// request's buckets are added to by one statement (a row each in its VALUES, in the buckets'
// order, as before: two daemons lock them in the same order), so a request costs the store two
// round trips (the upsert, the COMMIT) instead of one per bucket and the COMMIT.
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
  /** The upsert of n buckets at once, by n. */
  private readonly adds = new Map<number, Statement<unknown[], Added>>();
  private readonly purge: Statement<[number]>;
  private readonly count: (buckets: readonly BucketHit[], now: number) => LimitVerdict;
  private sincePurge = 0;

  constructor(
    db: Db,
    private readonly clock: Clock,
  ) {
    this.purge = db.prepare<[number]>('DELETE FROM rate_counters WHERE reset_at <= ?');
    const upsert = (n: number) => {
      let statement = this.adds.get(n);
      if (!statement) {
        statement = db.prepare<unknown[], Added>(
          `INSERT INTO rate_counters (bucket, key, window_start, reset_at, count)
           VALUES ${Array.from({ length: n }, () => '(?, ?, ?, ?, 1)').join(', ')}
           ON CONFLICT (bucket, key, window_start) DO UPDATE SET count = rate_counters.count + 1
           RETURNING bucket, key, count`,
        );
        this.adds.set(n, statement);
      }
      return statement;
    };
    this.count = db.transaction((buckets: readonly BucketHit[], now: number) => {
      const rows = buckets.map(({ spec, key }) => {
        const windowStart = Math.floor(now / spec.windowMs) * spec.windowMs;
        return { spec, key, windowStart, resetAt: windowStart + spec.windowMs };
      });
      const counts = new Map<string, number>();
      const byRow = (bucket: string, key: string) => `${bucket}\0${key}`;
      const distinct = new Set(rows.map((row) => byRow(row.spec.name, row.key))).size;
      // One row twice would be updated twice by one upsert, which PostgreSQL refuses: one each.
      const groups = distinct === rows.length ? [rows] : rows.map((row) => [row]);
      for (const group of groups) {
        const values = group.flatMap((row) => [
          row.spec.name,
          row.key,
          row.windowStart,
          row.resetAt,
        ]);
        for (const added of upsert(group.length).all(...values)) {
          counts.set(byRow(added.bucket, added.key), added.count);
        }
      }
      let tightest: BucketState | undefined;
      for (const { spec, key, resetAt } of rows) {
        const count = counts.get(byRow(spec.name, key)) ?? 1;
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

interface Added {
  bucket: string;
  key: string;
  count: number;
}

function state(spec: BucketSpec, remaining: number, resetAt: number): BucketState {
  return { spec, limit: spec.limit, remaining, resetAt };
}
