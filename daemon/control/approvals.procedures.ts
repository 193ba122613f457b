// svc approvals list|approve|reject (and the testing kit's sb.approvals): the agent executions
// waiting for a person's decision in a workspace, each with the run and step that asked for it,
// and a decision by the execution id alone (its agent is looked up). The decision itself is the
// one the REST approve makes (ExecutionService.decideApproval): no second implementation.
import type { AgentExecutionView } from '../../shared/schemas/agents.js';
import { ApprovalDecideInput, ApprovalListInput } from '../../shared/schemas/control.js';
import {
  ApprovalDecided,
  ApprovalPage,
  type ApprovalView,
} from '../../shared/schemas/control-output.js';
import { ApiError } from '../domain/errors.js';
import type { ControlDeps } from './deps.js';
import { operator, t } from './procedure.js';

export function approvalProcedures(deps: ControlDeps) {
  const { executions, workspaces, clock } = deps;
  const view = (workspaceId: string, execution: AgentExecutionView): ApprovalView => {
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
      waiting_ms: Math.max(0, clock.now() - Date.parse(execution.created_at)),
    };
  };
  return {
    approvals: t.router({
      list: operator
        .input(ApprovalListInput)
        .output(ApprovalPage)
        .query(({ input }) => {
          const workspaceId = workspaces.existingId(input?.workspace_id);
          const page = executions.awaitingApproval(workspaceId, {
            limit: input?.limit,
            starting_after: input?.starting_after,
          });
          const data = page.items.map((execution) => view(workspaceId, execution));
          const nextCursor = page.hasMore ? (data.at(-1)?.execution_id ?? null) : null;
          return {
            data,
            has_more: page.hasMore,
            total_count: page.totalCount,
            meta: { has_more: page.hasMore, next_cursor: nextCursor },
          };
        }),
      /** approve -> completed, reject -> cancelled, as POST .../approve decides it. */
      decide: operator
        .input(ApprovalDecideInput)
        .output(ApprovalDecided)
        .mutation(({ input }) => {
          const owner = executions.owner(input.execution_id);
          if (!owner) {
            throw new ApiError(
              'execution_not_found',
              `No agent execution ${input.execution_id}. List those waiting for a decision with: svc approvals`,
            );
          }
          return executions.decideApproval(
            owner.workspace_id,
            owner.agent_id,
            input.execution_id,
            input.decision,
            input.reason,
          );
        }),
    }),
  };
}

/** The step of `runId` that waits on the agent execution, from the run's step results. */
function stepAwaiting(deps: ControlDeps, runId: string, agentExecutionId: string): string | null {
  const run = deps.engine.find(runId);
  const step = run?.step_results.find(
    (result) =>
      result.status === 'awaiting_approval' &&
      (result.result as { agent_execution_id?: unknown } | null)?.agent_execution_id ===
        agentExecutionId,
  );
  return step?.step_id ?? run?.current_step ?? null;
}
