// How an agent execution is shown: its API view and the data of its agent.execution.* events.
import type { AgentExecutionView } from '../../shared/schemas/agents.js';
import { toIso } from '../time/clock.js';
import type { AgentRow } from './agent.repository.js';
import type { ExecutionRow } from './execution.repository.js';

/** The data of an agent.execution.* event: the view, with the agent's name. */
export function executionEventData(
  agent: Pick<AgentRow, 'id' | 'name'>,
  row: ExecutionRow,
): Record<string, unknown> {
  const view = toExecutionView(row);
  return {
    execution_id: view.execution_id,
    agent_id: view.agent_id,
    agent_name: agent.name,
    status: view.status,
    result: view.result,
    execution_time_ms: view.execution_time_ms,
    created_at: view.created_at,
    completed_at: view.completed_at,
    ...(view.error ? { error: view.error } : {}),
  };
}

export function toExecutionView(row: ExecutionRow): AgentExecutionView {
  return {
    execution_id: row.id,
    agent_id: row.agent_id,
    status: row.status,
    input: row.input,
    result:
      row.action === null
        ? null
        : { action: row.action, output: row.output ?? '', confidence: row.confidence ?? 0 },
    error:
      row.error_code === null ? null : { code: row.error_code, message: row.error_message ?? '' },
    execution_time_ms: row.execution_time_ms,
    approval:
      row.decision === null
        ? null
        : {
            decision: row.decision,
            notes: row.decision_notes,
            decided_at: toIso(row.decided_at ?? row.created_at),
          },
    created_at: toIso(row.created_at),
    completed_at: toIso(row.completed_at),
  };
}
