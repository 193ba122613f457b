// The store's rate counters (team mode, PostgreSQL) follow FixedWindowLimiter's rules: every
// bucket counted at once, none if any is full, the tightest reported; and a request's buckets
// are added to by one statement, so a check is two round trips (the upsert, the COMMIT).
import test from 'ava';
import type { Db } from '../../daemon/store/db.js';
import { OffsetClock } from '../../daemon/time/clock.js';
import { FixedWindowLimiter, type BucketSpec } from '../../daemon/ratelimit/limiter.js';
import { SharedWindowLimiter } from '../../daemon/ratelimit/shared-limiter.js';
import { countWorkerMessages, openTestStore } from '../helpers/postgres.js';

const MINUTE = 60_000;
const spec = (name: string, limit: number): BucketSpec => ({
  name,
  limit,
  windowMs: MINUTE,
  describe: `${limit} requests per minute`,
});

async function store(t: import('ava').ExecutionContext): Promise<Db> {
  const db = await openTestStore('postgres');
  t.teardown(() => db.close());
  return db;
}

test('postgres: the shared counters give the verdicts of the in-memory limiter, request by request', async (t) => {
  const db = await store(t);
  const clock = new OffsetClock();
  clock.freeze();
  const shared = new SharedWindowLimiter(db, clock);
  const memory = new FixedWindowLimiter(clock);
  const tight = spec('op.tight', 3);
  const loose = spec('tier.minute', 5);
  const requests = [
    [{ spec: loose, key: 'ws_a' }],
    [
      { spec: loose, key: 'ws_a' },
      { spec: tight, key: 'ws_a/agt_1' },
    ],
    [
      { spec: loose, key: 'ws_a' },
      { spec: tight, key: 'ws_a/agt_1' },
    ],
    [
      { spec: loose, key: 'ws_a' },
      { spec: tight, key: 'ws_a/agt_2' },
    ],
    [
      { spec: loose, key: 'ws_a' },
      { spec: tight, key: 'ws_a/agt_2' },
    ],
    [{ spec: loose, key: 'ws_a' }],
    [{ spec: loose, key: 'ws_b' }],
  ];
  const verdicts = requests.map((buckets) => [shared.hit(buckets), memory.hit(buckets)]);
  for (const [index, [fromStore, fromMemory]] of verdicts.entries()) {
    t.deepEqual(fromStore, fromMemory, `request ${index + 1}`);
  }
  t.deepEqual(
    verdicts.map(([verdict]) => verdict!.allowed),
    [true, true, true, true, true, false, true],
  );
  // The same row twice in one request (one upsert may not update a row twice): counted twice,
  // row by row, as before the buckets were added to together; here that passes the limit.
  t.like(
    shared.hit([
      { spec: tight, key: 'ws_a/agt_1' },
      { spec: tight, key: 'ws_a/agt_1' },
    ]),
    { allowed: false, exceeded: { remaining: 0 } },
  );
  // A refused request counted in none of its buckets.
  const counts = db
    .prepare<[], { bucket: string; key: string; count: number }>(
      'SELECT bucket, key, count FROM rate_counters ORDER BY bucket, key',
    )
    .all();
  t.deepEqual(counts, [
    { bucket: 'op.tight', key: 'ws_a/agt_1', count: 2 },
    { bucket: 'op.tight', key: 'ws_a/agt_2', count: 2 },
    { bucket: 'tier.minute', key: 'ws_a', count: 5 },
    { bucket: 'tier.minute', key: 'ws_b', count: 1 },
  ]);
});

test('postgres: a request of four buckets is two messages to the store worker', async (t) => {
  const db = await store(t);
  const clock = new OffsetClock();
  const shared = new SharedWindowLimiter(db, clock);
  const buckets = ['a', 'b', 'c', 'd'].map((name) => ({ spec: spec(name, 10), key: 'k' }));
  shared.hit(buckets);
  const messages = countWorkerMessages(db);
  const verdict = shared.hit(buckets);
  t.true(verdict.allowed);
  t.is(verdict.tightest?.remaining, 8);
  t.is(messages.count(), 2);
});
