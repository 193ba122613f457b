// The one outbound call of webhook steps, through the daemon's outbound HTTP module (URL policy,
// connect-time address check, no redirects, timeout, capped answer). No retries here: the
// engine's retry policy decides.
import type { CallScope, OutboundHttp } from '../outbound/http.js';

export interface WebhookRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  /** JSON body; undefined sends none. */
  body: unknown;
  timeoutMs: number;
}

/** The other side's answer, or why there is none; `injectedFault` when a sandbox rule made it. */
export type WebhookAnswer = (
  { type: 'answered'; status: number; body: unknown } | { type: 'unreachable'; message: string }
) & { injectedFault?: string | undefined };

/** A step result keeps at most this much of the answer. */
const MAX_BODY_BYTES = 65_536;

export async function callWebhook(
  outbound: OutboundHttp,
  request: WebhookRequest,
  scope?: CallScope,
): Promise<WebhookAnswer> {
  const answer = await outbound.request(
    {
      url: request.url,
      method: request.method,
      headers: {
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...request.headers,
      },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      timeoutMs: request.timeoutMs,
      maxResponseBytes: MAX_BODY_BYTES,
    },
    scope,
  );
  const injectedFault = answer.injectedFault;
  if (answer.type === 'failed')
    return { type: 'unreachable', message: answer.message, injectedFault };
  return { type: 'answered', status: answer.status, body: parseBody(answer.body), injectedFault };
}

function parseBody(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
