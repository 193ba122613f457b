// agent_action: one execution of the step's agent through the agents' own path (guardrails,
// autonomy, stubs, brains). Decided at once by a stub or a local brain (in the transaction that
// reached the step), else after the commit; an execution that needs approval parks the run.
import type { AgentExecutionView, ExecuteInput } from '../../../shared/schemas/agents.js';
import type { DecidedExecution } from '../../agents/execution.service.js';
import { ApiError } from '../../domain/errors.js';
import { interpolate } from '../expressions.js';
import { maskSecrets } from '../secret-masking.js';
import type { StepKind, StepOf, StepRun } from './kind.js';
import { nextOf, type StepOutcome } from './outcome.js';

type AgentStep = StepOf<'agent_action'>;

export const agentAction: StepKind<'agent_action'> = {
  checkStep(step, check) {
    if (typeof step.agent_id !== 'string' || step.agent_id === '') {
      throw check.invalid(
        `${check.at}.agent_id`,
        `Step '${step.id}' (agent_action) needs agent_id: the agent that acts.`,
      );
    }
    if (!check.agentExists(step.agent_id)) {
      throw check.invalid(
        `${check.at}.agent_id`,
        `Step '${step.id}' names agent ${step.agent_id}, which does not exist in this workspace.`,
      );
    }
  },

  runNow(run) {
    const agentId = run.step.agent_id!;
    const input = agentInput(run);
    let decided: DecidedExecution | undefined;
    try {
      decided = run.deps.agents.decideLocally(run.context.workspaceId, agentId, input);
    } catch (error) {
      return agentFailure(error, agentId);
    }
    return decided && agentOutcome(run.step, decided.answer, decided.store);
  },

  // Straight to decideNow, which a local brain answers as well: trying decideLocally first
  // would admit its execution twice.
  async runLater(run) {
    const { context, step, deps } = run;
    const agentId = step.agent_id!;
    const input = agentInput(run);
    try {
      const decided = await deps.agents.decideNow(context.workspaceId, agentId, input);
      if (decided) return agentOutcome(step, decided.answer, decided.store);
      const answer = await context.untilDue(
        deps.agents.execute(context.workspaceId, agentId, input),
      );
      return agentOutcome(step, () => answer);
    } catch (error) {
      return agentFailure(error, agentId);
    }
  },
};

/**
 * The execution's input. Agents see [secret:NAME] where a secret was interpolated: their
 * executions are stored and shown, and secret values never are.
 */
function agentInput({ context, step, scope, used }: StepRun<AgentStep>): ExecuteInput {
  const action = String(step.config.action);
  // One budget for the whole step: its strings together expand to a bounded size, within its run's.
  const budget = context.budget;
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
        ...(extras === null ? {} : (interpolate(extras, scope, budget) as Record<string, unknown>)),
      },
      used,
    ),
    wait_for_completion: true,
  };
}

/** What an agent execution's answer means for the step (a failed one throws ApiError). */
function agentOutcome(
  step: AgentStep,
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
    return { type: 'awaiting_approval', agentExecutionId: execution.execution_id, agentId, store };
  }
  // Still processing: the daemon is shutting down and released the wait.
  return { type: 'interrupted' };
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
const extrasByStep = new WeakMap<AgentStep, Record<string, unknown> | null>();

function extrasOf(step: AgentStep): Record<string, unknown> | null {
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
