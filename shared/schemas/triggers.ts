// Trigger configurations of a workflow by type, and the webhook-trigger intake's answer. The
// workflow schema keeps `trigger.config` an open object; these check it per type on every write.
import { z } from 'zod';
import { MAX_TYPE_PATTERNS } from '../event-type-patterns.js';
import { EventTypePattern } from './events.js';
import { TRIGGER_TYPES } from './workflows.js';

export { TRIGGER_TYPES };
export type TriggerType = (typeof TRIGGER_TYPES)[number];

/** A hook path: one URL segment of unreserved characters, e.g. "orders-created". */
export const HOOK_PATH = /^[A-Za-z0-9._~-]+$/;

export const ScheduleTriggerConfig = z
  .strictObject({
    cron: z.string().meta({
      description:
        'Cron expression, 5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first; @hourly, @daily, @weekly... accepted',
      example: '0 8 * * 1-5',
    }),
    timezone: z
      .string()
      .default('UTC')
      .meta({ description: 'IANA time zone the expression is read in', example: 'Europe/Paris' }),
  })
  .meta({ title: 'ScheduleTriggerConfig' });

export const WebhookTriggerConfig = z
  .strictObject({
    path: z.string().max(200).regex(HOOK_PATH, {
      message: 'must be one URL segment such as "orders-created": letters, digits, . _ ~ -',
    }),
    secret: z.string().min(8).max(200).nullable().optional().meta({
      description:
        'Write-only. When set, a request must carry X-Svc-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"> keyed by this secret (the scheme of outbound deliveries). Stored sealed (AES-256-GCM) and never returned, not even by the create: workflow views, lists, workflow.* events and from-template show has_secret: true instead. A PATCH whose trigger leaves secret out keeps it; null removes it; a string replaces it.',
    }),
    has_secret: z.boolean().optional().meta({
      description:
        'Read-only: true when the trigger has a secret (shown instead of it). Ignored on writes, so a trigger read back can be sent again unchanged.',
    }),
  })
  .meta({ title: 'WebhookTriggerConfig' });

export const EventTriggerConfig = z
  .strictObject({
    event_types: z
      .array(EventTypePattern)
      .min(1)
      .max(MAX_TYPE_PATTERNS)
      .meta({ description: 'Event types or prefixes ending in *, e.g. agent.* or agent.created' }),
  })
  .meta({ title: 'EventTriggerConfig' });

export const ManualTriggerConfig = z.strictObject({}).meta({ title: 'ManualTriggerConfig' });

export type ScheduleTriggerConfig = z.infer<typeof ScheduleTriggerConfig>;
export type WebhookTriggerConfig = z.infer<typeof WebhookTriggerConfig>;
export type EventTriggerConfig = z.infer<typeof EventTriggerConfig>;

export const TRIGGER_CONFIGS = {
  manual: ManualTriggerConfig,
  webhook: WebhookTriggerConfig,
  schedule: ScheduleTriggerConfig,
  event: EventTriggerConfig,
} as const;

export const HookParams = z.object({
  workspace_id: z.string().meta({ description: 'Workspace id (ws_...)' }),
  path: z.string().meta({ description: 'The trigger path, as in trigger.config.path' }),
});

/** What a hook takes: any JSON value (none reads as {}), at most 1 MiB. */
export const HookPayload = z.unknown().meta({
  title: 'HookPayload',
  description:
    'Any JSON value, at most 1 MiB: it becomes trigger.payload and the run input (no body reads as {}).',
});

export const HookAccepted = z
  .object({ execution_id: z.string().meta({ description: 'The run started (wex_...)' }) })
  .meta({ title: 'HookAccepted' });
