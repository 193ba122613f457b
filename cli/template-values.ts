// The step values `svc workflows init` sets: each --set steps.<step>.<key>=VALUE, and every value
// the template leaves to its user (its placeholders: a pager's URL) asked for in a terminal when
// no --set gave it. Without a terminal a missing one is a usage error naming its --set flag: a
// workflow that keeps a template's example (https://pager.example.com/...) fails its first run.
import type { Options } from './command.js';
import { UsageError } from './errors.js';
import type { TemplatePlaceholder, WorkflowTemplate } from '../shared/schemas/templates.js';
import { placeholderProblem } from '../shared/templates.js';

/** Step id -> config keys laid over that step's config (TemplateChoices.steps). */
export type StepValues = Record<string, Record<string, unknown>>;

const SET_FORM = /^steps\.([a-z0-9_]+)\.([a-z0-9_]+)=(.*)$/s;

/** --set given once or more (a variadic option: an array, or one string). */
export function setFlags(template: WorkflowTemplate, options: Options): StepValues {
  const raw = options.set as unknown;
  const list: unknown[] = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  const placeholders = new Set(template.placeholders.map((placeholder) => placeholder.path));
  const values: StepValues = {};
  for (const item of list) {
    const match = SET_FORM.exec(String(item));
    if (!match)
      throw new UsageError(
        `--set takes steps.STEP.KEY=VALUE, e.g. --set steps.page.url=http://127.0.0.1:9000/page (got "${String(item)}").${listPlaceholders(template)}`,
      );
    const [, stepId, key, text] = match as unknown as [string, string, string, string];
    const step = template.steps.find((candidate) => candidate.id === stepId);
    if (!step)
      throw new UsageError(
        `--set steps.${stepId}.${key}: template ${template.id} has no step "${stepId}". Its steps: ${template.steps.map((s) => s.id).join(', ')}.`,
      );
    const path = `steps.${stepId}.${key}`;
    const placeholder = template.placeholders.find((candidate) => candidate.path === path);
    if (placeholder) checkValue(placeholder, text, `--set ${path}`);
    (values[stepId] ??= {})[key] = placeholders.has(path) ? text.trim() : parseValue(text);
  }
  return values;
}

/**
 * The values of the placeholders no --set gave: asked for in a terminal, one after the other,
 * else a usage error naming every missing --set.
 */
export async function askPlaceholders(
  template: WorkflowTemplate,
  given: StepValues,
): Promise<StepValues> {
  const values = structuredClone(given);
  const missing = template.placeholders.filter((placeholder) => {
    const [, stepId, key] = placeholder.path.split('.') as [string, string, string];
    return values[stepId]?.[key] === undefined;
  });
  if (missing.length === 0) return values;
  const dialogs = await import('./dialogs.js');
  if (!dialogs.canPrompt())
    throw new UsageError(
      [
        ...missing.map(describeMissing),
        `Template ${template.id} leaves ${missing.length === 1 ? 'this value' : 'these values'} to you: its example does not work as is. (No prompt is shown without a terminal or with CI=true.)`,
      ].join('\n'),
    );
  for (const placeholder of missing) {
    const [, stepId, key] = placeholder.path.split('.') as [string, string, string];
    (values[stepId] ??= {})[key] = await dialogs.askValidated(
      `--set ${placeholder.path}=...`,
      `${placeholder.description} (${placeholder.path}, e.g. ${placeholder.example})`,
      (answer) => placeholderProblem(placeholder, answer),
    );
  }
  return values;
}

function describeMissing(placeholder: TemplatePlaceholder): string {
  const value = placeholder.format === 'url' ? 'URL' : 'VALUE';
  return `Missing --set ${placeholder.path}=${value}: ${placeholder.description} (e.g. ${placeholder.example}).`;
}

function listPlaceholders(template: WorkflowTemplate): string {
  if (template.placeholders.length === 0) return '';
  return ` Template ${template.id} leaves to you: ${template.placeholders.map((p) => p.path).join(', ')}.`;
}

function checkValue(placeholder: TemplatePlaceholder, text: string, flag: string): void {
  const problem = placeholderProblem(placeholder, text);
  if (problem) throw new UsageError(`${flag}: ${problem}`);
}

/** A value that reads as JSON (60, true, {"a": 1}) is taken as such, any other as text. */
function parseValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
