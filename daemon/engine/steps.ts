// What each step type does when it runs, as a StepOutcome the engine stores. Runners read the
// run's scope (earlier results, the trigger, secrets) and never write: the engine records the
// outcome together with what follows, in one transaction.
import type { ErrorCode } from '../../shared/errors.js';
import type { AgentExecutionView, ExecuteInput } from '../../shared/schemas/agents.js';
import type { DecidedExecution } from '../agents/execution.service.js';
import type { WorkflowStepView } from '../../shared/schemas/workflows.js';
import type { Clock } from '../time/clock.js';
import { ApiError } from '../domain/errors.js';
import { checkOutboundUrl, type UrlPolicy } from '../outbound/url-policy.js';
import {
  evaluateCondition,
  ExpressionError,
  interpolate,
  InterpolationBudget,
  maskSecrets,
  MissingSecretError,
  refusedSecrets,
  secretsScope,
  type Scope,
} from './expressions.js';
import type { OutboundHttp } from '../outbound/http.js';
import { callWebhook } from './webhook-call.js';
import type { FaultCall, InjectedFault } from '../faults/fault.service.js';

/** The result of running one step once. */
export type StepOutcome = (
  | { type: 'completed'; result: unknown; next: string[] }
  | { type: 'failed'; code: ErrorCode; message: string; agentId: string | null; result: unknown }
  | { type: 'waiting'; wakeAt: number; result: unknown }
  | { type: 'awaiting_approval'; agentExecutionId: string; agentId: string }
  | { type: 'fork'; children: string[]; waitForAll: boolean }
  /** The process is stopping: leave the step as it was, it runs again after the restart. */
  | { type: 'interrupted' }
) & {
  /** The sandbox fault rule (flt_...) that produced this outcome (svc faults). */
  injectedFault?: string | null | undefined;
  /**
   * The step's own records (an agent step's execution, decided at once), written in the
   * transaction that records the outcome: one commit per step, and never one without the other.
   */
  store?: () => void;
};

/** How agent steps reach the agents' own execution path (guardrails, autonomy, stubs, brains). */
export interface AgentPort {
  /**
   * Decided without waiting (a stub or a local brain), its writes left to the step's
   * transition; undefined, having done nothing, when it needs the network or time.
   */
  decideLocally(
    workspaceId: string,
    agentId: string,
    input: ExecuteInput,
  ): DecidedExecution | undefined;
  /** Decided once the brain answered, its writes left to the step's transition; undefined when it must wait. */
  decideNow(
    workspaceId: string,
    agentId: string,
    input: ExecuteInput,
  ): Promise<DecidedExecution | undefined>;
  /** Stored and finished later (a stub's delay), waited for. */
  execute(
    workspaceId: string,
    agentId: string,
    input: ExecuteInput,
  ): Promise<{ status: 200 | 202; execution: AgentExecutionView }>;
}

export interface StepContext {
  workspaceId: string;
  executionId: string;
  workflowId: string;
  /** This activation's attempt, 1 for the first (retries count up). */
  attempt: number;
  step: WorkflowStepView;
  /** trigger, workflow, steps and each step id: everything but secrets. */
  scope: Scope;
  reveal(name: string): string | undefined;
  /** Wraps a wait that only a later time on the daemon clock ends (a stub's delay). */
  untilDue<T>(waiting: Promise<T>): Promise<T>;
}

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 30_000;

/** The sandbox's fault rules, as steps ask them (FaultService). */
export interface StepFaults {
  decide(call: FaultCall): InjectedFault | undefined;
}

/** Step attempts whose fault rules runNow asked already (run() must not ask again). */
const ASKED_LIMIT = 10_000;

export class StepRunner {
  private readonly asked = new Set<string>();

  constructor(
    private readonly agents: AgentPort,
    private readonly clock: Clock,
    private readonly urlPolicy: UrlPolicy,
    private readonly outbound: OutboundHttp,
    private readonly faults?: StepFaults,
  ) {}

  /**
   * A --fail rule on this step (svc faults --workflow --step) fails it as the step itself
   * would: a failed outcome with the rule's code, which the engine retries per retry_policy.
   * Asked once per attempt, whichever of runNow and run gets to the step.
   */
  private injectedFailure(context: StepContext): StepOutcome | undefined {
    if (!this.faults) return undefined;
    const key = `${context.executionId}/${context.step.id}#${context.attempt}`;
    if (this.asked.delete(key)) return undefined;
    const fault = this.faults.decide({
      point: 'step',
      workspaceId: context.workspaceId,
      workflowId: context.workflowId,
      stepId: context.step.id,
      attempt: context.attempt,
      matchText: () => runInput(context),
    });
    if (!fault?.fail) return undefined;
    return {
      type: 'failed',
      code: fault.fail,
      message: `Step ${context.step.id} failed with ${fault.fail} (injected by the sandbox fault rule ${fault.id}).`,
      agentId: context.step.type === 'agent_action' ? (context.step.agent_id ?? null) : null,
      result: null,
      injectedFault: fault.id,
    };
  }

  /** runNow asked the rules and left the step to run(): remember it for run(). */
  private markAsked(context: StepContext): void {
    if (!this.faults) return;
    if (this.asked.size >= ASKED_LIMIT) this.asked.clear();
    this.asked.add(`${context.executionId}/${context.step.id}#${context.attempt}`);
  }

  /**
   * Runs the step at once when it needs only the store and the CPU: a condition, a wait (its
   * timer is part of the outcome), a parallel fork, an agent step that a stub or a local brain
   * decides. The engine does so inside the transaction that reached the step. Undefined, having
   * started nothing, when the step needs the network or time: then run() it.
   */
  runNow(context: StepContext): StepOutcome | undefined {
    const injected = this.injectedFailure(context);
    if (injected) return injected;
    const { scope, used } = this.scopeOf(context);
    let outcome: StepOutcome | undefined;
    try {
      outcome = this.typeNow(context, scope, used);
    } catch (error) {
      outcome = failure(error, context.step);
    }
    if (!outcome) this.markAsked(context);
    return outcome && maskOutcome(outcome, used);
  }

  /** Runs the step to its outcome, whatever it needs (after the commit that reached it). */
  async run(context: StepContext): Promise<StepOutcome> {
    const injected = this.injectedFailure(context);
    if (injected) return injected;
    const { scope, used } = this.scopeOf(context);
    try {
      // An agent step goes straight to decideNow, which a local brain answers as well: trying
      // decideLocally first would admit its execution twice.
      const now =
        context.step.type === 'agent_action' ? undefined : this.typeNow(context, scope, used);
      const outcome = now ?? (await this.typeLater(context, scope, used));
      return maskOutcome(outcome, used);
    } catch (error) {
      return maskOutcome(failure(error, context.step), used);
    }
  }

  private scopeOf(context: StepContext): { scope: Scope; used: Map<string, string> } {
    const used = new Map<string, string>();
    return { scope: { ...context.scope, secrets: secretsScope(context.reveal, used) }, used };
  }

  private typeNow(
    context: StepContext,
    scope: Scope,
    used: ReadonlyMap<string, string>,
  ): StepOutcome | undefined {
    const { step } = context;
    const config = step.config;
    switch (step.type) {
      case 'condition': {
        const condition = String(config.condition);
        const value = evaluateCondition(condition, {
          ...scope,
          secrets: refusedSecrets(condition),
        });
        const target = config[value ? 'if_true' : 'if_false'];
        const next = typeof target === 'string' ? target : step.next_step_id;
        return {
          type: 'completed',
          result: { value, branch: value ? 'if_true' : 'if_false', next_step_id: next ?? null },
          next: next ? [next] : [],
        };
      }
      case 'wait': {
        const seconds = Number(config.duration_seconds ?? 0);
        const result = { waited_seconds: seconds, reason: config.reason ?? null };
        if (seconds <= 0) return { type: 'completed', result, next: nextOf(step) };
        return { type: 'waiting', wakeAt: this.clock.now() + seconds * 1000, result };
      }
      case 'parallel':
        return {
          type: 'fork',
          children: (config.steps as string[]) ?? [],
          waitForAll: config.wait_for_all !== false,
        };
      case 'agent_action':
        return this.agentNow(context, scope, used);
      case 'webhook':
        return undefined;
    }
  }

  private typeLater(
    context: StepContext,
    scope: Scope,
    used: ReadonlyMap<string, string>,
  ): Promise<StepOutcome> {
    return context.step.type === 'webhook'
      ? this.webhook(context, scope)
      : this.agentLater(context, scope, used);
  }

  /**
   * Agents see [secret:NAME] where a secret was interpolated: their executions are stored and
   * shown, and secret values never are.
   */
  private agentInput(
    context: StepContext,
    scope: Scope,
    used: ReadonlyMap<string, string>,
  ): ExecuteInput {
    const { step } = context;
    const action = String(step.config.action);
    // One budget for the whole step: its strings together expand to a bounded size.
    const budget = new InterpolationBudget();
    const mapped = interpolate(step.config.input_mapping ?? {}, scope, budget) as Record<
      string,
      unknown
    >;
    const text =
      step.config.input !== undefined
        ? String(interpolate(step.config.input, scope, budget))
        : `${action}: ${JSON.stringify(mapped)}`;
    const extras = extrasOf(step);
    return {
      input: maskSecrets(text, used),
      context: maskSecrets(
        {
          ...mapped,
          workflow_execution_id: context.executionId,
          step_id: step.id,
          action,
          ...interpolateExtras(extras, scope, budget),
        },
        used,
      ),
      wait_for_completion: true,
    };
  }

  private agentNow(
    context: StepContext,
    scope: Scope,
    used: ReadonlyMap<string, string>,
  ): StepOutcome | undefined {
    const agentId = context.step.agent_id!;
    const input = this.agentInput(context, scope, used);
    let decided: DecidedExecution | undefined;
    try {
      decided = this.agents.decideLocally(context.workspaceId, agentId, input);
    } catch (error) {
      return agentFailure(error, agentId);
    }
    return decided && this.agentOutcome(context.step, decided.answer, decided.store);
  }

  private async agentLater(
    context: StepContext,
    scope: Scope,
    used: ReadonlyMap<string, string>,
  ): Promise<StepOutcome> {
    const agentId = context.step.agent_id!;
    const input = this.agentInput(context, scope, used);
    try {
      const decided = await this.agents.decideNow(context.workspaceId, agentId, input);
      if (decided) return this.agentOutcome(context.step, decided.answer, decided.store);
      const answer = await context.untilDue(
        this.agents.execute(context.workspaceId, agentId, input),
      );
      return this.agentOutcome(context.step, () => answer);
    } catch (error) {
      return agentFailure(error, agentId);
    }
  }

  /** What an agent execution's answer means for the step (a failed one throws ApiError). */
  private agentOutcome(
    step: WorkflowStepView,
    answer: DecidedExecution['answer'],
    store?: () => void,
  ): StepOutcome {
    const agentId = step.agent_id!;
    let status: 200 | 202;
    let execution: AgentExecutionView;
    try {
      ({ status, execution } = answer());
    } catch (error) {
      return { ...agentFailure(error, agentId), store };
    }
    if (status === 200 && execution.status === 'completed') {
      return {
        type: 'completed',
        result: { agent_execution_id: execution.execution_id, ...execution.result },
        next: nextOf(step),
        store,
      };
    }
    if (execution.status === 'awaiting_approval') {
      return {
        type: 'awaiting_approval',
        agentExecutionId: execution.execution_id,
        agentId,
        store,
      };
    }
    // Still processing: the daemon is shutting down and released the wait.
    return { type: 'interrupted' };
  }

  private async webhook(context: StepContext, scope: Scope): Promise<StepOutcome> {
    const { step } = context;
    const config = step.config;
    const budget = new InterpolationBudget();
    const url = checkOutboundUrl(String(interpolate(config.url, scope, budget)), this.urlPolicy);
    const method = String(config.method ?? 'POST').toUpperCase();
    const headers = Object.fromEntries(
      Object.entries(
        (interpolate(config.headers ?? {}, scope, budget) as Record<string, unknown>) ?? {},
      ).map(([key, value]) => [key, value === null ? '' : String(value)]),
    );
    const body =
      config.body === undefined || method === 'GET'
        ? undefined
        : interpolate(config.body, scope, budget);
    const timeoutMs =
      typeof config.timeout_seconds === 'number'
        ? config.timeout_seconds * 1000
        : DEFAULT_WEBHOOK_TIMEOUT_MS;
    const answer = await callWebhook(
      this.outbound,
      { url, method, headers, body, timeoutMs },
      {
        workspaceId: context.workspaceId,
        workflowId: context.workflowId,
        stepId: step.id,
        attempt: context.attempt,
        matchText: () => runInput(context),
        untilDue: context.untilDue,
      },
    );
    const injectedFault = answer.injectedFault;
    switch (answer.type) {
      case 'unreachable':
        return {
          type: 'failed',
          code: 'external_api_error',
          message: `${method} ${url}: ${answer.message}`,
          agentId: null,
          result: null,
          injectedFault,
        };
      case 'answered': {
        const result = { status_code: answer.status, body: answer.body };
        if (answer.status >= 200 && answer.status < 300) {
          return { type: 'completed', result, next: nextOf(step), injectedFault };
        }
        return {
          type: 'failed',
          code: 'external_api_error',
          message: `${method} ${url} answered HTTP ${answer.status}.`,
          agentId: null,
          result,
          injectedFault,
        };
      }
    }
  }
}

/** What a fault rule's --match reads for a step: the run's input (trigger payload), as JSON. */
function runInput(context: StepContext): string {
  const trigger = context.scope.trigger as { payload?: unknown } | undefined;
  return JSON.stringify(trigger?.payload ?? null);
}

function nextOf(step: WorkflowStepView): string[] {
  return step.next_step_id ? [step.next_step_id] : [];
}

/** An agent's ApiError (inactive agent, guardrail, failed execution) fails the step; others are bugs. */
function agentFailure(error: unknown, agentId: string): StepOutcome {
  if (error instanceof ApiError) {
    const injected = error.extras.injected_fault;
    return {
      type: 'failed',
      code: error.code,
      message: error.message,
      agentId,
      result: null,
      injectedFault: typeof injected === 'string' ? injected : null,
    };
  }
  throw error;
}

/** An agent step's config beside action, input_mapping and input (passed on as context). */
const extrasByStep = new WeakMap<WorkflowStepView, Record<string, unknown> | null>();

function extrasOf(step: WorkflowStepView): Record<string, unknown> | null {
  let extras = extrasByStep.get(step);
  if (extras === undefined) {
    const found = Object.entries(step.config).filter(
      ([key]) => !['action', 'input_mapping', 'input'].includes(key),
    );
    extras = found.length === 0 ? null : Object.fromEntries(found);
    extrasByStep.set(step, extras);
  }
  return extras;
}

function interpolateExtras(
  extras: Record<string, unknown> | null,
  scope: Scope,
  budget: InterpolationBudget,
): Record<string, unknown> {
  return extras === null ? {} : (interpolate(extras, scope, budget) as Record<string, unknown>);
}

function failure(error: unknown, step: WorkflowStepView): StepOutcome {
  const agentId = step.type === 'agent_action' ? step.agent_id : null;
  if (error instanceof MissingSecretError) {
    return {
      type: 'failed',
      code: 'secret_not_found',
      message: error.message,
      agentId,
      result: null,
    };
  }
  if (error instanceof ExpressionError) {
    return {
      type: 'failed',
      code: 'invalid_expression',
      message: error.message,
      agentId,
      result: null,
    };
  }
  if (error instanceof ApiError) {
    return { type: 'failed', code: error.code, message: error.message, agentId, result: null };
  }
  return {
    type: 'failed',
    code: 'internal_server_error',
    message: error instanceof Error ? error.message : String(error),
    agentId,
    result: null,
  };
}

/** Secret values never leave a step: results and messages carry [secret:NAME] instead. */
function maskOutcome(outcome: StepOutcome, used: ReadonlyMap<string, string>): StepOutcome {
  if (used.size === 0) return outcome;
  switch (outcome.type) {
    case 'completed':
    case 'waiting':
      return { ...outcome, result: maskSecrets(outcome.result, used) };
    case 'failed':
      return {
        ...outcome,
        message: maskSecrets(outcome.message, used),
        result: maskSecrets(outcome.result, used),
      };
    case 'awaiting_approval':
    case 'fork':
    case 'interrupted':
      return outcome;
  }
}
