// The five step types of a workflow: each one's config fields as schemas, and where a step
// leads. One source for the API's checks of a step's config (daemon/workflows/graph.ts), the
// OpenAPI document, the CLI and the dashboard. What a type checks beyond its fields (references
// to other steps, expressions, agents, URLs) and how it runs live in daemon/engine/steps/.
import { z } from 'zod';

export const STEP_TYPES = ['agent_action', 'condition', 'parallel', 'wait', 'webhook'] as const;
export type StepType = (typeof STEP_TYPES)[number];

export const WEBHOOK_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export const MAX_WAIT_SECONDS = 30 * 86_400;
/** Branches one parallel step may start at once. */
export const MAX_PARALLEL_BRANCHES = 50;

/**
 * One config field. Its description is what the API says the field needs when a value does not
 * fit ("Step 'x' (wait) needs config.duration_seconds: <description>.").
 */
interface Field {
  schema: z.ZodType;
  required: boolean;
  /** A step id: checked against the workflow's steps (graph.ts), not by its schema. */
  reference?: boolean;
}

const field = (schema: z.ZodType, description: string, required = false): Field => ({
  schema: schema.meta({ description }),
  required,
});
const stepReference = (description: string): Field => ({
  schema: z.string().nullable().meta({ description }),
  required: false,
  reference: true,
});

const isUpperMethod = (value: string) =>
  (WEBHOOK_METHODS as readonly string[]).includes(value.toUpperCase());

/** Each type's config fields, in the order the API checks them. */
export const STEP_FIELDS = {
  agent_action: {
    action: field(z.string().min(1), 'the action, a non-empty string', true),
    input_mapping: field(z.record(z.string(), z.unknown()), 'an object of name to expression'),
  },
  condition: {
    condition: field(
      z.string().refine((text) => text.trim() !== ''),
      'an expression such as trigger.payload.amount > 100',
      true,
    ),
    if_true: stepReference('The step to run when the condition holds'),
    if_false: stepReference('The step to run when it does not'),
  },
  parallel: {
    steps: field(z.array(z.string()).min(1), 'a non-empty array of step ids', true),
    wait_for_all: field(z.boolean(), 'a boolean'),
  },
  wait: {
    duration_seconds: field(
      z.number().int().min(0).max(MAX_WAIT_SECONDS),
      `an integer number of seconds, 0 to ${MAX_WAIT_SECONDS}`,
      true,
    ),
    reason: field(z.string(), 'a string'),
  },
  webhook: {
    url: field(z.string().min(1), 'the URL to call', true),
    method: field(z.string().refine(isUpperMethod), `one of ${WEBHOOK_METHODS.join(', ')}`),
    headers: field(z.record(z.string(), z.string()), 'an object of header name to string'),
    body: field(z.unknown(), 'The request body: any JSON value, {{ }} templates interpolated'),
    timeout_seconds: field(
      z.number().int().min(1).max(60),
      'a whole number of seconds from 1 to 60 (default 30)',
    ),
  },
} as const satisfies Record<StepType, Record<string, Field>>;

function configSchema<F extends Record<string, Field>>(fields: F) {
  return Object.fromEntries(
    Object.entries(fields).map(([key, f]) => [key, f.required ? f.schema : f.schema.optional()]),
  );
}

/** agent_action: keys beside action, input_mapping and input are passed to the agent as context. */
export const AgentActionConfig = z
  .looseObject({
    ...configSchema(STEP_FIELDS.agent_action),
    input: z.unknown().optional().meta({
      description: "The agent's input text (a template); default '<action>: <input_mapping>'",
    }),
  })
  .meta({
    title: 'AgentActionConfig',
    description:
      "action is the action the agent takes (passed as the execution's context.action; 403 guardrail_violation when the agent's capability for it is false)",
  });
export const ConditionConfig = z
  .looseObject(configSchema(STEP_FIELDS.condition))
  .meta({ title: 'ConditionConfig' });
export const ParallelConfig = z
  .looseObject(configSchema(STEP_FIELDS.parallel))
  .meta({ title: 'ParallelConfig' });
export const WaitConfig = z
  .looseObject(configSchema(STEP_FIELDS.wait))
  .meta({ title: 'WaitConfig' });
export const WebhookStepConfig = z
  .looseObject(configSchema(STEP_FIELDS.webhook))
  .meta({ title: 'WebhookStepConfig' });

export interface StepConfigs {
  agent_action: {
    action: string;
    input_mapping?: Record<string, unknown>;
    input?: unknown;
  } & Record<string, unknown>;
  condition: { condition: string; if_true?: string | null; if_false?: string | null };
  parallel: { steps: string[]; wait_for_all?: boolean };
  wait: { duration_seconds: number; reason?: string };
  webhook: {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: unknown;
    timeout_seconds?: number;
  };
}

/** The config schema of each type (the OpenAPI document shows them as the config's variants). */
export const STEP_CONFIG_SCHEMAS = {
  agent_action: AgentActionConfig,
  condition: ConditionConfig,
  parallel: ParallelConfig,
  wait: WaitConfig,
  webhook: WebhookStepConfig,
} as const satisfies Record<StepType, z.ZodType>;

interface StepBase {
  id: string;
  name: string;
  agent_id: string | null;
  next_step_id: string | null;
  on_error: string | null;
}

/** A stored step (as the API shows it), its config typed by its type. */
export type TypedStep = {
  [T in StepType]: StepBase & { type: T; config: StepConfigs[T] };
}[StepType];

/** How one step leads to another. */
export type StepEdgeKind = 'next' | 'on_error' | 'if_true' | 'if_false' | 'branch';

export interface StepEdge {
  kind: StepEdgeKind;
  to: string;
}

/** Every step this one leads to, by any kind of edge: next, on_error, a condition's, branches. */
export function stepEdges(step: TypedStep): StepEdge[] {
  const edges: StepEdge[] = [];
  if (step.next_step_id) edges.push({ kind: 'next', to: step.next_step_id });
  if (step.on_error) edges.push({ kind: 'on_error', to: step.on_error });
  if (step.type === 'condition') {
    for (const kind of ['if_true', 'if_false'] as const) {
      const to = step.config[kind];
      if (typeof to === 'string') edges.push({ kind, to });
    }
  }
  if (step.type === 'parallel') {
    for (const to of step.config.steps)
      if (typeof to === 'string') edges.push({ kind: 'branch', to });
  }
  return edges;
}

/** The ids a step leads to, by any kind of edge (graph walks: cycles, lanes, re-run checks). */
export function successors(step: TypedStep): string[] {
  return stepEdges(step).map((edge) => edge.to);
}
