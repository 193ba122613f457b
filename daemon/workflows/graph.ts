// Validation of a workflow's step graph, run on create and on every PATCH: unique ids, every
// reference names a step, the required config of each type, agents that exist, expressions that
// parse, and no cycle through any kind of edge. Pure: the caller passes what it knows of agents.
import {
  STEP_TYPES,
  type StepType,
  type WorkflowStepInput,
  type WorkflowStepView,
} from '../../shared/schemas/workflows.js';
import { ApiError } from '../domain/errors.js';
import {
  compile,
  conditionSource,
  eachString,
  ExpressionError,
  templateExpressions,
} from '../engine/expressions.js';

export const WEBHOOK_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export const MAX_WAIT_SECONDS = 30 * 86_400;
/** Branches one parallel step may start at once. */
export const MAX_PARALLEL_BRANCHES = 50;

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
    checkConfig(step.type, step, config, at, context, reference);
    eachString(config, `${at}.config`, (path, text) => {
      // A condition is checked as an expression by checkConfig; other strings as templates.
      if (step.type === 'condition' && path === `${at}.config.condition`) return;
      for (const expr of templateExpressions(text)) checkExpression(expr, path, step.id, true);
    });
    return {
      id: step.id,
      name: step.name,
      type: step.type,
      agent_id: step.agent_id ?? null,
      config,
      next_step_id: step.next_step_id ?? null,
      on_error: step.on_error ?? null,
    };
  });

  const cycle = findCycle(out);
  if (cycle) {
    throw new ApiError(
      'circular_dependency',
      `The steps form a loop: ${cycle.join(' -> ')}. Workflows must not loop back to an earlier step.`,
      { param: 'steps', extras: { cycle } },
    );
  }
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

function checkConfig(
  type: StepType,
  step: WorkflowStepInput,
  config: Record<string, unknown>,
  at: string,
  context: GraphContext,
  reference: (param: string, id: unknown, from: string) => void,
): void {
  const need = (key: string, ok: boolean, what: string) => {
    if (!ok)
      throw invalid(
        `${at}.config.${key}`,
        `Step '${step.id}' (${type}) needs config.${key}: ${what}.`,
      );
  };
  switch (type) {
    case 'agent_action': {
      if (typeof step.agent_id !== 'string' || step.agent_id === '') {
        throw invalid(
          `${at}.agent_id`,
          `Step '${step.id}' (agent_action) needs agent_id: the agent that acts.`,
        );
      }
      if (!context.agentExists(step.agent_id)) {
        throw invalid(
          `${at}.agent_id`,
          `Step '${step.id}' names agent ${step.agent_id}, which does not exist in this workspace.`,
        );
      }
      need(
        'action',
        typeof config.action === 'string' && config.action !== '',
        'the action, a non-empty string',
      );
      if (config.input_mapping !== undefined) {
        need(
          'input_mapping',
          isPlainObject(config.input_mapping),
          'an object of name to expression',
        );
      }
      return;
    }
    case 'condition': {
      need(
        'condition',
        typeof config.condition === 'string' && config.condition.trim() !== '',
        'an expression such as trigger.payload.amount > 100',
      );
      checkExpression(
        conditionSource(config.condition as string),
        `${at}.config.condition`,
        step.id,
        false,
      );
      need(
        'if_true',
        config.if_true !== undefined || config.if_false !== undefined,
        'the step to run when the condition holds (if_true and/or if_false)',
      );
      for (const key of ['if_true', 'if_false'] as const) {
        if (config[key] !== undefined && config[key] !== null)
          reference(`${at}.config.${key}`, config[key], step.id);
      }
      return;
    }
    case 'parallel': {
      const children = config.steps;
      need(
        'steps',
        Array.isArray(children) && children.length > 0,
        'a non-empty array of step ids',
      );
      need(
        'steps',
        (children as unknown[]).length <= MAX_PARALLEL_BRANCHES,
        `at most ${MAX_PARALLEL_BRANCHES} step ids (branches run at once)`,
      );
      (children as unknown[]).forEach((child, j) => {
        reference(`${at}.config.steps[${j}]`, child, step.id);
        if ((children as unknown[]).indexOf(child) !== j) {
          throw invalid(
            `${at}.config.steps[${j}]`,
            `Step '${step.id}' lists branch '${String(child)}' twice. List each branch once.`,
          );
        }
      });
      if (config.wait_for_all !== undefined)
        need('wait_for_all', typeof config.wait_for_all === 'boolean', 'a boolean');
      return;
    }
    case 'wait': {
      const seconds = config.duration_seconds;
      need(
        'duration_seconds',
        typeof seconds === 'number' &&
          Number.isInteger(seconds) &&
          seconds >= 0 &&
          seconds <= MAX_WAIT_SECONDS,
        `an integer number of seconds, 0 to ${MAX_WAIT_SECONDS}`,
      );
      if (config.reason !== undefined)
        need('reason', typeof config.reason === 'string', 'a string');
      return;
    }
    case 'webhook': {
      need('url', typeof config.url === 'string' && config.url !== '', 'the URL to call');
      const url = config.url as string;
      if (!url.includes('{{')) context.checkUrl?.(url, `${at}.config.url`);
      if (config.method !== undefined) {
        need(
          'method',
          typeof config.method === 'string' &&
            (WEBHOOK_METHODS as readonly string[]).includes(config.method.toUpperCase()),
          `one of ${WEBHOOK_METHODS.join(', ')}`,
        );
      }
      if (config.headers !== undefined) {
        need(
          'headers',
          isPlainObject(config.headers) &&
            Object.values(config.headers).every((v) => typeof v === 'string'),
          'an object of header name to string',
        );
      }
      if (config.timeout_seconds !== undefined) {
        // The bound of a webhook subscription's timeout_seconds.
        need(
          'timeout_seconds',
          Number.isInteger(config.timeout_seconds) &&
            (config.timeout_seconds as number) >= 1 &&
            (config.timeout_seconds as number) <= 60,
          'a whole number of seconds from 1 to 60 (default 30)',
        );
      }
      return;
    }
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The ids a step leads to, by any kind of edge. */
export function successors(step: WorkflowStepView): string[] {
  const out: string[] = [];
  if (step.next_step_id) out.push(step.next_step_id);
  if (step.on_error) out.push(step.on_error);
  if (step.type === 'condition') {
    for (const key of ['if_true', 'if_false']) {
      const id = step.config[key];
      if (typeof id === 'string') out.push(id);
    }
  }
  if (step.type === 'parallel' && Array.isArray(step.config.steps)) {
    for (const id of step.config.steps) if (typeof id === 'string') out.push(id);
  }
  return out;
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
