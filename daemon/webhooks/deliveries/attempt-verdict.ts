// What one delivery attempt comes to, decided apart from any I/O so that every branch has a unit
// test (test/unit/attempt-verdict.test.ts): the delivery service sends, asks judgeAttempt, and
// only applies the verdict it gets.
import { delayAfterAttempt, deliveryBackoff, type BackoffPolicy } from '../../../shared/backoff.js';
import type { WebhookRow } from '../webhook.repository.js';
import type { DeliveryRow, DeliveryStatus } from './delivery.repository.js';

export type AttemptVerdict =
  /** The receiver answered 2xx: the delivery is delivered, whatever it was before. */
  | { readonly kind: 'delivered' }
  /** It failed with attempts left: the delivery stays pending, attempted again at `at` (ms). */
  | { readonly kind: 'retry_at'; readonly at: number }
  /** The schedule's last attempt failed: the delivery fails, and so does its webhook. */
  | { readonly kind: 'exhausted' }
  /** A resend (POST .../retry) at or past max_attempts failed: the delivery fails, its webhook
   * is left as it is (an operator's resend does not stop a webhook). */
  | { readonly kind: 'failed' }
  /** A resend of a delivered or failed delivery failed with attempts left: the delivery keeps
   * its status and is not scheduled again (only pending deliveries have a schedule). */
  | { readonly kind: 'kept' };

/** Whether the receiver took the delivery: the one fact of an attempt's result judged here. */
export interface AttemptAnswer {
  ok: boolean;
}

/** The retry policy a webhook is configured with. */
export type RetrySettings = Pick<WebhookRow, 'max_attempts' | 'backoff_multiplier'>;

// The verdicts without data are shared: deciding an attempt allocates only for a retry.
const DELIVERED: AttemptVerdict = Object.freeze({ kind: 'delivered' });
const EXHAUSTED: AttemptVerdict = Object.freeze({ kind: 'exhausted' });
const FAILED: AttemptVerdict = Object.freeze({ kind: 'failed' });
const KEPT: AttemptVerdict = Object.freeze({ kind: 'kept' });

/**
 * The verdict on an attempt of `delivery` (as stored before the attempt started) that got `answer`, made `now`
 * (daemon clock, ms). `automatic`: made by the delivery's timer (its schedule), not a resend.
 */
export function judgeAttempt(
  answer: AttemptAnswer,
  delivery: Pick<DeliveryRow, 'attempts' | 'status'>,
  settings: RetrySettings,
  automatic: boolean,
  now: number,
): AttemptVerdict {
  if (answer.ok) return DELIVERED;
  const attempts = nextAttempt(delivery);
  if (attempts >= settings.max_attempts) return automatic ? EXHAUSTED : FAILED;
  if (!automatic && delivery.status !== 'pending') return KEPT;
  return {
    kind: 'retry_at',
    at: now + delayAfterAttempt(backoff(settings.backoff_multiplier), attempts),
  };
}

/** The number the next attempt of `delivery` gets: attempts counts each one started, answered or not. */
export function nextAttempt(delivery: Pick<DeliveryRow, 'attempts'>): number {
  return delivery.attempts + 1;
}

/** What an attempt left unknown by a stop says, and what a delivery it exhausted says. */
export const LOST_ATTEMPT =
  'The daemon stopped while this attempt was in flight: its outcome is unknown (the receiver may have got it).';

/**
 * A delivery's timer found its last attempt stored as started but never answered (the daemon
 * stopped while it was in flight). That attempt counts: it was the schedule's last, and the
 * delivery is exhausted as if it had failed; or the next one (nextAttempt) goes now, since a
 * stop says nothing about the receiver.
 */
export function judgeLostAttempt(
  delivery: Pick<DeliveryRow, 'attempts'>,
  settings: Pick<RetrySettings, 'max_attempts'>,
): 'attempt_now' | 'exhausted' {
  return delivery.attempts >= settings.max_attempts ? 'exhausted' : 'attempt_now';
}

/** The delivery's status once the verdict is applied (`stored`: its status before the attempt). */
export function statusAfter(verdict: AttemptVerdict, stored: DeliveryStatus): DeliveryStatus {
  switch (verdict.kind) {
    case 'delivered':
      return 'delivered';
    case 'retry_at':
      return 'pending';
    case 'exhausted':
    case 'failed':
      return 'failed';
    case 'kept':
      return stored;
  }
}

// The policy of the last multiplier asked for: webhooks nearly all keep the default, so a retry
// does not build a policy (and its schedule array) each time.
let lastPolicy = deliveryBackoff();

function backoff(multiplier: number): BackoffPolicy {
  if (lastPolicy.multiplier !== multiplier) lastPolicy = deliveryBackoff(multiplier);
  return lastPolicy;
}
