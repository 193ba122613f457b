// The API of the agents list and an agent's page: agents with their newest execution, an
// agent's executions (newest first, keyset pages; or only those awaiting approval), its
// knowledge documents and their passages, its sandbox stubs and its analytics. Reads only;
// each answer comes from the service the REST API (or, for stubs, `svc agents stub list`)
// calls. Approve / Reject go through /ui/api/approvals (watch.api.ts).
import { z } from 'zod';
import { AGENT_STATUSES, AGENT_TYPES } from '../../shared/schemas/enums.js';
import { AnalyticsQuery } from '../../shared/schemas/agents.js';
import { listOf, PageQuery, params, WorkspaceQuery, type ApiKit } from './api-kit.js';
import type { DashboardServices } from './deps.js';

const AgentListQuery = PageQuery.extend({
  status: z.enum(AGENT_STATUSES).optional(),
  type: z.enum(AGENT_TYPES).optional(),
});
const ExecutionListQuery = PageQuery.extend({
  awaiting: z.stringbool().optional(),
});
const PassageQuery = WorkspaceQuery.extend({
  after: z.coerce.number().int().min(-1).default(-1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});
const AnalyticsPageQuery = WorkspaceQuery.extend({ period: AnalyticsQuery.shape.period });

export function agentsApi({ read }: ApiKit, services: DashboardServices): void {
  read('/ui/api/agents', AgentListQuery, (input, workspaceId) => {
    const page = listOf(services.agents.list(workspaceId, input));
    return {
      ...page,
      data: page.data.map((agent) => ({
        ...agent,
        last_execution: services.executions.latestOf(agent.id) ?? null,
      })),
    };
  });
  read('/ui/api/agents/:agent_id/executions', ExecutionListQuery, (input, workspaceId, request) =>
    listOf(services.executions.listOfAgent(workspaceId, params(request).agent_id!, input)),
  );
  read('/ui/api/agents/:agent_id/knowledge', PageQuery, (input, workspaceId, request) => {
    const agent = services.agents.row(workspaceId, params(request).agent_id!);
    return listOf(services.knowledge.list(agent.id, input));
  });
  read(
    '/ui/api/agents/:agent_id/knowledge/:document_id/passages',
    PassageQuery,
    (input, workspaceId, request) => {
      const agent = services.agents.row(workspaceId, params(request).agent_id!);
      return services.knowledge.passages(agent.id, params(request).document_id!, input);
    },
  );
  read('/ui/api/agents/:agent_id/stubs', WorkspaceQuery, (_input, workspaceId, request) => {
    const agent = services.agents.row(workspaceId, params(request).agent_id!);
    return { data: services.stubs.list(agent.id) };
  });
  read('/ui/api/agents/:agent_id/analytics', AnalyticsPageQuery, (input, workspaceId, request) =>
    services.analytics.compute(workspaceId, params(request).agent_id!, input),
  );
}
