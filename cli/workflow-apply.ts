// `svc workflows apply -f FILE`: create-or-update keyed by the workflow's name, so a script that
// runs twice does not make two workflows. What the file says is compared with the stored
// workflow field by field, in the stored shape (a step's absent agent_id, next_step_id and
// on_error are null, its absent config {}), and only the fields the file gives: PATCH leaves the
// others as they are, and merges settings, so settings are compared key by key. A webhook
// trigger's secret is write-only (the API shows has_secret): a file that carries one always sends
// its trigger, and says so.
import { isDeepStrictEqual } from 'node:util';
import type { WorkflowDocument } from './workflow-file.js';
import type { Workflow } from './workflow-views.js';

/** The fields of the file that differ from the stored workflow, in words ("steps (changed: a)"). */
export function changedFields(document: WorkflowDocument, stored: Workflow): string[] {
  const changed: string[] = [];
  for (const key of ['name', 'description', 'status'] as const) {
    if (key in document && document[key] !== stored[key]) changed.push(key);
  }
  if ('trigger' in document) changed.push(...triggerChanges(document.trigger, stored.trigger));
  if ('steps' in document) {
    const steps = stepChanges(document.steps, stored.steps);
    if (steps) changed.push(steps);
  }
  if ('settings' in document) changed.push(...settingsChanges(document.settings, stored.settings));
  // A key the API does not know: sent as the file says, so the API names it (400).
  for (const key of Object.keys(document)) {
    if (!['name', 'description', 'status', 'trigger', 'steps', 'settings'].includes(key))
      changed.push(key);
  }
  return changed;
}

function triggerChanges(given: unknown, stored: Workflow['trigger']): string[] {
  if (!isRecord(given)) return ['trigger'];
  const { secret, ...config } = isRecord(given.config) ? given.config : {};
  const { has_secret: _hasSecret, ...storedConfig } = stored.config as Record<string, unknown>;
  const changes: string[] = [];
  if (given.type !== stored.type || !isDeepStrictEqual(config, storedConfig))
    changes.push('trigger');
  if (secret !== undefined) changes.push('trigger.config.secret (write-only: always sent)');
  return changes;
}

function stepChanges(given: unknown, stored: Workflow['steps']): string | undefined {
  if (!Array.isArray(given)) return 'steps';
  const storedById = new Map(stored.map((step) => [step.id, step]));
  const givenIds = new Set<unknown>();
  const added: string[] = [];
  const edited: string[] = [];
  for (const step of given) {
    const shaped = storedShape(step);
    const id = String(shaped.id);
    givenIds.add(shaped.id);
    const before = storedById.get(id);
    if (!before) added.push(id);
    else if (!isDeepStrictEqual(shaped, storedShape(before))) edited.push(id);
  }
  const removed = stored.map((step) => step.id).filter((id) => !givenIds.has(id));
  const reordered =
    added.length === 0 &&
    removed.length === 0 &&
    !isDeepStrictEqual(
      given.map((step) => (isRecord(step) ? step.id : undefined)),
      stored.map((step) => step.id),
    );
  const parts = [
    edited.length ? `changed: ${edited.join(', ')}` : '',
    added.length ? `added: ${added.join(', ')}` : '',
    removed.length ? `removed: ${removed.join(', ')}` : '',
    reordered ? 'order' : '',
  ].filter(Boolean);
  return parts.length ? `steps (${parts.join('; ')})` : undefined;
}

/** A step as the API stores it: every field, absent ones at their defaults. */
function storedShape(step: unknown): Record<string, unknown> {
  const given = isRecord(step) ? step : {};
  return {
    ...given,
    agent_id: given.agent_id ?? null,
    config: given.config ?? {},
    next_step_id: given.next_step_id ?? null,
    on_error: given.on_error ?? null,
  };
}

function settingsChanges(given: unknown, stored: Workflow['settings']): string[] {
  if (!isRecord(given)) return ['settings'];
  const changes: string[] = [];
  for (const [key, value] of Object.entries(given)) {
    const before = (stored as Record<string, unknown>)[key];
    if (key === 'retry_policy' && isRecord(value) && isRecord(before)) {
      for (const [inner, innerValue] of Object.entries(value)) {
        if (!isDeepStrictEqual(innerValue, before[inner]))
          changes.push(`settings.retry_policy.${inner}`);
      }
    } else if (!isDeepStrictEqual(value, before)) {
      changes.push(`settings.${key}`);
    }
  }
  return changes;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
