// The backoff rule of user-visible retries (webhook deliveries today, workflow steps next): a
// fixed schedule for the first attempts, then the last delay times a multiplier, capped. A
// retry policy is data (BackoffPolicy) read by one function. Durable timers whose handler
// fails have their own internal retry (daemon/time), which is not a user-facing policy.

export interface BackoffPolicy {
  /** Delays before attempt 2, 3, ... (ms); attempt 1 is immediate. */
  schedule: readonly number[];
  multiplier: number;
  maxDelayMs: number;
}

const MINUTE = 60_000;

/** The spec's delivery schedule: immediate, 1 min, 5 min, 15 min, 1 h, then x multiplier up to 24 h. */
export function deliveryBackoff(multiplier = 2): BackoffPolicy {
  return {
    schedule: [MINUTE, 5 * MINUTE, 15 * MINUTE, 60 * MINUTE],
    multiplier,
    maxDelayMs: 24 * 60 * MINUTE,
  };
}

/** Workflow step retries: 1 s, then x multiplier each attempt, up to an hour. */
export function stepBackoff(multiplier = 2): BackoffPolicy {
  return { schedule: [1000], multiplier, maxDelayMs: 60 * MINUTE };
}

/** Delay (ms) before the next attempt, given how many attempts were made so far (>= 1). */
export function delayAfterAttempt(policy: BackoffPolicy, attemptsMade: number): number {
  const index = attemptsMade - 1;
  if (index < policy.schedule.length) return policy.schedule[Math.max(0, index)]!;
  const last = policy.schedule[policy.schedule.length - 1] ?? 1000;
  const grown = last * policy.multiplier ** (index - policy.schedule.length + 1);
  return Math.min(grown, policy.maxDelayMs);
}
