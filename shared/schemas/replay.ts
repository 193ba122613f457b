// svc webhooks replay: control-channel input and answer (a CLI operation, like Stripe's event
// resend; not part of the REST API).
import { z } from 'zod';
import { DELIVERY_STATUSES } from './enums.js';

/** svc webhooks replay --limit: the default and the most one replay sends. */
export const REPLAY_LIMIT_DEFAULT = 1000;
export const REPLAY_LIMIT_MAX = 100_000;

/** svc webhooks replay: which stored events of a webhook to send again. */
export const WebhookReplayInput = z.strictObject({
  workspace_id: z.string().optional(),
  webhook_id: z.string().startsWith('hook_'),
  /** ISO 8601; deliveries created at or after. */
  from: z.iso.datetime({ offset: true }).optional(),
  /** ISO 8601; deliveries created at or before (default: now). */
  to: z.iso.datetime({ offset: true }).optional(),
  /** Instead of from: this long before now. */
  since_ms: z.number().int().min(1).optional(),
  status: z.enum(['failed', 'delivered', 'all']).default('failed'),
  event_type: z.string().min(1).max(100).optional(),
  dry_run: z.boolean().default(false),
  /** At most this many events are sent again (the oldest first); the rest wait for another replay. */
  limit: z.number().int().min(1).max(REPLAY_LIMIT_MAX).default(REPLAY_LIMIT_DEFAULT),
  /** Answer the list of events and their new deliveries too (at most `limit` of them). */
  include_deliveries: z.boolean().default(false),
});

/** One event a replay sends again, with the delivery that sends it. */
export const ReplayedDelivery = z.object({
  event_id: z.string(),
  event_type: z.string(),
  /** The event's latest delivery before the replay, and its status. */
  original_delivery_id: z.string(),
  original_status: z.enum(DELIVERY_STATUSES),
  /** The new delivery (null in a dry run). */
  delivery_id: z.string().nullable(),
});

/**
 * svc webhooks replay's answer: a summary of the events sent again; the list of them only when
 * asked for (include_deliveries), so a large replay answers a few hundred bytes.
 */
export const WebhookReplayResult = z.object({
  webhook_id: z.string(),
  dry_run: z.boolean(),
  /** Events sent again (or that would be, in a dry run). */
  count: z.number().int(),
  /** Events the filter took in the window; more than count when the limit cut the replay. */
  matched: z.number().int(),
  limit: z.number().int(),
  truncated: z.boolean(),
  /** The first and last event sent again (oldest first), null when none. */
  first_event_id: z.string().nullable(),
  last_event_id: z.string().nullable(),
  deliveries: z.array(ReplayedDelivery).optional(),
});

export type WebhookReplayResult = z.infer<typeof WebhookReplayResult>;
