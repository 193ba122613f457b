// What a workflow's trigger means, checked on every write: the config per type (400 with
// param trigger.config.<field>), and the tagged value the trigger tables are kept from.
import type { z } from 'zod';
import { matchesTypePattern } from '../../shared/event-type-patterns.js';
import { EVENT_TYPES, isEventType } from '../../shared/schemas/events.js';
import { TRIGGER_CONFIGS, TRIGGER_TYPES, type TriggerType } from '../../shared/schemas/triggers.js';
import { ApiError, missingFields } from '../domain/errors.js';
import { checkSchedule } from './cron.js';

export type ParsedTrigger =
  | { type: 'manual' }
  | { type: 'webhook'; path: string; secret: string | null }
  | { type: 'schedule'; cron: string; timezone: string }
  | { type: 'event'; patterns: string[] };

export interface TriggerInput {
  type?: string | undefined;
  config?: Record<string, unknown> | undefined;
}

export function parseTrigger(trigger: TriggerInput | null | undefined): ParsedTrigger {
  const type = (trigger?.type ?? 'manual') as TriggerType;
  if (!TRIGGER_TYPES.includes(type)) {
    throw new ApiError(
      'invalid_parameter',
      `Unknown trigger type '${String(trigger?.type)}'. Use one of: ${TRIGGER_TYPES.join(', ')}.`,
      { param: 'trigger.type' },
    );
  }
  const config = configOf(type, trigger?.config ?? {});
  switch (type) {
    case 'manual':
      return { type };
    case 'webhook': {
      const { path, secret } = config as z.infer<(typeof TRIGGER_CONFIGS)['webhook']>;
      return { type, path, secret: secret ?? null };
    }
    case 'schedule': {
      const schedule = config as z.infer<(typeof TRIGGER_CONFIGS)['schedule']>;
      checkSchedule(schedule);
      return { type, cron: schedule.cron.trim(), timezone: schedule.timezone };
    }
    case 'event': {
      const { event_types } = config as z.infer<(typeof TRIGGER_CONFIGS)['event']>;
      event_types.forEach(checkPattern);
      return { type, patterns: [...new Set(event_types)] };
    }
  }
}

function configOf(type: TriggerType, config: Record<string, unknown>): unknown {
  const result = TRIGGER_CONFIGS[type].safeParse(config);
  if (result.success) return result.data;
  const missing = result.error.issues
    .filter(
      (issue) => issue.code !== 'unrecognized_keys' && valueAt(config, issue.path) === undefined,
    )
    .map((issue) => `trigger.config.${issue.path.join('.')}`);
  if (missing.length > 0) throw missingFields(missing);
  const issue = result.error.issues[0]!;
  const field = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]] : issue.path;
  const param = `trigger.config.${field.join('.')}`;
  const message =
    issue.code === 'unrecognized_keys'
      ? `Unknown field '${param}' for a ${type} trigger.`
      : `Invalid '${param}' for a ${type} trigger: ${issue.message}.`;
  throw new ApiError('invalid_parameter', message, { param });
}

function checkPattern(pattern: string, index: number): void {
  const known = pattern.endsWith('*')
    ? EVENT_TYPES.some((type) => type.startsWith(pattern.slice(0, -1)))
    : isEventType(pattern);
  if (!known) {
    throw new ApiError(
      'invalid_event_type',
      `'${pattern}' matches no event type. Use a type such as agent.created or a prefix such as agent.*`,
      { param: `trigger.config.event_types[${index}]` },
    );
  }
}

/** Does an event type match one of the patterns (exact types, or prefixes ending in *)? */
export function matchesPatterns(patterns: readonly string[], type: string): boolean {
  return patterns.some((pattern) => matchesTypePattern(pattern, type));
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}
