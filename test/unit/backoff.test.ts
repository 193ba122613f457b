// The backoff rule (shared/backoff.ts, decisions §9 and §10): deliveries follow the spec's
// schedule (immediate, 1 min, 5 min, 15 min, 1 h), then grow by the multiplier up to 24 h; a
// policy of 1 s then x multiplier (what workflow step retries need) works the same way.
import test from 'ava';
import { delayAfterAttempt, deliveryBackoff, type BackoffPolicy } from '../../shared/backoff.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;

/** Delays before attempts 2..n+1 (the first attempt is immediate). */
function delays(policy: ReturnType<typeof deliveryBackoff>, n: number): number[] {
  return Array.from({ length: n }, (_, i) => delayAfterAttempt(policy, i + 1));
}

test('deliveries: 1st immediate, then 1 min, 5 min, 15 min, 1 h', (t) => {
  const policy = deliveryBackoff();
  t.deepEqual(delays(policy, 4), [M, 5 * M, 15 * M, H]);
  t.deepEqual([...policy.schedule], [M, 5 * M, 15 * M, H], 'attempt 1 has no delay');
  t.is(policy.multiplier, 2, 'default multiplier');
  t.is(policy.maxDelayMs, 24 * H);
  // The five default attempts span 1 h 21 min from the first.
  t.is(
    delays(policy, 4).reduce((a, b) => a + b, 0),
    H + 21 * M,
  );
});

test('past the fifth attempt the delay grows by the multiplier', (t) => {
  t.deepEqual(delays(deliveryBackoff(), 8).slice(4), [2 * H, 4 * H, 8 * H, 16 * H]);
  t.deepEqual(delays(deliveryBackoff(3), 6).slice(4), [3 * H, 9 * H]);
  t.deepEqual(delays(deliveryBackoff(1.5), 6).slice(4), [1.5 * H, 2.25 * H]);
  t.deepEqual(delays(deliveryBackoff(1), 8).slice(4), [H, H, H, H], 'multiplier 1 keeps 1 h');
  // The schedule itself does not depend on the multiplier.
  t.deepEqual(delays(deliveryBackoff(10), 4), [M, 5 * M, 15 * M, H]);
});

test('delays are capped at 24 h', (t) => {
  const policy = deliveryBackoff();
  t.is(delayAfterAttempt(policy, 8), 16 * H);
  t.is(delayAfterAttempt(policy, 9), 24 * H, '32 h is capped');
  t.is(delayAfterAttempt(policy, 19), 24 * H, 'max_attempts 20');
  t.is(delayAfterAttempt(policy, 100), 24 * H);
  t.is(delayAfterAttempt(deliveryBackoff(10), 5), 10 * H);
  t.is(delayAfterAttempt(deliveryBackoff(10), 6), 24 * H);
  for (let attempt = 1; attempt < 40; attempt++) {
    const delay = delayAfterAttempt(deliveryBackoff(), attempt);
    t.true(Number.isFinite(delay) && delay > 0 && delay <= 24 * H);
    t.true(
      delay >= delayAfterAttempt(deliveryBackoff(), Math.max(1, attempt - 1)),
      'never shrinks',
    );
  }
});

test('a 1 s policy: 1 s, then times the multiplier, capped', (t) => {
  const stepBackoff = (multiplier = 2): BackoffPolicy => ({
    schedule: [S],
    multiplier,
    maxDelayMs: H,
  });
  const policy = stepBackoff();
  t.deepEqual(delays(policy, 5), [S, 2 * S, 4 * S, 8 * S, 16 * S]);
  t.deepEqual(delays(stepBackoff(3), 4), [S, 3 * S, 9 * S, 27 * S]);
  t.is(delayAfterAttempt(policy, 50), policy.maxDelayMs);
  t.true(policy.maxDelayMs <= 24 * H);
});
