// The services the dashboard reads and drives (the composition root passes its own): the same
// ones the REST API and the control channel call.
import type { WorkflowView } from '../../shared/schemas/workflows.js';
import type { AgentService } from '../agents/agent.service.js';
import type { ExecutionService } from '../agents/execution.service.js';
import type { WorkflowEngine } from '../engine/engine.js';
import type { Hooks } from '../domain/hooks.js';
import type { EventService } from '../events/event.service.js';
import type { FaultService } from '../faults/fault.service.js';
import type { KeyService } from '../keys/key.service.js';
import type { SecretService } from '../secrets/secret.service.js';
import type { TemplateService } from '../templates/template.service.js';
import type { ClockService } from '../time/clock.service.js';
import type { TriggerService } from '../triggers/trigger.service.js';
import type { DeliveryService } from '../webhooks/deliveries/delivery.service.js';
import type { WebhookService } from '../webhooks/webhook.service.js';
import type { WorkflowExecutionsService } from '../workflows/executions.service.js';
import type { WorkflowService } from '../workflows/workflow.service.js';
import type { WorkspaceService } from '../workspaces/workspace.service.js';
import type { AnalyticsService } from '../agents/analytics.service.js';
import type { KnowledgeService } from '../agents/knowledge/knowledge.service.js';
import type { StubService } from '../agents/stub.service.js';

export interface DashboardServices {
  agents: AgentService;
  clockService: ClockService;
  deliveries: DeliveryService;
  engine: WorkflowEngine;
  /** The live page follows the runChanged hook. */
  hooks: Pick<Hooks, 'add'>;
  events: EventService;
  executions: ExecutionService;
  faults: FaultService;
  keys: KeyService;
  runs: WorkflowExecutionsService;
  secrets: SecretService;
  triggers: TriggerService;
  /** Its workflow type is the REST API's view, which the dashboard answers too. */
  templates: TemplateService<WorkflowView>;
  webhooks: WebhookService;
  workflows: WorkflowService;
  workspaces: WorkspaceService;
  /** The agents list and agent page (agents.api.ts). */
  analytics: AnalyticsService;
  knowledge: KnowledgeService;
  stubs: StubService;
}
