// How the CLI words a webhook delivery and its attempts (svc webhooks delivery, retry --wait,
// replay --wait): each attempt with its time, answer, duration, injected fault, the signature
// it sent and the start of the answer, so nobody needs curl to see why a receiver refused.
import { formatDuration } from '../shared/duration.js';
import type {
  DeliveryAttemptView,
  DeliveryDetailView,
  DeliveryView,
} from '../shared/schemas/webhooks.js';
import { chalk } from './output.js';

/** The answer's head on one line, cut: a receiver's HTML error page stays readable. */
const ANSWER_WIDTH = 200;

export function deliveryStatusColour(status: string): string {
  if (status === 'delivered' || status === 'active') return chalk.green(status);
  if (status === 'pending' || status === 'paused') return chalk.yellow(status);
  return chalk.red(status);
}

/** Whether an attempt got a 2xx answer from the receiver. */
export function attemptSucceeded(attempt: Pick<DeliveryAttemptView, 'http_status'>): boolean {
  return attempt.http_status !== null && attempt.http_status >= 200 && attempt.http_status < 300;
}

/** "attempt 2  2030-01-01T00:01:00.000Z  HTTP 500 in 12ms  fault flt_1" and its detail lines. */
export function describeAttempt(attempt: DeliveryAttemptView): string {
  const answer = attempt.http_status === null ? 'no answer' : `HTTP ${attempt.http_status}`;
  // An attempt the daemon recorded before sending and never saw end (it stopped meanwhile).
  const result =
    attempt.response_time_ms === null
      ? chalk.yellow('outcome unknown (the daemon stopped while it was in flight)')
      : `${attemptSucceeded(attempt) ? chalk.green(answer) : chalk.red(answer)} in ${formatDuration(attempt.response_time_ms)}`;
  const lines = [
    [
      chalk.bold(`attempt ${attempt.attempt}`),
      chalk.dim(attempt.attempted_at),
      result,
      attempt.injected_fault ? chalk.yellow(`injected by fault ${attempt.injected_fault}`) : '',
    ]
      .filter(Boolean)
      .join('  '),
  ];
  if (attempt.error) lines.push(`  error:     ${attempt.error}`);
  if (attempt.signature) lines.push(`  signature: ${attempt.signature}`);
  if (attempt.response_head !== null) {
    const head = attempt.response_head.replace(/\s+/g, ' ').trim();
    lines.push(
      `  answer:    ${head.length > ANSWER_WIDTH ? `${head.slice(0, ANSWER_WIDTH - 1)}…` : head || chalk.dim('(empty)')}`,
    );
  }
  return lines.join('\n');
}

/** "held" for a pending delivery its stopped webhook holds (the API's held), else the status. */
export function deliveryStatusText(delivery: Pick<DeliveryView, 'status' | 'held'>): string {
  return delivery.held ? chalk.yellow('held') : deliveryStatusColour(delivery.status);
}

/** How to send held deliveries: activate their webhook (all of them), or retry one now. */
export function releaseHint(webhookId: string, deliveryId: string): string {
  return `svc webhooks update ${webhookId} --status active sends every held delivery again; svc webhooks retry ${deliveryId} sends this one now`;
}

/** Where a delivery stands: "delivered at ...", "pending, next attempt at ...", "held", "failed". */
export function deliveryState(delivery: DeliveryView): string {
  if (delivery.held) {
    return `${chalk.yellow('held')}: pending, but its webhook is paused or failed, so nothing is attempted (${releaseHint(delivery.webhook_id, delivery.id)})`;
  }
  const status = deliveryStatusColour(delivery.status);
  if (delivery.status === 'delivered' && delivery.delivered_at)
    return `${status} at ${delivery.delivered_at}`;
  if (delivery.status === 'pending' && delivery.next_attempt_at)
    return `${status}, next attempt at ${delivery.next_attempt_at} (daemon clock; svc clock advance moves it)`;
  return status;
}

export function describeDelivery(delivery: DeliveryDetailView): string {
  const lines = [
    `${chalk.cyan(delivery.id)} ${deliveryState(delivery)}`,
    `event:    ${delivery.event_type} ${chalk.dim(delivery.event_id)}`,
    `webhook:  ${delivery.webhook_id}`,
    `created:  ${delivery.created_at}`,
    `attempts: ${delivery.attempts}`,
  ];
  if (delivery.attempts_history.length === 0) lines.push('', chalk.dim('(no attempt yet)'));
  for (const attempt of delivery.attempts_history) lines.push('', describeAttempt(attempt));
  return lines.join('\n');
}
