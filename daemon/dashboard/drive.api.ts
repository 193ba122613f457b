// The API of the forms that drive the sandbox: start a run of a workflow with an input edited on
// its page, and send an event (a sample of its type, edited) from the Events page. Each calls
// what the REST API and the control channel call: WorkflowExecutionsService.execute (as POST
// /v1/workflows/{id}/execute) and publishByHand (as `svc events trigger`, sandbox only).
import { z } from 'zod';
import { Event, EVENT_TYPES } from '../../shared/schemas/events.js';
import { ExecuteAnswer, ExecuteBody } from '../../shared/schemas/workflows.js';
import type { DaemonStatus } from '../control/deps.js';
import { publishByHand } from '../events/by-hand.js';
import { sampleEventData } from '../events/samples.js';
import type { Clock } from '../time/clock.js';
import { params, route, WorkspaceQuery, type ApiKit } from './api-kit.js';
import type { DashboardServices } from './deps.js';

const StartBody = z.strictObject({ input: ExecuteBody.shape.input });
const SampleQuery = WorkspaceQuery.extend({ type: z.enum(EVENT_TYPES) });
const SendBody = z.strictObject({
  type: z.enum(EVENT_TYPES),
  data: z.record(z.string(), z.unknown()),
});

export const driveRoutes = {
  'POST /workflows/:workflow_id/run': route(StartBody, ExecuteAnswer),
  /** A sample event of a type, to edit and send. */
  'GET /events/sample': route(
    SampleQuery,
    z.object({ type: z.enum(EVENT_TYPES), data: z.record(z.string(), z.unknown()) }),
  ),
  'POST /events': route(SendBody, Event),
};

export function driveApi(
  kit: ApiKit,
  services: DashboardServices,
  clock: Clock,
  daemonStatus: () => DaemonStatus,
): void {
  kit.serve(driveRoutes, {
    'POST /workflows/:workflow_id/run': async (input, workspaceId, request) => {
      const workflowId = params(request).workflow_id!;
      return (await services.runs.execute(workspaceId, workflowId, { input: input.input }))
        .execution;
    },
    'GET /events/sample': (input, workspaceId) => ({
      type: input.type,
      data: sampleEventData(input.type, workspaceId, clock.iso()),
    }),
    'POST /events': (input, workspaceId) =>
      publishByHand(services.events, {
        environment: daemonStatus().environment,
        workspaceId,
        type: input.type,
        data: input.data,
        nowIso: clock.iso(),
      }),
  });
}
