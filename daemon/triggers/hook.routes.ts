// POST /v1/hooks/{workspace_id}/{path}: the intake of webhook triggers. No API key: the path is
// the address, and a trigger with a secret needs a valid X-Svc-Signature, once (a copy of a signed
// request is refused). Rate limited with the workflow's execute calls.
import { HookAccepted, HookParams, HookPayload } from '../../shared/schemas/triggers.js';
import type { AccessGuard } from '../auth/access.js';
import { ApiError } from '../domain/errors.js';
import { objectRoute, type RouteDef } from '../http/route.js';
import type { RestModule } from '../http/rest-module.js';
import type { WorkspaceService } from '../workspaces/workspace.service.js';
import type { TriggerService } from './trigger.service.js';

const tag = {
  name: 'Workflow triggers',
  description:
    'What starts a workflow besides a manual run: webhook intake here; schedule and event triggers fire inside the daemon. trigger.config per type is the WorkflowTrigger schema (used by templates and from-template), checked on every workflow write.',
};

export const hookModule: RestModule<{
  triggers: TriggerService;
  workspaces: WorkspaceService;
  guard: AccessGuard;
}> = { tag, routes: ({ triggers, workspaces, guard }) => hookRoutes(triggers, workspaces, guard) };

export function hookRoutes(
  triggers: TriggerService,
  workspaces: WorkspaceService,
  guard: AccessGuard,
): RouteDef[] {
  return [
    objectRoute({
      method: 'POST',
      path: '/v1/hooks/:workspace_id/:path',
      operationId: 'triggerWorkflowByHook',
      summary: 'Start a webhook-triggered workflow',
      description:
        'Starts a run of the active workflow whose trigger is {type: "webhook", config: {path}} in this workspace. Needs no API key. Any JSON body becomes trigger.payload (and the run input); request headers, minus Authorization, Cookie, X-Api-Key and X-Svc-Signature, become trigger.headers. When the trigger has config.secret, send X-Svc-Signature: t=<unix seconds>,v1=<lowercase hex HMAC-SHA256 of "<t>.<raw body>" keyed by the secret> (the scheme of outbound deliveries; 300 s tolerance, on real time), else 401 unauthorized. A signed request starts one run only: a copy of one already accepted (the same t and body, however the header is written) answers 409 webhook_replayed with the execution_id it started, and starts nothing, for as long as its signature still verifies (also across a restart); sign again with a new t to start another run. Counted with the workflow\'s execute calls (100/minute per workflow, times the tier). The body (at most 1 MiB) is stored as the run\'s input as received; the run\'s workflow.execution.started and .completed events carry input_bytes, and the input itself only when it is at most 16 KiB (GET .../executions/{execution_id} shows it whole). Bodies over 64 KiB are parsed one per turn of the daemon\'s event loop.',
      tag: tag.name,
      auth: { kind: 'public' },
      status: 202,
      params: HookParams,
      payload: HookPayload,
      errors: [
        'not_found',
        'unauthorized',
        'webhook_replayed',
        'workflow_not_active',
        'rate_limit_exceeded',
      ],
      response: HookAccepted,
      handler: ({ params, request, reply }) => {
        const workspace = workspaces.get(params.workspace_id);
        if (!workspace) {
          throw new ApiError(
            'not_found',
            `No workspace ${params.workspace_id}. The hook URL is printed by: svc workflows trigger-url ID`,
          );
        }
        const accepted = triggers.receiveHook({
          workspaceId: workspace.id,
          path: params.path,
          body: request.body,
          rawBody: request.rawBody ?? '',
          headers: request.headers,
        });
        guard.limitOperation(reply, workspace, 'workflows.execute', accepted.workflowId);
        return accepted.start();
      },
    }),
  ];
}
