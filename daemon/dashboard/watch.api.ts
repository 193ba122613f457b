// The API of the pages that watch the sandbox and act on what they see: overview, runs (cancel,
// run again), approvals, webhooks and their deliveries (resend, resume), events, the clock. Each
// calls the service the REST API and the control channel call: no second implementation.
import { z } from 'zod';
import { EVENT_TYPES } from '../../shared/schemas/events.js';
import { WORKFLOW_EXECUTION_STATUSES } from '../../shared/schemas/workflows.js';
import type { DaemonStatus } from '../control/deps.js';
import { listOf, NoBody, PageQuery, params, WorkspaceQuery, type ApiKit } from './api-kit.js';
import type { DashboardServices } from './deps.js';
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

export function watchApi(
  { read, act }: ApiKit,
  services: DashboardServices,
  daemonStatus: () => DaemonStatus,
): void {
  read('/ui/api/overview', WorkspaceQuery, (_input, workspaceId) => {
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
  });
  // Paged like the runs: the Workflows page asks a page at a time; without a limit (the runs
  // page's workflow filter), the newest 100.
  read('/ui/api/workflows', PageQuery, (input, workspaceId) =>
    listOf(services.workflows.list(workspaceId, { ...input, limit: input.limit ?? 100 })),
  );
  read('/ui/api/runs', RunListQuery, (input, workspaceId) =>
    listOf(
      services.runs.listInWorkspace(workspaceId, {
        ...input,
        from: input.from === undefined ? undefined : Date.parse(input.from),
        to: input.to === undefined ? undefined : Date.parse(input.to),
      }),
    ),
  );
  read('/ui/api/runs/:execution_id', WorkspaceQuery, (_input, workspaceId, request) => {
    const detail = services.runs.detail(workspaceId, params(request).execution_id!);
    return {
      ...detail,
      lanes: laneOf(detail.steps),
      graph: stepGraph(detail.steps),
      copied_steps: copiedStepCount(detail.execution),
    };
  });
  act('/ui/api/runs/:execution_id/cancel', NoBody, (_input, workspaceId, request) =>
    services.runs.cancelInWorkspace(workspaceId, params(request).execution_id!),
  );
  act(
    '/ui/api/runs/:execution_id/run-again',
    NoBody,
    async (_input, workspaceId, request) =>
      (await services.runs.runAgain(workspaceId, params(request).execution_id!)).execution,
  );
  // Re-run from a step chosen on the timeline (the REST rerun; without a step: the whole run).
  act('/ui/api/runs/:execution_id/rerun', RerunBody, async (input, workspaceId, request) => {
    const executionId = params(request).execution_id!;
    const { workflow_id: workflowId } = services.runs.detail(workspaceId, executionId).execution;
    const { execution } = await services.runs.rerun(workspaceId, workflowId, executionId, input);
    return execution;
  });
  read('/ui/api/approvals', PageQuery, (input, workspaceId) => {
    const page = listOf(services.executions.awaitingApproval(workspaceId, input));
    return {
      ...page,
      data: page.data.map((execution) => ({
        ...execution,
        agent_name: services.agents.find(execution.agent_id)?.name ?? null,
        workflow_execution_id: services.runs.runAwaiting(execution.execution_id),
      })),
    };
  });
  act('/ui/api/approvals/:execution_id', ApprovalBody, (input, workspaceId, request) =>
    services.executions.decideApproval(
      workspaceId,
      input.agent_id,
      params(request).execution_id!,
      input.decision,
      input.notes,
    ),
  );
  read('/ui/api/webhooks', PageQuery, (input, workspaceId) =>
    listOf(services.webhooks.list(workspaceId, input)),
  );
  act('/ui/api/webhooks/:webhook_id/resume', NoBody, (_input, workspaceId, request) =>
    services.webhooks.update(workspaceId, params(request).webhook_id!, { status: 'active' }),
  );
  read(
    '/ui/api/webhooks/:webhook_id/deliveries',
    DeliveryListQuery,
    (input, workspaceId, request) =>
      listOf(services.deliveries.list(workspaceId, params(request).webhook_id!, input)),
  );
  read(
    '/ui/api/webhooks/:webhook_id/deliveries/:delivery_id',
    WorkspaceQuery,
    (_input, workspaceId, request) =>
      services.deliveries.attemptLog(
        workspaceId,
        params(request).webhook_id!,
        params(request).delivery_id!,
      ),
  );
  act(
    '/ui/api/webhooks/:webhook_id/deliveries/:delivery_id/resend',
    NoBody,
    async (_input, workspaceId, request) => {
      const { webhook_id: webhookId, delivery_id: deliveryId } = params(request);
      await services.deliveries.retryNow(workspaceId, webhookId!, deliveryId!);
      return services.deliveries.attemptLog(workspaceId, webhookId!, deliveryId!);
    },
  );
  read('/ui/api/events', EventListQuery, (input, workspaceId) => {
    const page = services.events.list(workspaceId, input);
    return listOf({ ...page, items: page.items.map((item) => JSON.parse(item.json) as object) });
  });
  read('/ui/api/event-types', WorkspaceQuery, () => EVENT_TYPES);
  read('/ui/api/clock', WorkspaceQuery, () => services.clockService.show());
  act('/ui/api/clock/advance', AdvanceBody, (input) => services.clockService.advance(input.ms));
}
