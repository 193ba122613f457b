// What a failed step attempt comes to, decided apart from the transition that applies it so that
// each branch has a unit test (test/unit/lost-attempts.test.ts): another attempt, when and with
// which number, or none left. An attempt whose call was lost to a stop (stored as sent, never
// answered) counts like any failed one; only its retry does not wait.
import { delayAfterAttempt, stepBackoff } from '../../shared/backoff.js';

export type StepRetry =
  /** Attempt `attempt` (the failed one's number + 1) is due at `at` (ms, daemon clock). */
  | { readonly kind: 'retry'; readonly attempt: number; readonly at: number }
  /** That was attempt max_attempts: the step has failed. */
  | { readonly kind: 'exhausted' };

export interface StepRetryPolicy {
  max_attempts: number;
  backoff_multiplier: number;
}

/**
 * The verdict on attempt `attempt` of a step, failed (or `lost`: the daemon stopped while its
 * call was in flight) `now`. A lost one's retry is due at once: a stop says nothing about the
 * receiver, and the restart has already waited longer than a backoff would.
 */
export function judgeStepFailure(
  attempt: number,
  policy: StepRetryPolicy,
  lost: boolean,
  now: number,
): StepRetry {
  if (attempt >= policy.max_attempts) return { kind: 'exhausted' };
  const delay = lost ? 0 : delayAfterAttempt(stepBackoff(policy.backoff_multiplier), attempt);
  return { kind: 'retry', attempt: attempt + 1, at: now + delay };
}
