// The API of the agents list and an agent's page: agents with their newest execution, an
// agent's executions (newest first, keyset pages; or only those awaiting approval), its
// knowledge documents and their passages, its sandbox stubs and its analytics. Reads only;
// each answer comes from the service the REST API (or, for stubs, `svc agents stub list`)
// calls, in its view. Approve / Reject go through /ui/api/approvals (watch.api.ts).
import { z } from 'zod';
import { AGENT_STATUSES, AGENT_TYPES } from '../../shared/schemas/enums.js';
import {
  Agent,
  AgentExecution,
  Analytics,
  AnalyticsQuery,
  KnowledgeDocument,
} from '../../shared/schemas/agents.js';
import { StubView } from '../../shared/schemas/control-output.js';
import {
  ListOf,
  listOf,
  PageQuery,
  params,
  route,
  WorkspaceQuery,
  type ApiKit,
} from './api-kit.js';
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

/** A document's passages in its order; `next_after` continues after the last one shown. */
const PassagePage = z.object({
  data: z.array(
    z.object({ seq: z.number().int(), heading: z.string().nullable(), text: z.string() }),
  ),
  has_more: z.boolean(),
  next_after: z.number().int().nullable(),
});

export const agentsRoutes = {
  'GET /agents': route(
    AgentListQuery,
    ListOf(Agent.extend({ last_execution: AgentExecution.nullable() })),
  ),
  'GET /agents/:agent_id/executions': route(ExecutionListQuery, ListOf(AgentExecution)),
  'GET /agents/:agent_id/knowledge': route(PageQuery, ListOf(KnowledgeDocument)),
  'GET /agents/:agent_id/knowledge/:document_id/passages': route(PassageQuery, PassagePage),
  'GET /agents/:agent_id/stubs': route(WorkspaceQuery, z.object({ data: z.array(StubView) })),
  'GET /agents/:agent_id/analytics': route(AnalyticsPageQuery, Analytics),
};

export function agentsApi(kit: ApiKit, services: DashboardServices): void {
  kit.serve(agentsRoutes, {
    'GET /agents': (input, workspaceId) => {
      const page = listOf(services.agents.list(workspaceId, input));
      return {
        ...page,
        data: page.data.map((agent) => ({
          ...agent,
          last_execution: services.executions.latestOf(agent.id) ?? null,
        })),
      };
    },
    'GET /agents/:agent_id/executions': (input, workspaceId, request) =>
      listOf(services.executions.listOfAgent(workspaceId, params(request).agent_id!, input)),
    'GET /agents/:agent_id/knowledge': (input, workspaceId, request) => {
      const agent = services.agents.row(workspaceId, params(request).agent_id!);
      return listOf(services.knowledge.list(agent.id, input));
    },
    'GET /agents/:agent_id/knowledge/:document_id/passages': (input, workspaceId, request) => {
      const agent = services.agents.row(workspaceId, params(request).agent_id!);
      return services.knowledge.passages(agent.id, params(request).document_id!, input);
    },
    'GET /agents/:agent_id/stubs': (_input, workspaceId, request) => {
      const agent = services.agents.row(workspaceId, params(request).agent_id!);
      return { data: services.stubs.list(agent.id) };
    },
    'GET /agents/:agent_id/analytics': (input, workspaceId, request) =>
      services.analytics.compute(workspaceId, params(request).agent_id!, input),
  });
}
