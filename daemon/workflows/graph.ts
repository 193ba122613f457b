// Validation of a workflow's step graph, run on create and on every PATCH: unique ids, every
// reference names a step, each type's config (its field schemas in shared/schemas/steps.ts,
// then its own checks in engine/steps/), agents that exist, expressions that parse, no cycle
// through any kind of edge, and no step reached twice while a parallel step runs
// (parallel-reach.ts). Pure: the caller passes what it knows of agents.
import {
  STEP_FIELDS,
  STEP_TYPES,
  successors,
  type StepType,
  type TypedStep,
} from '../../shared/schemas/steps.js';
import type { WorkflowStepInput, WorkflowStepView } from '../../shared/schemas/workflows.js';
import { ApiError } from '../domain/errors.js';
import {
  compile,
  eachString,
  ExpressionError,
  templateExpressions,
} from '../engine/expressions.js';
import { kindOf } from '../engine/steps/index.js';
import type { StepCheck } from '../engine/steps/kind.js';
import { checkParallelReach } from './parallel-reach.js';
import { checkExpressionBudget } from './expression-budget.js';

export interface GraphContext {
  /** Whether an agent of the workspace has this id. */
  agentExists(agentId: string): boolean;
  /** Checks a literal webhook URL against the outbound policy (throws invalid_url). */
  checkUrl?(url: string, param: string): void;
}

function invalid(param: string, message: string): ApiError {
  return new ApiError('invalid_step_config', message, { param });
}

function isStepType(type: string): type is StepType {
  return (STEP_TYPES as readonly string[]).includes(type);
}

/** Checks the whole graph; answers the steps in their stored form. */
export function validateSteps(
  steps: readonly WorkflowStepInput[],
  context: GraphContext,
): WorkflowStepView[] {
  checkExpressionBudget(steps);
  const index = new Map<string, number>();
  steps.forEach((step, i) => {
    if (index.has(step.id)) {
      throw invalid(
        `steps[${i}].id`,
        `Step id '${step.id}' is used twice (steps[${index.get(step.id)}] and steps[${i}]). Step ids must be unique.`,
      );
    }
    index.set(step.id, i);
  });
  const reference = (param: string, id: unknown, from: string) => {
    if (typeof id !== 'string' || !index.has(id)) {
      throw invalid(
        param,
        `Step '${from}' refers to step '${String(id)}', which does not exist. Known steps: ${[...index.keys()].join(', ')}.`,
      );
    }
  };

  const out = steps.map((step, i): WorkflowStepView => {
    const at = `steps[${i}]`;
    if (!isStepType(step.type)) {
      throw invalid(
        `${at}.type`,
        `Step '${step.id}' has unknown type '${step.type}'. Use one of: ${STEP_TYPES.join(', ')}.`,
      );
    }
    const config = step.config ?? {};
    if (step.next_step_id != null) reference(`${at}.next_step_id`, step.next_step_id, step.id);
    if (step.on_error != null) reference(`${at}.on_error`, step.on_error, step.id);
    // Typed once its fields have been checked against its type's schemas.
    const stored = {
      id: step.id,
      name: step.name,
      type: step.type,
      agent_id: step.agent_id ?? null,
      config,
      next_step_id: step.next_step_id ?? null,
      on_error: step.on_error ?? null,
    } as TypedStep;
    const check = stepCheck(stored, at, context, reference);
    const kind = kindOf(stored);
    kind.checkStep?.(stored, check);
    checkFields(step.type, config, check);
    kind.check?.(stored, check);
    eachString(config, `${at}.config`, (path, text) => {
      // A condition is checked as an expression by its type; other strings as templates.
      if (step.type === 'condition' && path === `${at}.config.condition`) return;
      for (const expr of templateExpressions(text)) checkExpression(expr, path, step.id, true);
    });
    return stored;
  });

  const cycle = findCycle(out);
  if (cycle) {
    throw new ApiError(
      'circular_dependency',
      `The steps form a loop: ${cycle.join(' -> ')}. Workflows must not loop back to an earlier step.`,
      { param: 'steps', extras: { cycle } },
    );
  }
  checkParallelReach(out);
  return out;
}

/** The longest expression (a condition, or one {{...}}): a bound on the work one evaluation does. */
export const MAX_EXPRESSION_LENGTH = 2_000;

/**
 * Checks one expression at `param` of step `stepId`: its length, its syntax and its use of
 * secrets (whole only in a template, none in a condition: `secretsAllowed`).
 */
function checkExpression(
  expr: string,
  param: string,
  stepId: string,
  secretsAllowed: boolean,
): void {
  const where = `Step '${stepId}', ${param.replace(/^steps\[\d+\]\./, '')}`;
  if (expr.length > MAX_EXPRESSION_LENGTH) {
    throw invalid(
      param,
      `${where}: the expression is ${expr.length} characters long; at most ${MAX_EXPRESSION_LENGTH} are allowed. ` +
        'Split the logic over several condition steps.',
    );
  }
  try {
    compile(expr, secretsAllowed);
  } catch (error) {
    if (error instanceof ExpressionError) throw invalid(param, `${where}: ${error.message}`);
    throw error;
  }
}

/** The config's fields, in their type's order, against their schemas (shared/schemas/steps.ts). */
function checkFields(type: StepType, config: Record<string, unknown>, check: StepCheck): void {
  for (const [key, field] of Object.entries(STEP_FIELDS[type])) {
    // A step reference is checked against the workflow's steps by the type's own checks.
    if ('reference' in field) continue;
    const value = config[key];
    const ok = value === undefined ? !field.required : field.schema.safeParse(value).success;
    check.need(key, ok, field.schema.description ?? key);
  }
}

/** What a step type's checks may use, for one step. */
function stepCheck(
  step: TypedStep,
  at: string,
  context: GraphContext,
  reference: (param: string, id: unknown, from: string) => void,
): StepCheck {
  return {
    at,
    agentExists: (agentId) => context.agentExists(agentId),
    ...(context.checkUrl ? { checkUrl: context.checkUrl } : {}),
    need(key, ok, what) {
      if (!ok)
        throw invalid(
          `${at}.config.${key}`,
          `Step '${step.id}' (${step.type}) needs config.${key}: ${what}.`,
        );
    },
    invalid,
    reference: (param, id) => reference(param, id, step.id),
    expression: (source, param, secretsAllowed) =>
      checkExpression(source, param, step.id, secretsAllowed),
  };
}

/** A loop as the list of its step ids, the first repeated at the end; undefined if none. */
export function findCycle(steps: readonly WorkflowStepView[]): string[] | undefined {
  const byId = new Map(steps.map((step) => [step.id, step]));
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    const seen = state.get(id);
    if (seen === 'done') return undefined;
    if (seen === 'open') return [...path.slice(path.indexOf(id)), id];
    state.set(id, 'open');
    path.push(id);
    const step = byId.get(id);
    for (const next of step ? successors(step) : []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const step of steps) {
    const cycle = visit(step.id);
    if (cycle) return cycle;
  }
  return undefined;
}

/**
 * A wait as long as the run's timeout, or longer, can never end: the run's deadline falls due at
 * or before its wake-up, and at the same instant the deadline wins (a run ends timeout at its
 * deadline, whatever else falls due then). Refused when the workflow is written, naming both
 * numbers and the two ways out. Each wait is checked on its own: waits in a row that add up to
 * the timeout depend on the path a run takes, so they are left to the run.
 */
export function checkWaitsFitTimeout(
  steps: readonly WorkflowStepView[],
  timeoutSeconds: number,
): void {
  steps.forEach((step, i) => {
    if (step.type !== 'wait') return;
    const seconds = Number((step.config as { duration_seconds?: unknown }).duration_seconds ?? 0);
    if (seconds < timeoutSeconds) return;
    throw invalid(
      `steps[${i}].config.duration_seconds`,
      `Step '${step.id}' waits ${seconds} s, ${seconds === timeoutSeconds ? 'as long as' : 'longer than'} a run may take (settings.timeout_seconds ${timeoutSeconds}): every run would end timeout in that wait. Wait less than ${timeoutSeconds} s, or raise settings.timeout_seconds above ${seconds}.`,
    );
  });
}
