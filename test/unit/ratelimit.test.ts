// FixedWindowLimiter on a fake clock, and the rate plans as data (decisions 6 and 10).
import test from 'ava';
import { StillClock as FakeClock } from '../helpers/still-clock.js';
import { FixedWindowLimiter, type BucketSpec } from '../../daemon/ratelimit/limiter.js';
import { OPERATIONS, RatePlans } from '../../daemon/ratelimit/plans.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** A minute boundary, so window starts are easy to reason about. */
const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);

function bucket(name: string, limit: number, windowMs: number): BucketSpec {
  return { name, limit, windowMs, describe: `${limit} per ${windowMs} ms` };
}

/** A limiter on a still clock at `ms`. */
function limiterAt(ms: number) {
  const clock = new FakeClock(ms);
  return { clock, limiter: new FixedWindowLimiter(clock) };
}

test('counts hits and reports the remaining count of one bucket', (t) => {
  const { limiter } = limiterAt(T0);
  const spec = bucket('b', 3, MINUTE);
  const remaining: number[] = [];
  for (let i = 0; i < 3; i++) {
    const verdict = limiter.hit([{ spec, key: 'k' }]);
    t.true(verdict.allowed);
    remaining.push(verdict.tightest!.remaining);
    t.is(verdict.tightest!.limit, 3);
    t.is(verdict.tightest!.resetAt, T0 + MINUTE);
  }
  t.deepEqual(remaining, [2, 1, 0]);
  const refused = limiter.hit([{ spec, key: 'k' }]);
  t.false(refused.allowed);
  if (!refused.allowed) {
    t.is(refused.exceeded.spec.name, 'b');
    t.is(refused.exceeded.remaining, 0);
    t.is(refused.exceeded.resetAt, T0 + MINUTE);
  }
});

test('no buckets: allowed with no tightest bucket', (t) => {
  const limiter = new FixedWindowLimiter(new FakeClock(T0));
  const verdict = limiter.hit([]);
  t.true(verdict.allowed);
  t.is(verdict.tightest, undefined);
});

test('the tightest bucket is the one with the fewest requests left', (t) => {
  const clock = new FakeClock(T0 + 500);
  const limiter = new FixedWindowLimiter(clock);
  const burst = bucket('burst', 5, SECOND);
  const minute = bucket('minute', 20, MINUTE);
  const day = bucket('day', 2000, DAY);
  const hits = [
    { spec: day, key: 'cred' },
    { spec: minute, key: 'cred' },
    { spec: burst, key: 'cred' },
  ];
  const first = limiter.hit(hits);
  t.true(first.allowed);
  t.is(first.tightest!.spec.name, 'burst');
  t.is(first.tightest!.remaining, 4);
  t.is(first.tightest!.resetAt, T0 + SECOND);

  // Use up 4 more per second over several seconds: the minute bucket becomes the tightest.
  for (let second = 1; second <= 4; second++) {
    clock.ms = T0 + second * SECOND + 10;
    for (let i = 0; i < 4; i++) t.true(limiter.hit(hits).allowed);
  }
  // minute has 20 - 1 - 16 = 3 left; a fresh second's burst bucket has 5.
  clock.ms = T0 + 5 * SECOND + 10;
  const verdict = limiter.hit(hits);
  t.true(verdict.allowed);
  t.is(verdict.tightest!.spec.name, 'minute');
  t.is(verdict.tightest!.remaining, 2);
  t.is(verdict.tightest!.resetAt, T0 + MINUTE);
});

test('when several buckets are full, the one that resets last is reported', (t) => {
  const { limiter } = limiterAt(T0);
  const burst = bucket('burst', 2, SECOND);
  const minute = bucket('minute', 2, MINUTE);
  const hits = [
    { spec: burst, key: 'c' },
    { spec: minute, key: 'c' },
  ];
  t.true(limiter.hit(hits).allowed);
  t.true(limiter.hit(hits).allowed);
  const refused = limiter.hit(hits);
  t.false(refused.allowed);
  if (!refused.allowed) {
    t.is(refused.exceeded.spec.name, 'minute');
    t.is(refused.exceeded.resetAt, T0 + MINUTE);
    t.is(refused.tightest.spec.name, 'minute');
  }
  // Order of the buckets does not matter.
  const reversed = limiter.hit([...hits].reverse());
  t.false(reversed.allowed);
  if (!reversed.allowed) t.is(reversed.exceeded.spec.name, 'minute');
});

test('a refused request is counted in none of its buckets', (t) => {
  const { limiter } = limiterAt(T0);
  const small = bucket('small', 1, MINUTE);
  const large = bucket('large', 10, MINUTE);
  t.true(limiter.hit([{ spec: small, key: 'k' }]).allowed);
  for (let i = 0; i < 5; i++) {
    t.false(
      limiter.hit([
        { spec: large, key: 'k' },
        { spec: small, key: 'k' },
      ]).allowed,
    );
  }
  // The large bucket saw none of the five refused requests.
  const alone = limiter.hit([{ spec: large, key: 'k' }]);
  t.true(alone.allowed);
  t.is(alone.tightest!.remaining, 9);
});

test('a new window starts with a fresh count', (t) => {
  const clock = new FakeClock(T0 + 30 * SECOND);
  const limiter = new FixedWindowLimiter(clock);
  const spec = bucket('minute', 2, MINUTE);
  t.true(limiter.hit([{ spec, key: 'k' }]).allowed);
  t.true(limiter.hit([{ spec, key: 'k' }]).allowed);
  t.false(limiter.hit([{ spec, key: 'k' }]).allowed);

  // Still inside the same aligned window one ms before its end.
  clock.ms = T0 + MINUTE - 1;
  t.false(limiter.hit([{ spec, key: 'k' }]).allowed);

  // Windows are aligned on the clock: the next one starts exactly at the minute.
  clock.ms = T0 + MINUTE;
  const fresh = limiter.hit([{ spec, key: 'k' }]);
  t.true(fresh.allowed);
  t.is(fresh.tightest!.remaining, 1);
  t.is(fresh.tightest!.resetAt, T0 + 2 * MINUTE);

  // Skipping several windows also starts fresh.
  clock.ms = T0 + 10 * MINUTE + 5;
  const later = limiter.hit([{ spec, key: 'k' }]);
  t.true(later.allowed);
  t.is(later.tightest!.remaining, 1);
  t.is(later.tightest!.resetAt, T0 + 11 * MINUTE);
});

test('counters are per key and per bucket name', (t) => {
  const { limiter } = limiterAt(T0);
  const spec = bucket('minute', 3, MINUTE);
  const other = bucket('other', 3, MINUTE);
  for (let i = 0; i < 500; i++) {
    const key = `cred_${i}`;
    t.true(limiter.hit([{ spec, key }]).allowed);
    t.true(limiter.hit([{ spec, key }]).allowed);
  }
  for (let i = 0; i < 500; i++) {
    const verdict = limiter.hit([{ spec, key: `cred_${i}` }]);
    t.true(verdict.allowed);
    t.is(verdict.tightest!.remaining, 0);
    t.false(limiter.hit([{ spec, key: `cred_${i}` }]).allowed);
  }
  // Another bucket name on the same key has its own counter.
  const separate = limiter.hit([{ spec: other, key: 'cred_0' }]);
  t.true(separate.allowed);
  t.is(separate.tightest!.remaining, 2);
  // An unseen key is untouched by the others.
  t.is(limiter.hit([{ spec, key: 'fresh' }]).tightest?.remaining, 2);
});

test('many keys past the prune threshold keep counting correctly', (t) => {
  const { clock, limiter } = limiterAt(T0);
  const spec = bucket('second', 1, SECOND);
  const live = bucket('day', 2, DAY);
  t.true(limiter.hit([{ spec: live, key: 'keep' }]).allowed);
  for (let i = 0; i < 50_000; i++) limiter.hit([{ spec, key: `k${i}` }]);
  clock.ms = T0 + 2 * SECOND;
  for (let i = 50_000; i < 50_010; i++) t.true(limiter.hit([{ spec, key: `k${i}` }]).allowed);
  // A counter whose window has not ended survives pruning.
  const kept = limiter.hit([{ spec: live, key: 'keep' }]);
  t.true(kept.allowed);
  t.is(kept.tightest!.remaining, 0);
  t.false(limiter.hit([{ spec: live, key: 'keep' }]).allowed);
});

test('tier figures: free, starter, business per second, minute and day', (t) => {
  const plans = new RatePlans(100);
  const figures = (tier: 'free' | 'starter' | 'business' | 'enterprise') =>
    Object.fromEntries(
      plans.forCredential(tier, 'key_1').map((hit) => {
        t.is(hit.key, 'key_1');
        return [hit.spec.windowMs, hit.spec.limit];
      }),
    );
  t.deepEqual(figures('free'), { [SECOND]: 5, [MINUTE]: 20, [DAY]: 2000 });
  t.deepEqual(figures('starter'), { [SECOND]: 15, [MINUTE]: 60, [DAY]: 10_000 });
  t.deepEqual(figures('business'), { [SECOND]: 50, [MINUTE]: 300, [DAY]: 100_000 });
  t.deepEqual(figures('enterprise'), { [SECOND]: 5000, [MINUTE]: 30_000, [DAY]: 10_000_000 });
  for (const hit of plans.forCredential('free', 'key_1')) {
    t.true(hit.spec.describe.startsWith(String(hit.spec.limit)));
  }
});

test('enterprise multiplier applies to tier and operation limits', (t) => {
  const plans = new RatePlans(3);
  const enterprise = Object.fromEntries(
    plans.forCredential('enterprise', 'c').map((hit) => [hit.spec.windowMs, hit.spec.limit]),
  );
  t.deepEqual(enterprise, { [SECOND]: 150, [MINUTE]: 900, [DAY]: 300_000 });

  const me = plans.forOperation('auth.me', 'enterprise', 'ws_1');
  t.is(me.spec.limit, 180);
  t.is(me.spec.windowMs, MINUTE);
  t.is(me.key, 'ws_1');
  t.is(plans.forOperation('agents.create', 'enterprise', 'ws_1').spec.limit, 30);
  t.is(plans.forOperation('agents.create', 'enterprise', 'ws_1').spec.windowMs, HOUR);
});

test('operation limits as written for free, starter and business', (t) => {
  const plans = new RatePlans(100);
  for (const tier of ['free', 'starter', 'business'] as const) {
    for (const [operation, base] of Object.entries(OPERATIONS)) {
      const hit = plans.forOperation(operation as keyof typeof OPERATIONS, tier, 'ws_x');
      t.is(hit.spec.limit, base.limit, `${operation} on ${tier}`);
      t.is(hit.spec.windowMs, base.windowMs);
      t.is(hit.spec.name, `op.${operation}`);
    }
  }
  // The spec's per-operation table.
  t.is(OPERATIONS['auth.me'].limit, 60);
  t.is(OPERATIONS['agents.create'].limit, 10);
  t.is(OPERATIONS['agents.create'].windowMs, HOUR);
  t.is(OPERATIONS['agents.execute'].limit, 100);
  t.is(OPERATIONS['workflows.create'].limit, 20);
  t.is(OPERATIONS.resources.limit, 60);
  t.is(OPERATIONS.resources.windowMs, MINUTE);
  t.is(
    plans.forOperation('auth.me', 'free', 'ws_1').spec.describe,
    '60 auth.me requests per minute',
  );
});

test('a free credential through the limiter: 6th request in a second is refused', (t) => {
  const { limiter } = limiterAt(T0);
  const plans = new RatePlans(100);
  const hits = () => [
    ...plans.forCredential('free', 'key_a'),
    plans.forOperation('auth.me', 'free', 'ws_a'),
  ];
  for (let i = 0; i < 5; i++) t.true(limiter.hit(hits()).allowed);
  const refused = limiter.hit(hits());
  t.false(refused.allowed);
  if (!refused.allowed) {
    t.is(refused.exceeded.spec.name, 'free.burst');
    t.is(refused.exceeded.limit, 5);
  }
  // Another credential of the same workspace has its own request-rate counters.
  t.true(
    limiter.hit([
      ...plans.forCredential('free', 'key_b'),
      plans.forOperation('auth.me', 'free', 'ws_a'),
    ]).allowed,
  );
});
