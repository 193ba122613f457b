// svc approvals list|approve|reject (and the testing kit's sb.approvals): the agent executions
// waiting for a person's decision in a workspace, each with the run and step that asked for it,
// and a decision by the execution id alone (its agent is looked up). The decision itself is the
// one the REST approve makes (ExecutionService.decideApproval): no second implementation.
import type { AgentExecutionView } from '../../shared/schemas/agents.js';
import { ApprovalDecideInput, ApprovalListInput } from '../../shared/schemas/control.js';
import { ApprovalDecided, ApprovalPage } from '../../shared/schemas/control-output.js';
import { ApiError } from '../domain/errors.js';
import { approvalView } from '../workflows/approval-view.js';
import type { ControlDeps } from './deps.js';
import { operator, t } from './procedure.js';

export function approvalProcedures(deps: ControlDeps) {
  const { executions, workspaces } = deps;
  const view = (workspaceId: string, execution: AgentExecutionView) =>
    approvalView(deps, workspaceId, execution);
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
