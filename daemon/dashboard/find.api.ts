// The API behind deep links: which page shows an id (the search box), and the pages an id can
// land on besides runs, webhooks and workflows (workflow.api.ts): an agent, an agent execution.
import { z } from 'zod';
import { ApiError } from '../domain/errors.js';
import { params, WorkspaceQuery, type ApiKit } from './api-kit.js';
import type { DashboardServices } from './deps.js';
import type { Locator } from './locate.js';

const LocateQuery = WorkspaceQuery.extend({ id: z.string().trim().min(1).max(200) });

export function findApi({ read }: ApiKit, services: DashboardServices, locator: Locator): void {
  read('/ui/api/locate', LocateQuery, (input) => locator.locate(input.id));
  read('/ui/api/agents/:agent_id', WorkspaceQuery, (_input, workspaceId, request) =>
    services.agents.get(workspaceId, params(request).agent_id!),
  );
  read('/ui/api/agent-executions/:execution_id', WorkspaceQuery, (_input, workspaceId, request) => {
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
  });
}
