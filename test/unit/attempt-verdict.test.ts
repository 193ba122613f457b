// What a delivery attempt comes to (daemon/webhooks/deliveries/attempt-verdict.ts), every branch:
// a 2xx delivers; a failure with attempts left is retried on the spec's schedule (grown by the
// webhook's multiplier past the fifth attempt) when the delivery is pending; the schedule's last
// failure exhausts the delivery and its webhook; a resend (POST .../retry) at the limit fails
// the delivery alone, and one of a finished delivery with attempts left keeps its status.
import test from 'ava';
import {
  judgeAttempt,
  statusAfter,
  type AttemptVerdict,
} from '../../daemon/webhooks/deliveries/attempt-verdict.js';
import type { DeliveryStatus } from '../../daemon/webhooks/deliveries/delivery.repository.js';

const M = 60_000;
const H = 60 * M;
const NOW = 1_900_000_000_000;
const OK = { ok: true };
const REFUSED = { ok: false };
/** The defaults: 5 attempts, x2 past the fifth. */
const SETTINGS = { max_attempts: 5, backoff_multiplier: 2 };

function stored(attempts: number, status: DeliveryStatus = 'pending') {
  return { attempts, status };
}

test('a 2xx delivers, whatever the attempt, the delivery and who made it', (t) => {
  t.deepEqual(judgeAttempt(OK, stored(0), SETTINGS, true, NOW), { kind: 'delivered' });
  t.deepEqual(judgeAttempt(OK, stored(4), SETTINGS, true, NOW), { kind: 'delivered' }, 'the last');
  t.deepEqual(judgeAttempt(OK, stored(7, 'failed'), SETTINGS, false, NOW), { kind: 'delivered' });
  t.deepEqual(judgeAttempt(OK, stored(1, 'delivered'), SETTINGS, false, NOW), {
    kind: 'delivered',
  });
});

test('a failed scheduled attempt with attempts left is retried 1 min, 5 min, 15 min, 1 h later', (t) => {
  const retries = [0, 1, 2, 3].map((made) =>
    judgeAttempt(REFUSED, stored(made), SETTINGS, true, NOW),
  );
  t.deepEqual(retries, [
    { kind: 'retry_at', at: NOW + M },
    { kind: 'retry_at', at: NOW + 5 * M },
    { kind: 'retry_at', at: NOW + 15 * M },
    { kind: 'retry_at', at: NOW + H },
  ]);
});

test('past the fifth attempt the delay grows by the webhook multiplier, up to 24 h', (t) => {
  // [attempts made before, multiplier, delay]; the x2 after x3 checks that the policy kept for
  // the last multiplier asked for is not reused for another.
  const cases: [number, number, number][] = [
    [4, 2, 2 * H],
    [5, 3, 9 * H],
    [5, 2, 4 * H],
    [15, 2, 24 * H],
  ];
  for (const [made, multiplier, delay] of cases) {
    const settings = { max_attempts: 20, backoff_multiplier: multiplier };
    t.deepEqual(
      judgeAttempt(REFUSED, stored(made), settings, true, NOW),
      { kind: 'retry_at', at: NOW + delay },
      `after attempt ${made + 1}, x${multiplier}`,
    );
  }
});

test('a resend of a pending delivery that fails with attempts left keeps its schedule going', (t) => {
  t.deepEqual(judgeAttempt(REFUSED, stored(1), SETTINGS, false, NOW), {
    kind: 'retry_at',
    at: NOW + 5 * M,
  });
});

test('the schedule running out exhausts the delivery and its webhook', (t) => {
  t.deepEqual(judgeAttempt(REFUSED, stored(4), SETTINGS, true, NOW), { kind: 'exhausted' });
  const once = { max_attempts: 1, backoff_multiplier: 2 };
  t.deepEqual(judgeAttempt(REFUSED, stored(0), once, true, NOW), { kind: 'exhausted' });
  // max_attempts lowered below the attempts already made.
  t.deepEqual(judgeAttempt(REFUSED, stored(6), SETTINGS, true, NOW), { kind: 'exhausted' });
});

test('a resend at or past the limit that fails fails the delivery, not the webhook', (t) => {
  t.deepEqual(judgeAttempt(REFUSED, stored(4), SETTINGS, false, NOW), { kind: 'failed' });
  t.deepEqual(judgeAttempt(REFUSED, stored(5, 'failed'), SETTINGS, false, NOW), { kind: 'failed' });
  t.deepEqual(judgeAttempt(REFUSED, stored(5, 'delivered'), SETTINGS, false, NOW), {
    kind: 'failed',
  });
});

test('a resend of a finished delivery that fails with attempts left keeps its status', (t) => {
  t.deepEqual(judgeAttempt(REFUSED, stored(1, 'delivered'), SETTINGS, false, NOW), {
    kind: 'kept',
  });
  // A failed delivery below the limit: its webhook's max_attempts was raised since.
  t.deepEqual(judgeAttempt(REFUSED, stored(2, 'failed'), SETTINGS, false, NOW), { kind: 'kept' });
});

test('each verdict leaves the delivery in its status', (t) => {
  const after = (verdict: AttemptVerdict, before: DeliveryStatus) => statusAfter(verdict, before);
  t.is(after({ kind: 'delivered' }, 'failed'), 'delivered');
  t.is(after({ kind: 'retry_at', at: NOW }, 'pending'), 'pending');
  t.is(after({ kind: 'exhausted' }, 'pending'), 'failed');
  t.is(after({ kind: 'failed' }, 'delivered'), 'failed');
  t.is(after({ kind: 'kept' }, 'delivered'), 'delivered');
  t.is(after({ kind: 'kept' }, 'failed'), 'failed');
});
