// The one outbound call of webhook steps (kept in one function so the connect-time address checks
// of the outbound HTTP module can replace it in one place). ky, no retries (the engine's retry
// policy decides), no redirects, a hard timeout; the answer's body is read up to a limit.
import ky, { TimeoutError } from 'ky';

export interface WebhookRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  /** JSON body; undefined sends none. */
  body: unknown;
  timeoutMs: number;
}

export type WebhookAnswer =
  { type: 'answered'; status: number; body: unknown } | { type: 'unreachable'; message: string };

const MAX_BODY_CHARS = 65_536;

export async function callWebhook(request: WebhookRequest): Promise<WebhookAnswer> {
  try {
    const response = await ky(request.url, {
      method: request.method,
      headers: {
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...request.headers,
      },
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      timeout: request.timeoutMs,
      retry: 0,
      throwHttpErrors: false,
      redirect: 'manual',
    });
    const text = (await response.text()).slice(0, MAX_BODY_CHARS);
    return { type: 'answered', status: response.status, body: parseBody(text) };
  } catch (error) {
    if (error instanceof TimeoutError) {
      return {
        type: 'unreachable',
        message: `No answer within ${Math.round(request.timeoutMs / 1000)} s.`,
      };
    }
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return {
      type: 'unreachable',
      message: `Could not connect: ${cause?.code ?? cause?.message ?? String(error)}.`,
    };
  }
}

function parseBody(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
