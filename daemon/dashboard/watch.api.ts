// The API of the pages that watch the sandbox and act on what they see: overview, runs (cancel,
// run again), approvals, webhooks and their deliveries (resend, resume), events, the clock. Each
// calls the service the REST API and the control channel call: no second implementation.
import { z } from 'zod';
import { AgentExecution } from '../../shared/schemas/agents.js';
import { ApprovalView, ClockState } from '../../shared/schemas/control-output.js';
import { Event, EVENT_TYPES } from '../../shared/schemas/events.js';
import { Delivery, DeliveryDetail, Webhook } from '../../shared/schemas/webhooks.js';
import {
  CancelledExecution,
  ExecuteAnswer,
  Workflow,
  WORKFLOW_EXECUTION_STATUSES,
  WorkflowExecution,
} from '../../shared/schemas/workflows.js';
import type { DaemonStatus } from '../control/deps.js';
import { overviewOf, RunDetail } from './answers.js';
import {
  ListOf,
  listOf,
  NoBody,
  PageQuery,
  params,
  route,
  WorkspaceQuery,
  type ApiKit,
} from './api-kit.js';
import type { DashboardServices } from './deps.js';
import type { Clock } from '../time/clock.js';
import { approvalView } from '../workflows/approval-view.js';
import { laneOf } from './lanes.js';
import { copiedStepCount } from './reruns.js';
import { stepGraph } from './step-graph.js';

const RunListQuery = PageQuery.extend({
  workflow_id: z.string().max(100).optional(),
  status: z.enum(WORKFLOW_EXECUTION_STATUSES).optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
});
const EventListQuery = PageQuery.extend({ type: z.string().max(500).optional() });
const DeliveryListQuery = PageQuery.extend({
  status: z.enum(['pending', 'delivered', 'failed']).optional(),
});
const ApprovalBody = z.strictObject({
  agent_id: z.string().min(1).max(100),
  decision: z.enum(['approve', 'reject']),
  notes: z.string().max(1000).optional(),
});
const RerunBody = z.strictObject({ from_step_id: z.string().min(1).max(64).optional() });
const AdvanceBody = z.strictObject({
  ms: z
    .number()
    .int()
    .min(1)
    .max(366 * 86_400_000),
});

/**
 * An agent execution awaiting approval, with what the CLI's approvals list shows of it (its
 * agent's name, the run and step that asked, what it proposes, how long it has waited): one view,
 * built by workflows/approval-view.ts for both.
 */
const Approval = AgentExecution.extend(
  ApprovalView.pick({
    agent_name: true,
    workflow_execution_id: true,
    step_id: true,
    proposed: true,
    waiting_ms: true,
  }).shape,
);

export const watchRoutes = {
  'GET /overview': route(WorkspaceQuery, overviewOf(Webhook, AgentExecution)),
  'GET /workflows': route(PageQuery, ListOf(Workflow)),
  'GET /runs': route(RunListQuery, ListOf(WorkflowExecution)),
  'GET /runs/:execution_id': route(WorkspaceQuery, RunDetail),
  'POST /runs/:execution_id/cancel': route(NoBody, CancelledExecution),
  'POST /runs/:execution_id/run-again': route(NoBody, ExecuteAnswer),
  'POST /runs/:execution_id/rerun': route(RerunBody, ExecuteAnswer),
  'GET /approvals': route(PageQuery, ListOf(Approval)),
  'POST /approvals/:execution_id': route(ApprovalBody, AgentExecution),
  'GET /webhooks': route(PageQuery, ListOf(Webhook)),
  'POST /webhooks/:webhook_id/resume': route(NoBody, Webhook),
  'GET /webhooks/:webhook_id/deliveries': route(DeliveryListQuery, ListOf(Delivery)),
  'GET /webhooks/:webhook_id/deliveries/:delivery_id': route(WorkspaceQuery, DeliveryDetail),
  'POST /webhooks/:webhook_id/deliveries/:delivery_id/resend': route(NoBody, DeliveryDetail),
  'GET /events': route(EventListQuery, ListOf(Event)),
  'GET /event-types': route(WorkspaceQuery, z.array(z.enum(EVENT_TYPES))),
  'GET /clock': route(WorkspaceQuery, ClockState),
  'POST /clock/advance': route(AdvanceBody, ClockState),
};

export function watchApi(
  kit: ApiKit,
  services: DashboardServices,
  daemonStatus: () => DaemonStatus,
  clock: Pick<Clock, 'now'>,
): void {
  kit.serve(watchRoutes, {
    'GET /overview': (_input, workspaceId) => {
      const status = daemonStatus();
      const approvals = services.executions.awaitingApproval(workspaceId, { limit: 5 });
      return {
        clock: services.clockService.show(),
        environment: status.environment,
        data_dir: status.data_dir,
        url: status.url,
        version: status.version,
        started_at: status.started_at,
        pending_timers: status.pending_timers,
        runs_last_hour: services.runs.statusCounts(workspaceId, 3_600_000),
        failing_webhooks: listOf(services.webhooks.list(workspaceId, { status: 'failed' })),
        awaiting_approval: listOf(approvals),
      };
    },
    // Paged like the runs: the Workflows page asks a page at a time; without a limit (the runs
    // page's workflow filter), the newest 100.
    'GET /workflows': (input, workspaceId) =>
      listOf(services.workflows.list(workspaceId, { ...input, limit: input.limit ?? 100 })),
    'GET /runs': (input, workspaceId) =>
      listOf(
        services.runs.listInWorkspace(workspaceId, {
          ...input,
          from: input.from === undefined ? undefined : Date.parse(input.from),
          to: input.to === undefined ? undefined : Date.parse(input.to),
        }),
      ),
    'GET /runs/:execution_id': (_input, workspaceId, request) => {
      const detail = services.runs.detail(workspaceId, params(request).execution_id!);
      return {
        ...detail,
        lanes: laneOf(detail.steps),
        graph: stepGraph(detail.steps),
        copied_steps: copiedStepCount(detail.execution),
      };
    },
    'POST /runs/:execution_id/cancel': (_input, workspaceId, request) =>
      services.runs.cancelInWorkspace(workspaceId, params(request).execution_id!),
    'POST /runs/:execution_id/run-again': async (_input, workspaceId, request) =>
      (await services.runs.runAgain(workspaceId, params(request).execution_id!)).execution,
    // Re-run from a step chosen on the timeline (the REST rerun; without a step: the whole run).
    'POST /runs/:execution_id/rerun': async (input, workspaceId, request) => {
      const executionId = params(request).execution_id!;
      const { workflow_id: workflowId } = services.runs.detail(workspaceId, executionId).execution;
      const { execution } = await services.runs.rerun(workspaceId, workflowId, executionId, input);
      return execution;
    },
    'GET /approvals': (input, workspaceId) => {
      const page = listOf(services.executions.awaitingApproval(workspaceId, input));
      return {
        ...page,
        data: page.data.map((execution) => ({
          ...execution,
          ...approvalView({ ...services, clock }, workspaceId, execution),
        })),
      };
    },
    'POST /approvals/:execution_id': (input, workspaceId, request) =>
      services.executions.decideApproval(
        workspaceId,
        input.agent_id,
        params(request).execution_id!,
        input.decision,
        input.notes,
      ),
    'GET /webhooks': (input, workspaceId) => listOf(services.webhooks.list(workspaceId, input)),
    'POST /webhooks/:webhook_id/resume': (_input, workspaceId, request) =>
      services.webhooks.update(workspaceId, params(request).webhook_id!, { status: 'active' }),
    'GET /webhooks/:webhook_id/deliveries': (input, workspaceId, request) =>
      listOf(services.deliveries.list(workspaceId, params(request).webhook_id!, input)),
    'GET /webhooks/:webhook_id/deliveries/:delivery_id': (_input, workspaceId, request) =>
      services.deliveries.attemptLog(
        workspaceId,
        params(request).webhook_id!,
        params(request).delivery_id!,
      ),
    'POST /webhooks/:webhook_id/deliveries/:delivery_id/resend': async (
      _input,
      workspaceId,
      request,
    ) => {
      const { webhook_id: webhookId, delivery_id: deliveryId } = params(request);
      await services.deliveries.retryNow(workspaceId, webhookId!, deliveryId!);
      return services.deliveries.attemptLog(workspaceId, webhookId!, deliveryId!);
    },
    'GET /events': (input, workspaceId) => {
      const page = services.events.list(workspaceId, input);
      return listOf({
        ...page,
        items: page.items.map((item) => JSON.parse(item.json) as z.input<typeof Event>),
      });
    },
    'GET /event-types': () => [...EVENT_TYPES],
    'GET /clock': () => services.clockService.show(),
    'POST /clock/advance': (input) => services.clockService.advance(input.ms),
  });
}
