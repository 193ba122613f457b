// Trigger a webhook-triggered workflow from its page, signed for the user: what `svc workflows
// trigger` does. The body of this POST is the hook's body, sent on as is; the daemon signs it with
// the trigger's stored secret (TriggerService.signHook, as the control channel does for the CLI)
// and passes it through the hook's own route (POST /v1/hooks/{workspace_id}/{path}) in-process, so
// the request meets everything a real one meets: the body limit and JSON checks, the signature
// check and the one-run-per-signature rule, the workflow's status, the rate limit.
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { z } from 'zod';
import type { ErrorCode } from '../../shared/errors.js';
import { ApiError } from '../domain/errors.js';
import { params, route, type ApiKit } from './api-kit.js';
import type { DashboardServices } from './deps.js';

/** Sends a request through the app's router, as if it came in on its socket. */
export type Inject = (options: InjectOptions) => Promise<LightMyRequestResponse>;

interface HookAnswer {
  data?: { execution_id: string };
  error?: { code: ErrorCode; message: string; param?: string } & Record<string, unknown>;
}

export const triggerRoutes = {
  /** The body is the hook's body, any JSON, sent on byte for byte. */
  'POST /workflows/:workflow_id/trigger': route(
    z.unknown(),
    z.object({
      execution_id: z.string(),
      workflow_id: z.string(),
      /** The hook's path, and whether the request was signed with the trigger's secret. */
      path: z.string(),
      signed: z.boolean(),
    }),
  ),
};

export function triggerApi(kit: ApiKit, services: DashboardServices, inject: Inject): void {
  kit.serve(triggerRoutes, {
    'POST /workflows/:workflow_id/trigger': async (_body, workspaceId, request) => {
      const workflowId = params(request).workflow_id!;
      // 404 for a workflow that is not in this workspace (another workspace's included), before
      // anything is said about its trigger.
      services.workflows.row(workspaceId, workflowId);
      // The bytes as the page sent them (checked as JSON by the same parser the hook uses); an
      // empty body is {} as with `svc workflows trigger` without --data.
      const body = request.rawBody?.trim() ? request.rawBody : '{}';
      const first = await sendSigned(services, inject, workspaceId, workflowId, body);
      // A signature starts one run, and t is whole seconds: the same body sent twice within a
      // second is a copy (webhook_replayed). As the CLI does, sign once more in the next second.
      const answer =
        first.replayed && first.signed
          ? await nextSecond().then(() =>
              sendSigned(services, inject, workspaceId, workflowId, body),
            )
          : first;
      return answerOf(answer, workflowId);
    },
  });
}

interface Sent {
  response: LightMyRequestResponse;
  path: string;
  signed: boolean;
  replayed: boolean;
}

async function sendSigned(
  services: DashboardServices,
  inject: Inject,
  workspaceId: string,
  workflowId: string,
  body: string,
): Promise<Sent> {
  // Refuses a workflow without a webhook trigger, with how to give it one.
  const { path, signature } = services.triggers.signHook(workspaceId, workflowId, body);
  const response = await inject({
    method: 'POST',
    url: `/v1/hooks/${encodeURIComponent(workspaceId)}/${encodeURIComponent(path)}`,
    headers: {
      'content-type': 'application/json',
      ...(signature === null ? {} : { 'x-svc-signature': signature }),
    },
    payload: body,
  });
  const replayed = response.statusCode === 409 && response.body.includes('"webhook_replayed"');
  return { response, path, signed: signature !== null, replayed };
}

/** The run started, or the hook's refusal as the hook gave it (same code, message and extras). */
function answerOf({ response, path, signed }: Sent, workflowId: string) {
  const answer = parseAnswer(response.body);
  if (response.statusCode < 300 && answer.data) {
    return { execution_id: answer.data.execution_id, workflow_id: workflowId, path, signed };
  }
  const error = answer.error;
  if (!error) {
    throw new ApiError('internal_server_error', `The hook answered HTTP ${response.statusCode}.`);
  }
  const {
    code,
    message,
    param,
    type: _t,
    request_id: _r,
    documentation_url: _d,
    ...extras
  } = error;
  const retryAfter = response.headers['retry-after'];
  throw new ApiError(code, message, {
    status: response.statusCode,
    ...(param === undefined ? {} : { param }),
    extras,
    ...(retryAfter === undefined ? {} : { headers: { 'retry-after': String(retryAfter) } }),
  });
}

/** The hook's JSON answer; {} for a body that is not JSON (a 503 while the daemon stops). */
function parseAnswer(text: string): HookAnswer {
  try {
    return JSON.parse(text) as HookAnswer;
  } catch {
    return {};
  }
}

function nextSecond(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 1005 - (Date.now() % 1000)));
}
