// One POST of a delivery's body to its webhook: signed, through the outbound module, its answer
// turned into what an attempt records. Attempts and test sends go out the same way.
import { VERSION } from '../../../shared/package-info.js';
import { signatureHeader } from '../../../shared/signature.js';
import type { CallScope, OutboundHttp } from '../../outbound/http.js';
import type { WebhookRow } from '../webhook.repository.js';
import type { AttemptAnswer } from './attempt-verdict.js';

/** How much of a receiver's answer each attempt keeps (shown by the dashboard). */
export const RESPONSE_HEAD_CHARS = 512;

/** What one POST came to, as an attempt records it. */
export interface AttemptResult extends AttemptAnswer {
  /** The receiver's HTTP status, null when it did not answer. */
  status: number | null;
  timeMs: number;
  error: string | null;
  /** The X-Svc-Signature header sent. */
  signature: string;
  responseHead: string | null;
  /** The sandbox fault rule that produced this outcome (flt_...). */
  injectedFault: string | null;
}

/** The headers that name what is sent (X-Svc-Event-Id, -Event-Type, -Delivery-Id). */
export interface DeliveryIds {
  eventId: string;
  eventType: string;
  deliveryId: string;
}

export class DeliverySender {
  constructor(
    private readonly outbound: OutboundHttp,
    private readonly secrets: { signingSecret(row: WebhookRow): string },
  ) {}

  /**
   * One POST; a 3xx is an answer (a failure), never followed. With a scope (a stored delivery's
   * attempt), sandbox fault rules may answer instead.
   */
  async post(
    hook: WebhookRow,
    body: string,
    ids: DeliveryIds,
    scope?: CallScope,
  ): Promise<AttemptResult> {
    const signature = signatureHeader(this.secrets.signingSecret(hook), body);
    const result = await this.outbound.request(
      {
        url: hook.url,
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          'user-agent': `svc-webhooks/${VERSION}`,
          'x-svc-signature': signature,
          'x-svc-event-id': ids.eventId,
          'x-svc-event-type': ids.eventType,
          'x-svc-delivery-id': ids.deliveryId,
        },
        timeoutMs: hook.timeout_seconds * 1000,
        // The receiver's answer is not used: read a little of it, then let it go.
        maxResponseBytes: 64 * 1024,
      },
      scope,
    );
    const injectedFault = result.injectedFault ?? null;
    if (result.type === 'failed') {
      // An answer too long to read still is the receiver's answer.
      if (result.reason === 'too_large' && result.status !== null) {
        return statusResult(result.status, result.timeMs, signature, null, injectedFault);
      }
      return {
        ok: false,
        status: null,
        timeMs: result.timeMs,
        error: result.message,
        signature,
        responseHead: null,
        injectedFault,
      };
    }
    return statusResult(
      result.status,
      result.timeMs,
      signature,
      result.body.slice(0, RESPONSE_HEAD_CHARS),
      injectedFault,
    );
  }
}

function statusResult(
  status: number,
  timeMs: number,
  signature: string,
  responseHead: string | null,
  injectedFault: string | null,
): AttemptResult {
  const ok = status >= 200 && status < 300;
  return {
    ok,
    status,
    timeMs,
    error: ok ? null : `The receiver answered HTTP ${status}.`,
    signature,
    responseHead,
    injectedFault,
  };
}
