// Delivery and attempt rows as the API, the control channel and the dashboard show them.
import type { DeliveryAttemptView, DeliveryView } from '../../../shared/schemas/webhooks.js';
import { toIso } from '../../time/clock.js';
import type { AttemptRow, DeliveryRow } from './delivery.repository.js';

/**
 * `webhookStatus`: the status of the delivery's webhook now. A pending delivery of a webhook that
 * is not active is held: its timer finds the webhook inactive and attempts nothing, so the due
 * time stored for it (often past) is not shown as a next attempt.
 */
export function toDeliveryView(row: DeliveryRow, webhookStatus: string): DeliveryView {
  const held = row.status === 'pending' && webhookStatus !== 'active';
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event_id: row.event_id,
    event_type: row.event_type as DeliveryView['event_type'],
    status: row.status,
    held,
    http_status: row.http_status,
    attempts: row.attempts,
    response_time_ms: row.response_time_ms,
    error: row.error,
    created_at: toIso(row.created_at),
    delivered_at: toIso(row.delivered_at),
    last_attempt_at: toIso(row.last_attempt_at),
    next_attempt_at: held ? null : toIso(row.next_attempt_at),
  };
}

/** An attempt in GET .../deliveries/{id} (and the dashboard's log): the signature sent and the answer heard included. */
export function toAttemptView(attempt: AttemptRow): DeliveryAttemptView {
  return {
    attempt: attempt.attempt,
    attempted_at: toIso(attempt.attempted_at),
    outcome: attempt.outcome,
    http_status: attempt.http_status,
    response_time_ms: attempt.outcome === 'unknown' ? null : attempt.response_time_ms,
    error: attempt.error,
    injected_fault: attempt.injected_fault,
    signature: attempt.signature,
    response_head: attempt.response_head,
  };
}
