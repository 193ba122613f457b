// /v1/agents: the agent resource, its executions and approvals, messages, knowledge and analytics.
import { DeletedObject } from '../../shared/schemas/common.js';
import {
  Agent,
  AGENT_FIELD_CODES,
  AgentCreateBody,
  AgentExecution,
  AgentListQuery,
  AgentParams,
  AgentUpdateBody,
  Analytics,
  AnalyticsQuery,
  ApproveBody,
  DeployBody,
  DocumentParams,
  ExecuteBody,
  ExecutionParams,
  KnowledgeDocument,
  KnowledgeUploadFields,
  Message,
  MessageBody,
  MessageListQuery,
} from '../../shared/schemas/agents.js';
import { ListQuery } from '../../shared/schemas/common.js';
import { listRoute, objectRoute, tenantRoute, type RouteDef } from '../http/route.js';
import { readUpload } from '../http/upload.js';
import { resourceRoutes } from '../http/resource-routes.js';
import type { RestModule } from '../http/rest-module.js';
import type { AgentService } from './agent.service.js';
import type { AnalyticsService } from './analytics.service.js';
import type { ConversationService } from './conversation.service.js';
import type { ExecutionService } from './execution.service.js';
import { MAX_KNOWLEDGE_BYTES, type KnowledgeService } from './knowledge/knowledge.service.js';

const read = tenantRoute('agents:read');
const write = tenantRoute('agents:write');
const execute = tenantRoute('agents:execute');
const resources = { operation: 'resources' } as const;
const tag = 'Agents';

const agent = resourceRoutes({
  tag,
  path: '/v1/agents',
  idParam: 'agent_id',
  name: { singular: 'agent', plural: 'agents', article: 'an' },
  scopes: { read: 'agents:read', write: 'agents:write' },
  rateLimit: resources,
  notFound: 'agent_not_found',
  item: Agent,
  params: AgentParams,
  listQuery: AgentListQuery,
  createBody: AgentCreateBody,
  updateBody: AgentUpdateBody,
});

export interface AgentRouteDeps {
  agents: AgentService;
  executions: ExecutionService;
  conversations: ConversationService;
  knowledge: KnowledgeService;
  analytics: AnalyticsService;
}

export const agentModule: RestModule<AgentRouteDeps> = { tag: { name: tag }, routes: agentRoutes };

export function agentRoutes({
  agents,
  executions,
  conversations,
  knowledge,
  analytics,
}: AgentRouteDeps): RouteDef[] {
  return [
    agent.list(({ query, ctx }) => agents.list(ctx.workspace.id, query)),
    agent.create(({ body, ctx }) => agents.create(ctx.workspace, body), {
      description:
        'name and ontology are required. The agent starts in training and becomes active after the training period (daemon setting, default 2 s), or at once with PATCH {"status":"active"} or POST /v1/agents/deploy. L4 needs the Business tier.',
      rateLimit: { operation: 'agents.create' },
      fieldCodes: AGENT_FIELD_CODES,
      errors: ['invalid_autonomy_level', 'tier_restriction'],
    }),
    objectRoute({
      method: 'POST',
      path: '/v1/agents/deploy',
      operationId: 'deployAgent',
      summary: 'Deploy an agent (make it active now)',
      tag,
      auth: write,
      rateLimit: { operation: 'agents.deploy' },
      body: DeployBody,
      errors: ['agent_not_found'],
      response: Agent,
      handler: ({ body, ctx }) => agents.deploy(ctx.workspace.id, body.agent_id),
    }),
    agent.get(({ params, ctx }) => agents.get(ctx.workspace.id, params.agent_id)),
    agent.update(({ params, body, ctx }) => agents.update(ctx.workspace, params.agent_id, body), {
      description:
        'Any field; status may be set to active, paused or archived. Objects (guardrails, personality, capabilities) are merged.',
      fieldCodes: AGENT_FIELD_CODES,
      errors: ['invalid_autonomy_level', 'tier_restriction'],
    }),
    agent.delete(({ params, ctx }) => agents.delete(ctx.workspace.id, params.agent_id), {
      summary: 'Delete an agent (irreversible)',
    }),
    objectRoute({
      method: 'POST',
      path: '/v1/agents/:agent_id/execute',
      operationId: 'executeAgent',
      summary: 'Send a task to an agent',
      description:
        'wait_for_completion false (default): 202 with the execution processing. true: 200 with the completed execution, 202 when it awaits approval (L2, or L3/L4 with the action in require_approval_for), or the error of a failed one (403 guardrail_violation, 408 execution_timeout, 502 external_api_error).',
      tag,
      auth: execute,
      rateLimit: { operation: 'agents.execute', perParam: 'agent_id' },
      params: AgentParams,
      body: ExecuteBody,
      status: 202,
      alsoStatus: [200],
      errors: [
        'agent_not_found',
        'agent_not_active',
        'guardrail_violation',
        'execution_timeout',
        'external_api_error',
      ],
      response: AgentExecution,
      handler: async ({ params, body, ctx, reply }) => {
        const { status, execution } = await executions.execute(
          ctx.workspace.id,
          params.agent_id,
          body,
        );
        reply.code(status);
        return execution;
      },
    }),
    objectRoute({
      method: 'GET',
      path: '/v1/agents/:agent_id/executions/:execution_id',
      operationId: 'getAgentExecution',
      summary: 'Retrieve an execution',
      tag,
      auth: read,
      rateLimit: resources,
      params: ExecutionParams,
      errors: ['agent_not_found', 'execution_not_found'],
      response: AgentExecution,
      handler: ({ params, ctx }) =>
        executions.get(ctx.workspace.id, params.agent_id, params.execution_id),
    }),
    objectRoute({
      method: 'POST',
      path: '/v1/agents/:agent_id/executions/:execution_id/approve',
      operationId: 'approveAgentExecution',
      summary: 'Approve or reject an execution awaiting approval',
      description:
        'approve -> completed (agent.execution.completed); reject -> cancelled (agent.execution.failed with status cancelled). Deciding an execution that is not awaiting approval is 409 conflict; one that a workflow step asked for and that was closed with its run (error.code workflow_run_cancelled when the run was cancelled, its workflow deleted included; workflow_run_ended when it failed, timed out, completed or went on without the step, as a first-wins parallel does) says so, naming the run.',
      tag,
      auth: execute,
      rateLimit: resources,
      params: ExecutionParams,
      body: ApproveBody,
      errors: ['agent_not_found', 'execution_not_found', 'conflict'],
      response: AgentExecution,
      handler: ({ params, body, ctx }) =>
        executions.decideApproval(
          ctx.workspace.id,
          params.agent_id,
          params.execution_id,
          body.decision,
          body.notes,
        ),
    }),
    objectRoute({
      method: 'GET',
      path: '/v1/agents/:agent_id/analytics',
      operationId: 'getAgentAnalytics',
      summary: 'Agent analytics for a period',
      tag,
      auth: read,
      rateLimit: resources,
      params: AgentParams,
      query: AnalyticsQuery,
      errors: ['agent_not_found'],
      response: Analytics,
      handler: ({ params, query, ctx }) =>
        analytics.compute(ctx.workspace.id, params.agent_id, query),
    }),
    objectRoute({
      method: 'POST',
      path: '/v1/agents/:agent_id/messages',
      operationId: 'sendAgentMessage',
      summary: 'Send a message; answers with the agent reply',
      description:
        'Starts a conversation (conv_...) unless conversation_id is given. The agent must be active.',
      tag,
      auth: execute,
      rateLimit: resources,
      params: AgentParams,
      body: MessageBody,
      status: 201,
      errors: [
        'agent_not_found',
        'agent_not_active',
        'not_found',
        'external_api_error',
        'execution_timeout',
      ],
      response: Message,
      handler: ({ params, body, ctx }) =>
        conversations.send(ctx.workspace.id, params.agent_id, body),
    }),
    listRoute({
      method: 'GET',
      path: '/v1/agents/:agent_id/messages',
      operationId: 'listAgentMessages',
      summary: 'Conversation history, newest first',
      tag,
      auth: read,
      rateLimit: resources,
      params: AgentParams,
      query: MessageListQuery,
      errors: ['agent_not_found'],
      response: Message,
      handler: ({ params, query, ctx }) =>
        conversations.list(ctx.workspace.id, params.agent_id, query),
    }),
    objectRoute({
      method: 'POST',
      path: '/v1/agents/:agent_id/knowledge',
      operationId: 'uploadAgentKnowledge',
      summary: 'Upload a knowledge document',
      description:
        'multipart/form-data: file (PDF, DOCX, MD or TXT, checked by content, 10 MiB at most), type (faq, policy, product_info, template), description. The text is extracted (in a worker thread), split into passages and indexed; the simulated brain quotes the best-matching passage. 413 payload_too_large when the file is over 10 MiB, extracts to more than 5 MiB of text or 20,000 passages, or cannot be extracted within the time budget; 400 invalid_request_body when the multipart body cannot be read. Nothing is stored on a refusal.',
      tag,
      auth: write,
      rateLimit: resources,
      params: AgentParams,
      upload: KnowledgeUploadFields,
      bodyLimit: MAX_KNOWLEDGE_BYTES + 1024 * 1024,
      status: 201,
      errors: ['agent_not_found'],
      response: KnowledgeDocument,
      handler: async ({ params, ctx, request }) => {
        const agent = agents.row(ctx.workspace.id, params.agent_id);
        const upload = await readUpload(request, KnowledgeUploadFields);
        return knowledge.upload(agent, {
          filename: upload.filename,
          content: upload.content,
          ...upload.fields,
        });
      },
    }),
    listRoute({
      method: 'GET',
      path: '/v1/agents/:agent_id/knowledge',
      operationId: 'listAgentKnowledge',
      summary: 'List knowledge documents',
      tag,
      auth: read,
      rateLimit: resources,
      params: AgentParams,
      query: ListQuery,
      errors: ['agent_not_found'],
      response: KnowledgeDocument,
      handler: ({ params, query, ctx }) =>
        knowledge.list(agents.row(ctx.workspace.id, params.agent_id).id, query),
    }),
    objectRoute({
      method: 'GET',
      path: '/v1/agents/:agent_id/knowledge/:document_id',
      operationId: 'getAgentKnowledge',
      summary: 'Retrieve a knowledge document',
      tag,
      auth: read,
      rateLimit: resources,
      params: DocumentParams,
      errors: ['agent_not_found', 'not_found'],
      response: KnowledgeDocument,
      handler: ({ params, ctx }) =>
        knowledge.get(agents.row(ctx.workspace.id, params.agent_id).id, params.document_id),
    }),
    objectRoute({
      method: 'DELETE',
      path: '/v1/agents/:agent_id/knowledge/:document_id',
      operationId: 'deleteAgentKnowledge',
      summary: 'Delete a knowledge document',
      tag,
      auth: write,
      rateLimit: resources,
      params: DocumentParams,
      errors: ['agent_not_found', 'not_found'],
      response: DeletedObject,
      handler: ({ params, ctx }) =>
        knowledge.delete(agents.row(ctx.workspace.id, params.agent_id).id, params.document_id),
    }),
  ];
}
