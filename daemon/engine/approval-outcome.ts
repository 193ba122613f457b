// The outcome of an agent step that waited for a person, once its agent execution is decided:
// approved (completed, with the action taken), rejected, or failed.
import type { StepOutcome } from './steps/outcome.js';

import type { SettledAgentExecution } from '../domain/hooks.js';

export type { SettledAgentExecution };

/** Undefined while the execution is undecided (a run waiting on it waits on). */
export function approvalOutcome(agentExecution: SettledAgentExecution): StepOutcome | undefined {
  // Only a decided (or ended) execution can release a run; most are settled as they start.
  if (agentExecution.status === 'awaiting_approval' || agentExecution.status === 'processing') {
    return undefined;
  }
  if (agentExecution.status === 'completed') {
    return {
      type: 'completed',
      result: {
        agent_execution_id: agentExecution.id,
        action: agentExecution.action,
        output: agentExecution.output,
        confidence: agentExecution.confidence,
      },
      next: [],
    };
  }
  return {
    type: 'failed',
    code:
      agentExecution.status === 'cancelled'
        ? 'approval_rejected'
        : (agentExecution.error_code ?? 'step_failed'),
    message:
      agentExecution.status === 'cancelled'
        ? (agentExecution.error_message ?? 'The reviewer rejected the action.')
        : (agentExecution.error_message ?? 'The agent execution failed.'),
    agentId: agentExecution.agent_id,
    result: null,
  };
}
