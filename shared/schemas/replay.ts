// svc webhooks replay: control-channel input (a CLI operation, like Stripe's event resend; not
// part of the REST API).
import { z } from 'zod';

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
