// Attempts lost to a stop (issue 38, item 7): a delivery attempt and a webhook step's attempt are
// stored before their call leaves, so one the daemon died in is still on record after the
// restart, outcome unknown. It counts toward max_attempts like a failed one: the next attempt
// gets the next number, and the last one lost exhausts the delivery / fails the step. Only its
// retry does not wait for a backoff. The pure decisions, every branch.
import test from 'ava';
import {
  judgeAttempt,
  judgeLostAttempt,
  nextAttempt,
} from '../../daemon/webhooks/deliveries/attempt-verdict.js';
import { judgeStepFailure } from '../../daemon/engine/step-retry.js';

const NOW = 1_900_000_000_000;
const M = 60_000;

test('a delivery counts every attempt it started: the one after a lost attempt gets the next number', (t) => {
  // attempts is stored as each attempt starts: 2 means attempt 2 was started (and maybe lost).
  t.is(nextAttempt({ attempts: 0 }), 1);
  t.is(nextAttempt({ attempts: 2 }), 3);
});

test('a lost delivery attempt with attempts left is followed by the next one at once', (t) => {
  const settings = { max_attempts: 3 };
  t.is(judgeLostAttempt({ attempts: 1 }, settings), 'attempt_now');
  t.is(judgeLostAttempt({ attempts: 2 }, settings), 'attempt_now');
});

test('a lost last delivery attempt exhausts the delivery as a failed one would', (t) => {
  t.is(judgeLostAttempt({ attempts: 3 }, { max_attempts: 3 }), 'exhausted');
  t.is(judgeLostAttempt({ attempts: 1 }, { max_attempts: 1 }), 'exhausted');
  // max_attempts lowered below the attempts already started.
  t.is(judgeLostAttempt({ attempts: 4 }, { max_attempts: 2 }), 'exhausted');
  // And the attempt that follows a lost one is judged as the number it really is: after a lost
  // attempt 2 of 3, attempt 3 failing is the schedule's last.
  const settings = { max_attempts: 3, backoff_multiplier: 2 };
  const afterLost = { attempts: 2, status: 'pending' as const };
  t.deepEqual(judgeAttempt({ ok: false }, afterLost, settings, true, NOW), { kind: 'exhausted' });
  t.deepEqual(judgeAttempt({ ok: false }, { ...afterLost, attempts: 1 }, settings, true, NOW), {
    kind: 'retry_at',
    at: NOW + 5 * M,
  });
});

test('a failed step attempt with attempts left is retried after the backoff, numbered one up', (t) => {
  const policy = { max_attempts: 3, backoff_multiplier: 2 };
  t.deepEqual(judgeStepFailure(1, policy, false, NOW), {
    kind: 'retry',
    attempt: 2,
    at: NOW + 1000,
  });
  t.deepEqual(judgeStepFailure(2, policy, false, NOW), {
    kind: 'retry',
    attempt: 3,
    at: NOW + 2000,
  });
});

test('a lost step attempt with attempts left is retried at once, numbered one up', (t) => {
  const policy = { max_attempts: 3, backoff_multiplier: 2 };
  t.deepEqual(judgeStepFailure(1, policy, true, NOW), { kind: 'retry', attempt: 2, at: NOW });
  t.deepEqual(judgeStepFailure(2, policy, true, NOW), { kind: 'retry', attempt: 3, at: NOW });
});

test('the last step attempt, failed or lost, fails the step', (t) => {
  const policy = { max_attempts: 2, backoff_multiplier: 2 };
  t.deepEqual(judgeStepFailure(2, policy, false, NOW), { kind: 'exhausted' });
  t.deepEqual(judgeStepFailure(2, policy, true, NOW), { kind: 'exhausted' });
  // The default policy: one attempt, so a call lost to a stop is the step's failure.
  t.deepEqual(judgeStepFailure(1, { max_attempts: 1, backoff_multiplier: 2 }, true, NOW), {
    kind: 'exhausted',
  });
});
