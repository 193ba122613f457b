// svc webhooks replay: control-channel input and answer (a CLI operation, like Stripe's event
// resend; not part of the REST API).
import { z } from 'zod';
import { DELIVERY_STATUSES } from './enums.js';

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
});

/** svc webhooks replay's answer: the events chosen, each with the delivery that sends it again. */
export const WebhookReplayResult = z.object({
  webhook_id: z.string(),
  dry_run: z.boolean(),
  count: z.number().int(),
  deliveries: z.array(
    z.object({
      event_id: z.string(),
      event_type: z.string(),
      /** The event's latest delivery before the replay, and its status. */
      original_delivery_id: z.string(),
      original_status: z.enum(DELIVERY_STATUSES),
      /** The new delivery (null in a dry run). */
      delivery_id: z.string().nullable(),
    }),
  ),
});

export type WebhookReplayResult = z.infer<typeof WebhookReplayResult>;
