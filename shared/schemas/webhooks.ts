// Webhook subscriptions and their deliveries.
import { z } from 'zod';
import { ListQuery, Timestamp, workspaceObject } from './common.js';
import { EVENT_TYPES } from './events.js';
import {
  DELIVERY_ATTEMPT_OUTCOMES,
  DELIVERY_STATUSES,
  WEBHOOK_STATUSES,
  WEBHOOK_UPDATE_STATUSES,
} from './enums.js';

export { DELIVERY_STATUSES, WEBHOOK_STATUSES };

export const WEBHOOK_DEFAULTS = {
  maxAttempts: 5,
  backoffMultiplier: 2,
  timeoutSeconds: 10,
} as const;

const RetryPolicy = z.strictObject({
  max_attempts: z.number().int().min(1).max(20).meta({
    description:
      'Attempts in all, default 5 (the spec schedule); more grow by backoff_multiplier up to 24 h',
  }),
  backoff_multiplier: z
    .number()
    .min(1)
    .max(10)
    .meta({ description: 'Growth of the delay past the fifth attempt, default 2' }),
});

const WebhookSettings = z.strictObject({
  retry_policy: RetryPolicy.partial().optional(),
  timeout_seconds: z
    .number()
    .int()
    .min(1)
    .max(60)
    .optional()
    .meta({ description: 'Seconds the receiver has to answer 2xx, default 10' }),
});

// What the service checks with its own codes (invalid_url, invalid_event_type) the document states
// as schema (minLength, enum), so a client or a tester knows it before sending.
const URL_DOC = { minLength: 1 };
const EventTypeName = z
  .string()
  .max(100)
  .meta({ enum: [...EVENT_TYPES] });

export const WebhookCreateBody = z.strictObject({
  url: z
    .string()
    .max(2048)
    .meta({
      ...URL_DOC,
      description: 'HTTPS URL (http:// is accepted in the sandbox environment)',
    }),
  events: z
    .array(EventTypeName)
    .min(1)
    .max(EVENT_TYPES.length)
    .meta({ description: 'Event types to receive' }),
  description: z.string().max(500).optional(),
  settings: WebhookSettings.optional(),
});

export type WebhookCreateInput = z.infer<typeof WebhookCreateBody>;

export const WebhookUpdateBody = z.strictObject({
  url: z.string().max(2048).meta(URL_DOC).optional(),
  events: z.array(EventTypeName).min(1).max(EVENT_TYPES.length).optional(),
  description: z.string().max(500).optional(),
  status: z
    .enum(WEBHOOK_UPDATE_STATUSES)
    .optional()
    .meta({ description: 'active resumes a paused or failed webhook' }),
  settings: WebhookSettings.optional(),
});

export type WebhookUpdateInput = z.infer<typeof WebhookUpdateBody>;

export const Webhook = workspaceObject({
  url: z.string(),
  description: z.string().nullable(),
  events: z.array(z.enum(EVENT_TYPES)),
  status: z.enum(WEBHOOK_STATUSES),
  secret: z
    .string()
    .optional()
    .meta({ description: 'Signing secret (whsec_...); only in the create response' }),
  settings: z.object({
    retry_policy: z.object({ max_attempts: z.number().int(), backoff_multiplier: z.number() }),
    timeout_seconds: z.number().int(),
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
  last_triggered_at: Timestamp.nullable(),
  stats: z.object({
    total_deliveries: z.number().int(),
    success_rate: z.number(),
    last_failure_at: Timestamp.nullable(),
  }),
}).meta({ title: 'Webhook' });

export type WebhookView = z.infer<typeof Webhook>;

export const WebhookListQuery = ListQuery.extend({ status: z.enum(WEBHOOK_STATUSES).optional() });

export const Delivery = z
  .object({
    id: z.string(),
    webhook_id: z.string(),
    event_id: z.string(),
    event_type: z.enum(EVENT_TYPES),
    status: z.enum(DELIVERY_STATUSES).meta({
      description:
        'pending while attempts remain (held ones included, see held), then delivered or failed',
    }),
    held: z.boolean().meta({
      description:
        'True for a pending delivery whose webhook is paused or failed: nothing is attempted (next_attempt_at is null) until the webhook is active again (PATCH /v1/webhooks/{webhook_id} {"status": "active"}, svc webhooks update hook_... --status active), which sends every held delivery at once; POST .../deliveries/{delivery_id}/retry sends one now. status stays pending (the delivery statuses are pending, delivered and failed)',
    }),
    http_status: z.number().int().nullable(),
    attempts: z.number().int(),
    response_time_ms: z.number().int().nullable(),
    error: z.string().nullable(),
    created_at: Timestamp,
    delivered_at: Timestamp.nullable(),
    last_attempt_at: Timestamp.nullable(),
    next_attempt_at: Timestamp.nullable().meta({
      description:
        'When the next automatic attempt is due (daemon clock); null once the delivery is delivered or failed, and while it is held',
    }),
  })
  .meta({ title: 'Delivery' });

export type DeliveryView = z.infer<typeof Delivery>;

/** One delivery attempt as it happens (svc webhooks tail, over the control channel). */
export const DeliveryActivity = z.object({
  delivery: Delivery,
  webhook_id: z.string(),
  url: z.string(),
  workspace_id: z.string(),
});

export type DeliveryActivity = z.infer<typeof DeliveryActivity>;

export const DeliveryAttempt = z.object({
  attempt: z.number().int(),
  attempted_at: Timestamp.meta({
    description: 'When the attempt started (it is stored before its POST leaves)',
  }),
  outcome: z.enum(DELIVERY_ATTEMPT_OUTCOMES).meta({
    description:
      'delivered (2xx) or failed (any other answer, or none); unknown: the POST was sent or about to be and no answer is recorded: in flight now, or the daemon stopped while it was (error says so). It counts toward max_attempts all the same; the receiver may have got it (dedupe on X-Svc-Delivery-Id or X-Svc-Event-Id)',
  }),
  http_status: z.number().int().nullable(),
  response_time_ms: z
    .number()
    .int()
    .nullable()
    .meta({ description: 'Null while the outcome is unknown' }),
  error: z.string().nullable(),
  injected_fault: z.string().nullable().meta({
    description:
      'Sandbox: the fault rule (flt_..., svc faults) that produced this attempt, else null',
  }),
  signature: z.string().nullable().meta({
    description: 'The X-Svc-Signature header this attempt sent (t=...,v1=...)',
  }),
  response_head: z.string().nullable().meta({
    description:
      "The start of the receiver's answer body (its first 512 characters), null when no answer was read",
  }),
});

export type DeliveryAttemptView = z.infer<typeof DeliveryAttempt>;

export const DeliveryDetail = Delivery.extend({
  attempts_history: z.array(DeliveryAttempt),
  event: z.record(z.string(), z.unknown()).meta({ description: 'The event envelope as sent' }),
}).meta({ title: 'DeliveryDetail' });

export type DeliveryDetailView = z.infer<typeof DeliveryDetail>;

export const DeliveryListQuery = ListQuery.extend({ status: z.enum(DELIVERY_STATUSES).optional() });

export const WebhookTestBody = z.strictObject({ event_type: EventTypeName });

export const WebhookTestResult = z
  .object({
    status: z.enum(['delivered', 'failed']),
    http_status: z.number().int().nullable(),
    response_time_ms: z.number().int(),
    delivered_at: Timestamp.nullable(),
    event_id: z.string(),
    error: z.string().nullable(),
  })
  .meta({ title: 'WebhookTestResult' });

export type WebhookTestResultView = z.infer<typeof WebhookTestResult>;

export const WebhookParams = z.strictObject({ webhook_id: z.string() });
export const DeliveryParams = z.strictObject({ webhook_id: z.string(), delivery_id: z.string() });
/** GET /v1/deliveries/{delivery_id}: a delivery found by its id alone (delivery ids are unique). */
export const DeliveryIdParams = z.strictObject({ delivery_id: z.string().max(100) });
