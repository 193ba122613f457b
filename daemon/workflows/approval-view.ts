// An approval as svc approvals (the control channel) and the dashboard's Approvals page show it:
// the agent execution waiting for a person, with its agent's name, the run and step that asked
// for it, what the agent proposes and how long it has waited. Built here only, for both.
import type { AgentExecutionView } from '../../shared/schemas/agents.js';
import type { ApprovalView } from '../../shared/schemas/control-output.js';
import type { AgentService } from '../agents/agent.service.js';
import type { WorkflowEngine } from '../engine/engine.js';
import type { Clock } from '../time/clock.js';
import type { WorkflowExecutionsService } from './executions.service.js';

export interface ApprovalViewDeps {
  agents: Pick<AgentService, 'find'>;
  runs: Pick<WorkflowExecutionsService, 'runAwaiting'>;
  engine: Pick<WorkflowEngine, 'find'>;
  clock: Pick<Clock, 'now'>;
}

/** The approval view of an agent execution awaiting approval in `workspaceId`. */
export function approvalView(
  deps: ApprovalViewDeps,
  workspaceId: string,
  execution: AgentExecutionView,
): ApprovalView {
  const runId = deps.runs.runAwaiting(execution.execution_id);
  return {
    execution_id: execution.execution_id,
    agent_id: execution.agent_id,
    agent_name: deps.agents.find(execution.agent_id)?.name ?? null,
    workspace_id: workspaceId,
    workflow_execution_id: runId,
    step_id: runId ? stepAwaiting(deps, runId, execution.execution_id) : null,
    proposed: execution.result,
    input: execution.input,
    created_at: execution.created_at,
    waiting_ms: Math.max(0, deps.clock.now() - Date.parse(execution.created_at)),
  };
}

/** The step of `runId` that waits on the agent execution, from the run's step results. */
function stepAwaiting(
  deps: Pick<ApprovalViewDeps, 'engine'>,
  runId: string,
  agentExecutionId: string,
): string | null {
  const run = deps.engine.find(runId);
  const step = run?.step_results.find(
    (result) =>
      result.status === 'awaiting_approval' &&
      (result.result as { agent_execution_id?: unknown } | null)?.agent_execution_id ===
        agentExecutionId,
  );
  return step?.step_id ?? run?.current_step ?? null;
}
