// The API behind deep links: which page shows an id (the search box), and the pages an id can
// land on besides runs, webhooks and workflows (workflow.api.ts): an agent, an agent execution.
import { z } from 'zod';
import { Agent, AgentExecution } from '../../shared/schemas/agents.js';
import { ApiError } from '../domain/errors.js';
import { Location } from './answers.js';
import { params, route, WorkspaceQuery, type ApiKit } from './api-kit.js';
import type { DashboardServices } from './deps.js';
import type { Locator } from './locate.js';

const LocateQuery = WorkspaceQuery.extend({ id: z.string().trim().min(1).max(200) });

export const findRoutes = {
  'GET /locate': route(LocateQuery, Location),
  'GET /agents/:agent_id': route(WorkspaceQuery, Agent),
  'GET /agent-executions/:execution_id': route(
    WorkspaceQuery,
    z.object({
      execution: AgentExecution,
      /** Null once the agent is deleted. */
      agent_name: z.string().nullable(),
      /** The workflow run waiting on its approval, when a workflow's agent step asked. */
      workflow_execution_id: z.string().nullable(),
    }),
  ),
};

export function findApi(kit: ApiKit, services: DashboardServices, locator: Locator): void {
  kit.serve(findRoutes, {
    'GET /locate': (input) => locator.locate(input.id),
    'GET /agents/:agent_id': (_input, workspaceId, request) =>
      services.agents.get(workspaceId, params(request).agent_id!),
    'GET /agent-executions/:execution_id': (_input, workspaceId, request) => {
      const executionId = params(request).execution_id!;
      const owner = services.executions.owner(executionId);
      if (!owner || owner.workspace_id !== workspaceId) {
        throw new ApiError(
          'execution_not_found',
          `No agent execution ${executionId} in this workspace (executions are kept 30 days).`,
          { param: 'execution_id' },
        );
      }
      const execution = services.executions.get(workspaceId, owner.agent_id, executionId);
      return {
        execution,
        agent_name: services.agents.find(owner.agent_id)?.name ?? null,
        workflow_execution_id: services.runs.runAwaiting(executionId),
      };
    },
  });
}
