// What running one step once comes to (StepOutcome, which the engine records in one
// transaction), and the mappings every step type shares: an error to a failed outcome, secret
// values masked out of results and messages.
import type { ErrorCode } from '../../../shared/errors.js';
import type { TypedStep } from '../../../shared/schemas/steps.js';
import { ApiError } from '../../domain/errors.js';
import { ExpressionError, MissingSecretError, RunBudgetError } from '../expressions.js';
import { maskSecrets } from '../secret-masking.js';

/** The result of running one step once. */
export type StepOutcome = (
  | { type: 'completed'; result: unknown; next: string[] }
  | {
      type: 'failed';
      code: ErrorCode;
      message: string;
      agentId: string | null;
      result: unknown;
      /** Its call's answer was never heard (lostCall): the attempt's row stays unknown. */
      lost?: true;
    }
  | { type: 'waiting'; wakeAt: number; result: unknown }
  | { type: 'awaiting_approval'; agentExecutionId: string; agentId: string }
  | { type: 'fork'; children: string[]; waitForAll: boolean }
  /** The process is stopping: leave the step as it was, it runs again after the restart. */
  | { type: 'interrupted' }
) & {
  /**
   * Characters the attempt's interpolation produced, added to its run's total (RunState) when the
   * outcome is recorded. Set by StepRunner.
   */
  interpolated?: number;
  /** The sandbox fault rule (flt_...) that produced this outcome (svc faults). */
  injectedFault?: string | null | undefined;
  /**
   * The step's own records (an agent step's execution, decided at once), written in the
   * transaction that records the outcome: one commit per step, and never one without the other.
   */
  store?: () => void;
};

/** The step its next_step_id names, if any. */
export function nextOf(step: TypedStep): string[] {
  return step.next_step_id ? [step.next_step_id] : [];
}

/** The agent a failed step names (agent steps only). */
export function agentOf(step: TypedStep): string | null {
  return step.type === 'agent_action' ? step.agent_id : null;
}

/**
 * An attempt whose call was stored as sent (status unknown) and never answered: the daemon
 * stopped while it was in flight. It counts as a failed attempt of the step.
 */
export function lostCall(step: TypedStep, attempt: number): StepOutcome {
  return {
    type: 'failed',
    code: 'external_api_error',
    message: `Step ${step.id}: the daemon stopped while the call of attempt ${attempt} was in flight; its outcome is unknown (the receiver may have got it).`,
    agentId: agentOf(step),
    result: null,
    lost: true,
  };
}

/** What an error thrown while running a step means for it. */
export function failure(error: unknown, step: TypedStep): StepOutcome {
  const agentId = agentOf(step);
  if (error instanceof MissingSecretError) {
    return {
      type: 'failed',
      code: 'secret_not_found',
      message: error.message,
      agentId,
      result: null,
    };
  }
  if (error instanceof ExpressionError || error instanceof RunBudgetError) {
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
export function maskOutcome(outcome: StepOutcome, used: ReadonlyMap<string, string>): StepOutcome {
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
