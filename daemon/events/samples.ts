// Realistic sample payloads for each event type, in the spec's data shapes: used by
// `svc events trigger` (and by the webhook test endpoint), so receivers can be built before
// the real thing happens.
import { newId } from '../../shared/ids.js';
import type { EventType } from '../../shared/schemas/events.js';

export function sampleEventData(
  type: EventType,
  workspaceId: string,
  nowIso: string,
): Record<string, unknown> {
  const agentId = newId('agent');
  const workflowId = newId('workflow');
  const agent = {
    id: agentId,
    workspace_id: workspaceId,
    name: 'Sample support agent',
    description: 'Answers customer questions',
    type: 'customer-service',
    ontology: 'retail-v1',
    autonomy_level: 'L2',
    status: 'active',
    capabilities: { answer_questions: true, issue_refunds: false },
    guardrails: {
      require_approval_for: ['issue_refund'],
      blocked_actions: [],
      rate_limits: { actions_per_hour: 100 },
    },
    personality: { tone: 'friendly', response_length: 'short', empathy_level: 'high' },
    created_at: nowIso,
    updated_at: nowIso,
    last_active_at: null,
    stats: { total_interactions: 0, success_rate: 0, avg_response_time_ms: 0 },
  };
  const agentExecution = {
    execution_id: newId('agentExecution'),
    agent_id: agentId,
    agent_name: agent.name,
    status: 'processing',
    created_at: nowIso,
  };
  const workflow = {
    id: workflowId,
    workspace_id: workspaceId,
    name: 'Sample order follow-up',
    description: 'Classifies an order and notifies the team',
    status: 'active',
    trigger: { type: 'manual', config: {} },
    steps: [
      {
        id: 'classify',
        name: 'Classify',
        type: 'agent_action',
        agent_id: agentId,
        config: { action: 'classify', input_mapping: {} },
      },
    ],
    settings: {
      timeout_seconds: 300,
      retry_policy: { max_attempts: 3, backoff_multiplier: 2 },
      error_handling: 'stop',
    },
    created_at: nowIso,
    updated_at: nowIso,
    last_executed_at: null,
    stats: { total_executions: 0, success_rate: 0, avg_duration_seconds: 0 },
  };
  const workflowExecution = {
    execution_id: newId('workflowExecution'),
    workflow_id: workflowId,
    workflow_name: workflow.name,
    status: 'running',
    steps_completed: 0,
    steps_total: 1,
    created_at: nowIso,
  };
  const integration = {
    id: newId('integration'),
    workspace_id: workspaceId,
    provider: 'slack',
    name: 'Team Slack',
    status: 'connected',
    created_at: nowIso,
  };

  switch (type) {
    case 'agent.created':
    case 'agent.updated':
      return agent;
    case 'agent.deleted':
      return { id: agentId, deleted: true };
    case 'agent.execution.started':
      return agentExecution;
    case 'agent.execution.awaiting_approval':
      return {
        ...agentExecution,
        status: 'awaiting_approval',
        result: { action: 'issue_refund', output: 'Refund of $25 proposed', confidence: 0.82 },
      };
    case 'agent.execution.completed':
      return {
        ...agentExecution,
        status: 'completed',
        result: {
          action: 'answer_question',
          output: 'Your order ships tomorrow.',
          confidence: 0.91,
        },
        execution_time_ms: 420,
        completed_at: nowIso,
      };
    case 'agent.execution.failed':
      return {
        ...agentExecution,
        status: 'failed',
        error: { code: 'external_api_error', message: 'The model endpoint did not answer.' },
        failed_at: nowIso,
      };
    case 'workflow.created':
    case 'workflow.updated':
      return workflow;
    case 'workflow.deleted':
      return { id: workflowId, deleted: true };
    case 'workflow.execution.started':
      return workflowExecution;
    case 'workflow.execution.completed':
      return {
        ...workflowExecution,
        status: 'completed',
        steps_completed: 1,
        result: { category: 'shipping' },
        duration_seconds: 1.2,
        completed_at: nowIso,
      };
    case 'workflow.execution.failed':
      return {
        ...workflowExecution,
        status: 'failed',
        failed_step: 'classify',
        error: {
          code: 'step_failed',
          message: 'The agent step failed.',
          details: { step_id: 'classify', agent_id: agentId },
        },
        failed_at: nowIso,
      };
    case 'workflow.execution.step_completed':
      return {
        execution_id: workflowExecution.execution_id,
        workflow_id: workflowId,
        step_id: 'classify',
        status: 'completed',
        result: { category: 'shipping' },
        duration_ms: 350,
        completed_at: nowIso,
      };
    case 'integration.connected':
      return integration;
    case 'integration.disconnected':
      return { id: integration.id };
    case 'integration.error':
      return {
        integration_id: integration.id,
        provider: 'slack',
        error: { code: 'integration_auth_failed', message: 'The Slack token was revoked.' },
        occurred_at: nowIso,
      };
  }
}
