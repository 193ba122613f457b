// Sends deliveries: signs the stored body, POSTs it, records the attempt, and either finishes
// the delivery or stores the next attempt as a timer on the spec's schedule. Exhausting the
// attempts fails the delivery and the webhook. Live listeners (svc webhooks tail) hear each
// attempt.
import { EventEmitter } from 'node:events';
import { delayAfterAttempt, deliveryBackoff } from '../../shared/backoff.js';
import { newId } from '../../shared/ids.js';
import { VERSION } from '../../shared/package-info.js';
import { isEventType, type EventEnvelope, type EventType } from '../../shared/schemas/events.js';
import type { DeliveryActivity, DeliveryView } from '../../shared/schemas/webhooks.js';
import { signatureHeader } from '../../shared/signature.js';
import { toIso, type Clock } from '../time/clock.js';
import { sampleEventData } from '../events/samples.js';
import { ApiError } from '../domain/errors.js';
import { mapPage, type ListQueryInput, type Page } from '../domain/pages.js';
import type { Transactions } from '../domain/transactions.js';
import type { CommitQueue } from '../store/commit-queue.js';
import type { CallScope, OutboundHttp } from '../outbound/http.js';
import type { TimerService } from '../time/timer.service.js';
import type { DeliveryRepository, DeliveryRow } from './delivery.repository.js';
import type { WebhookRow } from './webhook.repository.js';
import { DELIVERY_TIMER, type WebhookService } from './webhook.service.js';

/** How much of a receiver's answer each attempt keeps (shown by the dashboard). */
export const RESPONSE_HEAD_CHARS = 512;

/** Emits `attempted` with each delivery attempt once it is stored (svc webhooks tail). */
export class DeliveryService extends EventEmitter<{ attempted: [DeliveryActivity] }> {
  /** The attempt in flight of each delivery being sent (settles, never rejects, when stored). */
  private readonly attempting = new Map<string, Promise<unknown>>();

  constructor(
    private readonly db: Transactions,
    private readonly repo: DeliveryRepository,
    private readonly webhooks: WebhookService,
    private readonly timers: TimerService,
    private readonly clock: Clock,
    private readonly outbound: OutboundHttp,
    private readonly commits: CommitQueue,
  ) {
    super();
    // One listener per live client (svc webhooks tail): no leak warning past ten of them.
    this.setMaxListeners(0);
    timers.register(DELIVERY_TIMER, (payload, timer) =>
      this.onTimer(payload as { delivery_id: string }, timer.untilDue),
    );
  }

  list(
    workspaceId: string,
    webhookId: string,
    query: ListQueryInput & { status?: string | undefined },
  ): Page<DeliveryView> {
    this.webhooks.row(workspaceId, webhookId);
    return mapPage(this.repo.page({ ...query, webhookId }), toDeliveryView);
  }

  detail(workspaceId: string, webhookId: string, deliveryId: string) {
    const row = this.delivery(workspaceId, webhookId, deliveryId);
    return {
      ...toDeliveryView(row),
      attempts_history: this.repo.attempts(row.id).map((attempt) => ({
        attempt: attempt.attempt,
        attempted_at: toIso(attempt.attempted_at),
        http_status: attempt.http_status,
        response_time_ms: attempt.response_time_ms,
        error: attempt.error,
        injected_fault: attempt.injected_fault,
      })),
      event: JSON.parse(row.body) as Record<string, unknown>,
    };
  }

  /** The delivery with each attempt's signature header and the start of the answer (dashboard). */
  attemptLog(workspaceId: string, webhookId: string, deliveryId: string) {
    const row = this.delivery(workspaceId, webhookId, deliveryId);
    return {
      ...toDeliveryView(row),
      attempts_history: this.repo.attempts(row.id).map((attempt) => ({
        attempt: attempt.attempt,
        attempted_at: toIso(attempt.attempted_at),
        http_status: attempt.http_status,
        response_time_ms: attempt.response_time_ms,
        error: attempt.error,
        signature: attempt.signature,
        response_head: attempt.response_head,
        injected_fault: attempt.injected_fault,
      })),
      event: JSON.parse(row.body) as Record<string, unknown>,
    };
  }

  /**
   * POST .../retry: one attempt now, whatever the schedule says. An attempt already in flight
   * (an automatic one, another retry) ends first, and this one starts from the row it wrote:
   * begun from the same row, both would have been attempt n + 1.
   */
  async retryNow(workspaceId: string, webhookId: string, deliveryId: string) {
    // An unknown delivery is refused at once, not after the attempt in flight; read again after.
    this.delivery(workspaceId, webhookId, deliveryId);
    for (let running = this.attempting.get(deliveryId); running;) {
      await running;
      running = this.attempting.get(deliveryId);
    }
    const row = this.delivery(workspaceId, webhookId, deliveryId);
    const hook = this.webhooks.row(workspaceId, webhookId);
    this.timers.cancelOwned(row.id);
    await this.attempt(row, hook, { automatic: false });
    return this.detail(workspaceId, webhookId, deliveryId);
  }

  /**
   * svc webhooks replay: the stored events of a webhook's deliveries in a time window, sent again
   * as new deliveries (same event id and body, new delivery ids, first attempt now, then the
   * usual schedule). An event counts once, judged by its latest delivery: `failed` replays the
   * events whose last delivery failed (not those a later replay delivered). A webhook that is
   * not active would hold them: it is refused, with the fix.
   */
  replay(workspaceId: string, webhookId: string, filter: ReplayFilter): ReplayResult {
    const hook = this.webhooks.row(workspaceId, webhookId);
    if (hook.status !== 'active' && !filter.dryRun) {
      throw new ApiError(
        'conflict',
        `Webhook ${hook.id} is ${hook.status}: it would hold the replayed deliveries. Activate it first: svc webhooks update ${hook.id} --status active`,
        { extras: { webhook_status: hook.status } },
      );
    }
    const latest = new Map<string, DeliveryRow>();
    for (const row of this.repo.inWindow(hook.id, filter.from, filter.to)) {
      latest.set(row.event_id, row);
    }
    const chosen = [...latest.values()].filter(
      (row) =>
        (filter.status === 'all' ? row.status !== 'pending' : row.status === filter.status) &&
        (filter.eventType === undefined || row.event_type === filter.eventType),
    );
    const now = this.clock.now();
    const replays = chosen.map((row) => ({
      event_id: row.event_id,
      event_type: row.event_type,
      original_delivery_id: row.id,
      original_status: row.status,
      delivery_id: filter.dryRun ? null : newId('delivery'),
    }));
    if (!filter.dryRun && replays.length > 0) {
      this.db.transaction(() => {
        replays.forEach((replay, index) => {
          const deliveryId = replay.delivery_id!;
          this.repo.insert({
            id: deliveryId,
            webhook_id: hook.id,
            workspace_id: hook.workspace_id,
            event_id: replay.event_id,
            event_type: replay.event_type,
            body: chosen[index]!.body,
            created_at: now,
            next_attempt_at: now,
          });
          this.timers.schedule(DELIVERY_TIMER, now, { delivery_id: deliveryId }, deliveryId);
        });
      })();
    }
    return {
      webhook_id: hook.id,
      dry_run: filter.dryRun,
      count: replays.length,
      deliveries: replays,
    };
  }

  /** POST /webhooks/{id}/test: a sample event of the type, sent now, not stored. */
  async test(workspaceId: string, webhookId: string, eventType: string) {
    if (!isEventType(eventType)) {
      throw new ApiError(
        'invalid_event_type',
        `'${eventType}' is not an event type (e.g. agent.created).`,
        { param: 'event_type' },
      );
    }
    const hook = this.webhooks.row(workspaceId, webhookId);
    const event: EventEnvelope = {
      id: newId('event'),
      type: eventType as EventType,
      created_at: this.clock.iso(),
      workspace_id: workspaceId,
      data: sampleEventData(eventType as EventType, workspaceId, this.clock.iso()),
    };
    const result = await this.send(hook, JSON.stringify(event), {
      eventId: event.id,
      eventType,
      deliveryId: newId('delivery'),
    });
    return {
      status: result.ok ? ('delivered' as const) : ('failed' as const),
      http_status: result.status,
      response_time_ms: result.timeMs,
      delivered_at: result.ok ? this.clock.iso() : null,
      event_id: event.id,
      error: result.error,
    };
  }

  private async onTimer(
    payload: { delivery_id: string },
    untilDue: CallScope['untilDue'],
  ): Promise<void> {
    // An attempt is in flight (a retry's, or another timer's): it schedules the next one if needed.
    if (this.attempting.has(payload.delivery_id)) return;
    const row = this.repo.get(payload.delivery_id);
    if (!row || row.status !== 'pending') return;
    let hook: WebhookRow;
    try {
      hook = this.webhooks.configuredRow(null, row.webhook_id);
    } catch {
      return;
    }
    // A paused or failed webhook holds its deliveries; PATCH status active sends them again.
    if (hook.status !== 'active') return;
    await this.attempt(row, hook, { automatic: true, untilDue });
  }

  /** One attempt at a time per delivery (see retryNow); settles when its outcome is stored. */
  private attempt(
    row: DeliveryRow,
    hook: WebhookRow,
    options: AttemptOptions,
  ): Promise<void> {
    const running = this.attemptOnce(row, hook, options);
    const settled = running.catch(() => undefined);
    this.attempting.set(row.id, settled);
    void settled.then(() => {
      if (this.attempting.get(row.id) === settled) this.attempting.delete(row.id);
    });
    return running;
  }

  private async attemptOnce(
    row: DeliveryRow,
    hook: WebhookRow,
    options: AttemptOptions,
  ): Promise<void> {
    const result = await this.send(
      hook,
      row.body,
      { eventId: row.event_id, eventType: row.event_type, deliveryId: row.id },
      {
        workspaceId: hook.workspace_id,
        webhookId: hook.id,
        attempt: row.attempts + 1,
        matchText: () => row.event_type,
        untilDue: options.untilDue,
      },
    );
    const now = this.clock.now();
    const attempts = row.attempts + 1;
    const updated: DeliveryRow = {
      ...row,
      attempts,
      http_status: result.status,
      response_time_ms: result.timeMs,
      error: result.error,
      last_attempt_at: now,
      next_attempt_at: null,
    };
    let exhausted = false;
    if (result.ok) {
      updated.status = 'delivered';
      updated.delivered_at = now;
    } else if (attempts >= hook.max_attempts) {
      updated.status = 'failed';
      exhausted = options.automatic;
    } else if (options.automatic || row.status === 'pending') {
      updated.status = 'pending';
      updated.next_attempt_at =
        now + delayAfterAttempt(deliveryBackoff(hook.backoff_multiplier), attempts);
    }
    // In the group commit: the attempts that end in the same tick share one transaction (and one
    // update of the webhook's counters). A crash before it commits sends the delivery again.
    await this.commits.run(() => {
      this.repo.insertAttempt({
        delivery_id: row.id,
        attempt: attempts,
        attempted_at: now,
        http_status: result.status,
        response_time_ms: result.timeMs,
        error: result.error,
        signature: result.signature,
        response_head: result.responseHead,
        injected_fault: result.injectedFault,
      });
      this.repo.saveResult(updated, row.status);
      const finishedNow = row.status === 'pending' && updated.status !== 'pending';
      this.webhooks.recordOutcome(hook.id, {
        delivered: finishedNow && updated.status === 'delivered' ? 1 : 0,
        failed: finishedNow && updated.status === 'failed' ? 1 : 0,
        failureAt: result.ok ? null : now,
      });
      if (updated.next_attempt_at !== null) {
        this.timers.schedule(
          DELIVERY_TIMER,
          updated.next_attempt_at,
          { delivery_id: row.id },
          row.id,
        );
      }
      if (exhausted) this.webhooks.markFailed(hook);
    });
    if (this.listenerCount('attempted') === 0) return;
    this.emit('attempted', {
      delivery: toDeliveryView(updated),
      webhook_id: hook.id,
      url: hook.url,
      workspace_id: hook.workspace_id,
    });
  }

  /**
   * One POST through the outbound module; a 3xx is an answer (a failure), never followed. With
   * a scope (a stored delivery's attempt), sandbox fault rules may answer instead.
   */
  private async send(
    hook: WebhookRow,
    body: string,
    ids: { eventId: string; eventType: string; deliveryId: string },
    scope?: CallScope,
  ): Promise<SendResult> {
    const signature = signatureHeader(this.webhooks.signingSecret(hook), body);
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

  private delivery(workspaceId: string, webhookId: string, deliveryId: string): DeliveryRow {
    this.webhooks.row(workspaceId, webhookId);
    const row = this.repo.get(deliveryId);
    if (!row || row.webhook_id !== webhookId) {
      throw new ApiError('not_found', `No delivery ${deliveryId} for webhook ${webhookId}.`, {
        param: 'delivery_id',
      });
    }
    return row;
  }
}

export interface ReplayFilter {
  /** Deliveries created in [from, to] (daemon clock, ms). */
  from: number;
  to: number;
  status: 'failed' | 'delivered' | 'all';
  eventType?: string | undefined;
  /** List what would be sent, send nothing. */
  dryRun: boolean;
}

export interface ReplayResult {
  webhook_id: string;
  dry_run: boolean;
  count: number;
  deliveries: {
    event_id: string;
    event_type: string;
    original_delivery_id: string;
    original_status: string;
    /** The new delivery (null in a dry run). */
    delivery_id: string | null;
  }[];
}

interface AttemptOptions {
  /** A due timer's attempt (retries follow the schedule), not a retry asked for by hand. */
  automatic: boolean;
  /** The timer's parking of an injected latency (see TimerContext.untilDue). */
  untilDue?: CallScope['untilDue'];
}

interface SendResult {
  ok: boolean;
  status: number | null;
  timeMs: number;
  error: string | null;
  signature: string;
  responseHead: string | null;
  /** The sandbox fault rule that produced this outcome (flt_...). */
  injectedFault: string | null;
}

function statusResult(
  status: number,
  timeMs: number,
  signature: string,
  responseHead: string | null,
  injectedFault: string | null,
): SendResult {
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

export function toDeliveryView(row: DeliveryRow): DeliveryView {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event_id: row.event_id,
    event_type: row.event_type as DeliveryView['event_type'],
    status: row.status,
    http_status: row.http_status,
    attempts: row.attempts,
    response_time_ms: row.response_time_ms,
    error: row.error,
    created_at: toIso(row.created_at),
    delivered_at: toIso(row.delivered_at),
    last_attempt_at: toIso(row.last_attempt_at),
    next_attempt_at: toIso(row.next_attempt_at),
  };
}
