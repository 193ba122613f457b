// Event types (exactly the spec's list) and the event envelope.
import { z } from 'zod';
import { MAX_TYPE_PATTERN_LENGTH } from '../event-type-patterns.js';
import { ListQuery, Timestamp } from './common.js';

export const EVENT_TYPES = [
  'agent.created',
  'agent.updated',
  'agent.deleted',
  'agent.execution.started',
  'agent.execution.completed',
  'agent.execution.failed',
  'agent.execution.awaiting_approval',
  'workflow.created',
  'workflow.updated',
  'workflow.deleted',
  'workflow.execution.started',
  'workflow.execution.completed',
  'workflow.execution.failed',
  'workflow.execution.step_completed',
  'integration.connected',
  'integration.disconnected',
  'integration.error',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

export const Event = z
  .object({
    id: z.string().meta({ description: 'prefix evt_; the deduplication key' }),
    type: z.enum(EVENT_TYPES),
    created_at: Timestamp,
    workspace_id: z.string(),
    data: z.record(z.string(), z.unknown()),
  })
  .meta({ title: 'Event' });

export type EventEnvelope = z.infer<typeof Event>;

/** One word of a type filter: an event type, or a prefix ending in * (agent.*). */
const TYPE_WORD = `(${EVENT_TYPES.map((type) => type.replace(/\./g, '\\.')).join('|')}|[^*,]*\\*)`;

export const EventListQuery = ListQuery.extend({
  type: z
    .string()
    .max(200)
    .optional()
    .meta({
      description: 'An event type, or a prefix ending in * (agent.*); comma-separated for several',
      // What parseTypeFilter accepts, as a pattern: words trimmed, empty ones skipped.
      pattern: `^[ \\t]*(${TYPE_WORD}[ \\t]*)?(,[ \\t]*(${TYPE_WORD}[ \\t]*)?)*$`,
    }),
});

/** An event type or a prefix ending in * (agent.*): compared as text, never as a regex. */
export const EventTypePattern = z
  .string()
  .min(1)
  .max(MAX_TYPE_PATTERN_LENGTH)
  .regex(/^[^*]*\*?$/, '* may only end a pattern, as in agent.*')
  .meta({ description: 'An event type (agent.created) or a prefix ending in * (agent.*)' });
