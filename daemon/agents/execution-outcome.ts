// What an agent execution comes to, decided apart from any store or clock (the service passes
// `now`): a new row, the guardrails' and autonomy level's judgement of a thought, the row a
// judgement finishes, and what the API answers for a row.
import { newId } from '../../shared/ids.js';
import type { AgentExecutionView, AgentView, ExecuteInput } from '../../shared/schemas/agents.js';
import { ERROR_CODES, type ErrorCode } from '../../shared/errors.js';
import { ApiError } from '../domain/errors.js';
import type { AgentRow } from './agent.repository.js';
import type { BrainResult } from './brains/brain.js';
import type { ExecutionRow } from './execution.repository.js';
import { toExecutionView } from './execution-views.js';
import type { Thought } from './thinker.js';

/** What a finished thought turns into. */
export type Outcome =
  | { type: 'completed'; result: BrainResult }
  | { type: 'awaiting_approval'; result: BrainResult }
  | {
      type: 'failed';
      result: BrainResult | null;
      code: ErrorCode;
      message: string;
      injectedFault?: string | undefined;
    };

/** What execute() answers: the HTTP status and the execution. */
export interface ExecuteAnswer {
  status: 200 | 202;
  execution: AgentExecutionView;
}

/** A new execution of `agent`, processing, created `now`. */
export function newExecutionRow(
  agent: AgentRow,
  workspaceId: string,
  input: ExecuteInput,
  now: number,
): ExecutionRow {
  return {
    id: newId('agentExecution'),
    agent_id: agent.id,
    workspace_id: workspaceId,
    status: 'processing',
    autonomy_level: agent.autonomy_level,
    input: input.input,
    context: JSON.stringify(input.context ?? {}),
    action: null,
    output: null,
    confidence: null,
    error_code: null,
    error_message: null,
    execution_time_ms: null,
    needed_approval: 0,
    decision: null,
    decision_notes: null,
    created_at: now,
    completed_at: null,
    decided_at: null,
    injected_fault: null,
  };
}

/** Guardrails and autonomy turn a proposal into an outcome. */
export function judge(
  agent: Pick<AgentRow, 'autonomy_level'>,
  guardrails: AgentView['guardrails'],
  thought: Thought,
): Outcome {
  if ('error' in thought)
    return {
      type: 'failed',
      result: null,
      code: thought.error.code,
      message: thought.error.message,
      injectedFault: thought.injectedFault,
    };
  if (guardrails.blocked_actions.includes(thought.action)) {
    return {
      type: 'failed',
      result: thought,
      code: 'guardrail_violation',
      message: `The action '${thought.action}' is blocked by the agent's guardrails (blocked_actions).`,
    };
  }
  switch (agent.autonomy_level) {
    case 'L1':
      return {
        type: 'completed',
        result: { ...thought, output: `Suggestion (not executed): ${thought.output}` },
      };
    case 'L2':
      return { type: 'awaiting_approval', result: thought };
    default:
      return guardrails.require_approval_for.includes(thought.action)
        ? { type: 'awaiting_approval', result: thought }
        : { type: 'completed', result: thought };
  }
}

/** The row `outcome` leaves, `timeMs` after it started, finished `now` unless it waits. */
export function finish(
  row: ExecutionRow,
  outcome: Outcome,
  timeMs: number,
  now: number,
): ExecutionRow {
  const result = outcome.result;
  return {
    ...row,
    status: outcome.type,
    action: result?.action ?? null,
    output: result?.output ?? null,
    confidence: result?.confidence ?? null,
    error_code: outcome.type === 'failed' ? outcome.code : null,
    error_message: outcome.type === 'failed' ? outcome.message : null,
    execution_time_ms: timeMs,
    needed_approval: outcome.type === 'awaiting_approval' ? 1 : 0,
    completed_at: outcome.type === 'awaiting_approval' ? null : now,
    injected_fault: outcome.type === 'failed' ? (outcome.injectedFault ?? null) : null,
  };
}

/** The answer for a stored execution: 200 completed, 202 waiting, or its error thrown. */
export function answerOf(agent: Pick<AgentRow, 'id'>, row: ExecutionRow): ExecuteAnswer {
  if (row.status === 'failed') {
    const code = (row.error_code ?? 'internal_server_error') as ErrorCode;
    throw new ApiError(
      code in ERROR_CODES ? code : 'internal_server_error',
      row.error_message ?? 'The execution failed.',
      {
        extras: {
          execution_id: row.id,
          agent_id: agent.id,
          ...(row.injected_fault ? { injected_fault: row.injected_fault } : {}),
        },
      },
    );
  }
  return { status: row.status === 'completed' ? 200 : 202, execution: toExecutionView(row) };
}
