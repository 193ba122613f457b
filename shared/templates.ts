// Turns a workflow template into the body of a workflow (POST /v1/workflows): each agent step's
// role becomes the agent chosen for it, and customizations are laid over the template. Shared by
// POST /v1/workflows/from-template and `svc workflows init`, so both write the same workflow.
import type { TemplatePlaceholder, WorkflowTemplate } from './schemas/templates.js';

export interface TemplateChoices {
  name: string;
  description?: string | undefined;
  status?: 'draft' | 'active' | undefined;
  /** Role name -> agent id. */
  agents: Record<string, string>;
  settings?: Record<string, unknown> | undefined;
  trigger?: { type: string; config: Record<string, unknown> } | undefined;
  /** Step id -> config keys laid over that step's config. */
  steps?: Record<string, Record<string, unknown>> | undefined;
}

export interface WorkflowBody {
  name: string;
  description: string;
  status?: 'draft' | 'active';
  trigger: { type: string; config: Record<string, unknown> };
  steps: Record<string, unknown>[];
  settings: Record<string, unknown>;
}

/** Roles of the template that the choices leave without an agent. */
export function unmappedRoles(
  template: WorkflowTemplate,
  agents: Record<string, string>,
): string[] {
  return template.roles.map((role) => role.name).filter((name) => !agents[name]);
}

/** Choices naming a role or a step the template does not have. */
export function unknownChoices(template: WorkflowTemplate, choices: TemplateChoices): string[] {
  const roles = new Set(template.roles.map((role) => role.name));
  const steps = new Set(template.steps.map((step) => step.id));
  return [
    ...Object.keys(choices.agents)
      .filter((role) => !roles.has(role))
      .map((role) => `customizations.agents.${role}`),
    ...Object.keys(choices.steps ?? {})
      .filter((step) => !steps.has(step))
      .map((step) => `customizations.steps.${step}`),
  ];
}

export function workflowFromTemplate(
  template: WorkflowTemplate,
  choices: TemplateChoices,
): WorkflowBody {
  return {
    name: choices.name,
    description: choices.description ?? template.description,
    ...(choices.status ? { status: choices.status } : {}),
    trigger: structuredClone(choices.trigger ?? template.trigger),
    settings: mergeSettings(template.settings, choices.settings ?? {}),
    steps: template.steps.map((step) => {
      const { role, config, ...rest } = structuredClone(step);
      return {
        ...rest,
        ...(role ? { agent_id: choices.agents[role] } : {}),
        config: { ...config, ...(choices.steps?.[step.id] ?? {}) },
      };
    }),
  };
}

/** One level deeper than a spread, so that {retry_policy: {max_attempts}} keeps the multiplier. */
function mergeSettings(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = structuredClone(base);
  for (const [key, value] of Object.entries(over)) {
    const current = merged[key];
    merged[key] = isPlainObject(current) && isPlainObject(value) ? { ...current, ...value } : value;
  }
  return merged;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Why a placeholder's value cannot be used, or undefined when it can: `svc workflows init` asks
 * again, the dashboard's templates page refuses it.
 */
export function placeholderProblem(
  placeholder: TemplatePlaceholder,
  text: string,
): string | undefined {
  const value = text.trim();
  if (value === '') return `give ${placeholder.description}.`;
  // The example is a stand-in: a workflow that keeps it fails its first run.
  if (value === placeholder.example)
    return `${value} is the template's example; give your own (a local receiver works: http://127.0.0.1:PORT/...).`;
  if (placeholder.format === 'url' && !isHttpUrl(value))
    return `"${value}" is not an http(s) URL, e.g. ${placeholder.example}.`;
  return undefined;
}

function isHttpUrl(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}
