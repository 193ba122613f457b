// A delivery's whole life: created for each active webhook an event reaches (in the event's own
// transaction, so an accepted event always reaches its webhooks), attempted on its timer,
// retried on the spec's schedule, resent on request, held while its webhook is not active and
// sent again when it is, replayed as a new delivery; and the test send, which is not stored.
// What an attempt comes to is judged by judgeAttempt (attempt-verdict.ts); this service sends,
// stores the attempt and applies the verdict. Each attempt stored is told (deliveryAttempted:
// the daemon's log, svc webhooks tail).
import { newId } from '../../../shared/ids.js';
import { isEventType, type EventEnvelope, type EventType } from '../../../shared/schemas/events.js';
import type { WebhookReplayResult } from '../../../shared/schemas/replay.js';
import type { DeliveryView } from '../../../shared/schemas/webhooks.js';
import type { Hooks } from '../../domain/hooks.js';
import { ALONE, type TeamNotices } from '../../store/team-notices.js';
import { type Clock } from '../../time/clock.js';
import { sampleEventData } from '../../events/samples.js';
import { ApiError } from '../../domain/errors.js';
import { mapPage, type ListQueryInput, type Page } from '../../domain/pages.js';
import type { Transactions } from '../../domain/transactions.js';
import type { CommitQueue } from '../../store/commit-queue.js';
import type { OutboundHttp } from '../../outbound/http.js';
import type { TimerContext, TimerService } from '../../time/timer.service.js';
import type { WebhookRow } from '../webhook.repository.js';
import type { WebhookService } from '../webhook.service.js';
import {
  judgeAttempt,
  judgeLostAttempt,
  LOST_ATTEMPT,
  nextAttempt,
  statusAfter,
} from './attempt-verdict.js';
import type { DeliveryRepository, DeliveryRow } from './delivery.repository.js';
import { DeliverySender } from './delivery-sender.js';
import { toAttemptView, toDeliveryView } from './delivery-views.js';
import { chooseReplays, REPLAY_BATCH, REPLAY_READ_PAGE, type ReplayFilter } from './replay.js';

export const DELIVERY_TIMER = 'webhook.delivery';

/** What DeliveryService is built from (app/services.ts passes them by name). */
export interface DeliveryServiceDeps {
  db: Transactions;
  repo: DeliveryRepository;
  webhooks: WebhookService;
  timers: TimerService;
  clock: Clock;
  outbound: OutboundHttp;
  commits: CommitQueue;
  /** Team mode: each attempt's outcome is told to the other daemons, theirs heard here. */
  notices?: TeamNotices;
  /** deliveryAttempted, with each attempt once it is stored (domain/hooks.ts). */
  hooks: Hooks;
}

export class DeliveryService {
  /** The attempt in flight of each delivery being sent (settles, never rejects, when stored). */
  private readonly attempting = new Map<string, Promise<unknown>>();
  private readonly sender: DeliverySender;

  private readonly db: Transactions;
  private readonly repo: DeliveryRepository;
  private readonly webhooks: WebhookService;
  private readonly timers: TimerService;
  private readonly clock: Clock;
  private readonly commits: CommitQueue;
  /** Team mode: each attempt's outcome is told to the other daemons, theirs heard here. */
  private readonly notices: TeamNotices;
  private readonly hooks: Hooks;

  constructor(deps: DeliveryServiceDeps) {
    this.hooks = deps.hooks;
    this.db = deps.db;
    this.repo = deps.repo;
    this.webhooks = deps.webhooks;
    this.timers = deps.timers;
    this.clock = deps.clock;
    this.commits = deps.commits;
    this.notices = deps.notices ?? ALONE;
    const { webhooks, timers, outbound } = deps;
    this.notices.on('delivery', (id) => this.heard(id));
    this.sender = new DeliverySender(outbound, webhooks);
    timers.register(DELIVERY_TIMER, (payload, timer) =>
      this.onTimer(payload as { delivery_id: string }, timer),
    );
  }

  /** webhookResumed: deliveries held while the webhook was paused or failed go out again from `at`. */
  releaseHeld(webhookId: string, at: number): void {
    for (const deliveryId of this.repo.pendingIds(webhookId)) this.schedule(deliveryId, at);
  }

  /** eventStored: runs inside the publishing transaction. */
  readonly fanout = (event: EventEnvelope, json: string): void => {
    const hooks = this.webhooks.active(event.workspace_id);
    if (hooks.length === 0) return;
    const now = this.clock.now();
    for (const hook of hooks) {
      if (!hook.events.has(event.type)) continue;
      this.create(hook.row, event.id, event.type, json, now);
    }
  };

  list(
    workspaceId: string,
    webhookId: string,
    query: ListQueryInput & { status?: string | undefined },
  ): Page<DeliveryView> {
    const hook = this.webhooks.row(workspaceId, webhookId);
    return mapPage(this.repo.page({ ...query, webhookId }), (row) =>
      toDeliveryView(row, hook.status),
    );
  }

  /** The deliveries of these events (a run's event history), oldest first. */
  ofEvents(workspaceId: string, eventIds: readonly string[]): DeliveryView[] {
    const statuses = new Map<string, string>();
    return this.repo.ofEvents(workspaceId, eventIds).map((row) => {
      let status = statuses.get(row.webhook_id);
      if (status === undefined) {
        status = this.webhooks.row(workspaceId, row.webhook_id).status;
        statuses.set(row.webhook_id, status);
      }
      return toDeliveryView(row, status);
    });
  }

  /** Pending deliveries in every workspace, to be attempted and held (svc status). */
  pendingCounts(): { pending: number; held: number } {
    return this.repo.pendingCounts();
  }

  /** Whose a delivery is, knowing its id alone (the dashboard's search box, `svc open`). */
  owner(deliveryId: string): Pick<DeliveryRow, 'workspace_id' | 'webhook_id'> | undefined {
    return this.repo.get(deliveryId);
  }

  detail(workspaceId: string, webhookId: string, deliveryId: string) {
    return this.withAttempts(this.delivery(workspaceId, webhookId, deliveryId));
  }

  /** The dashboard's delivery log: the API's view (signatures and answer heads are in it). */
  attemptLog(workspaceId: string, webhookId: string, deliveryId: string) {
    return this.detail(workspaceId, webhookId, deliveryId);
  }

  /** GET /v1/deliveries/{id}: a delivery of the workspace by its id alone, with its attempts. */
  detailById(workspaceId: string, deliveryId: string) {
    const row = this.repo.get(deliveryId);
    if (!row || row.workspace_id !== workspaceId) {
      throw new ApiError('not_found', `No delivery ${deliveryId} in this workspace.`, {
        param: 'delivery_id',
      });
    }
    return this.withAttempts(row);
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
    await this.attempt(row, hook, false);
    return this.detail(workspaceId, webhookId, deliveryId);
  }

  /**
   * svc webhooks replay: the stored events of a webhook's deliveries in a time window, sent again
   * as new deliveries (same event id and body, new delivery ids, first attempt now, then the
   * usual schedule); which events, chooseReplays says, at most filter.limit of them (the oldest
   * first). A webhook that is not active would hold them: it is refused, with the fix.
   */
  async replay(
    workspaceId: string,
    webhookId: string,
    filter: ReplayFilter,
  ): Promise<WebhookReplayResult> {
    const hook = this.webhooks.row(workspaceId, webhookId);
    if (hook.status !== 'active' && !filter.dryRun) {
      throw new ApiError(
        'conflict',
        `Webhook ${hook.id} is ${hook.status}: it would hold the replayed deliveries. Activate it first: svc webhooks update ${hook.id} --status active`,
        { extras: { webhook_status: hook.status } },
      );
    }
    const rows: DeliveryRow[] = [];
    for (const page of this.repo.inWindow(hook.id, filter.from, filter.to, REPLAY_READ_PAGE)) {
      rows.push(...page);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const matched = chooseReplays(rows, filter);
    const chosen = matched.slice(0, filter.limit);
    const replayed = (row: DeliveryRow, deliveryId: string | null) => ({
      event_id: row.event_id,
      event_type: row.event_type,
      original_delivery_id: row.id,
      original_status: row.status,
      delivery_id: deliveryId,
    });
    const deliveries: ReturnType<typeof replayed>[] = [];
    if (filter.dryRun) {
      for (const row of chosen) deliveries.push(replayed(row, null));
    } else {
      // One transaction per batch, the event loop let go between them: a replay of many
      // thousand events never holds the daemon (health checks, other requests) for long.
      const now = this.clock.now();
      for (let start = 0; start < chosen.length; start += REPLAY_BATCH) {
        if (start > 0) await new Promise((resolve) => setImmediate(resolve));
        const batch = chosen.slice(start, start + REPLAY_BATCH);
        deliveries.push(
          ...this.db.transaction(() =>
            batch.map((row) =>
              replayed(row, this.create(hook, row.event_id, row.event_type, row.body, now)),
            ),
          )(),
        );
      }
    }
    return {
      webhook_id: hook.id,
      dry_run: filter.dryRun,
      count: deliveries.length,
      matched: matched.length,
      limit: filter.limit,
      truncated: matched.length > chosen.length,
      first_event_id: deliveries[0]?.event_id ?? null,
      last_event_id: deliveries.at(-1)?.event_id ?? null,
      ...(filter.includeDeliveries ? { deliveries } : {}),
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
    const result = await this.sender.post(hook, JSON.stringify(event), {
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

  /** Stores a new delivery, pending, with its first attempt due `now` (in the caller's transaction), and counts it. */
  private create(
    hook: WebhookRow,
    eventId: string,
    eventType: string,
    body: string,
    now: number,
  ): string {
    const deliveryId = newId('delivery');
    this.repo.insert({
      id: deliveryId,
      webhook_id: hook.id,
      workspace_id: hook.workspace_id,
      event_id: eventId,
      event_type: eventType,
      body,
      created_at: now,
      next_attempt_at: now,
    });
    // Every stored delivery counts in the webhook's stats.total_deliveries, a replay's too: the
    // count then agrees with the deliveries list's total_count (the dashboard shows both).
    this.webhooks.markTriggered(hook.id, now);
    this.schedule(deliveryId, now);
    return deliveryId;
  }

  /** The delivery's next attempt, a stored timer owned by the delivery (retryNow cancels it). */
  private schedule(deliveryId: string, at: number): void {
    this.timers.schedule(DELIVERY_TIMER, at, { delivery_id: deliveryId }, deliveryId);
  }

  private async onTimer(payload: { delivery_id: string }, timer: TimerContext): Promise<void> {
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
    // Started and never answered, and no attempt runs here: the daemon stopped while it was in
    // flight (its timer outlived it). It counts toward max_attempts.
    const lost = row.attempts > 0 && this.repo.lastAttempt(row.id)?.outcome === 'unknown';
    if (lost && judgeLostAttempt(row, hook) === 'exhausted') {
      await this.exhaust(row, hook, timer);
      return;
    }
    await this.attempt(row, hook, true, timer);
  }

  /** The schedule's last attempt was lost to a stop: the delivery fails as if it had failed. */
  private async exhaust(row: DeliveryRow, hook: WebhookRow, timer: TimerContext): Promise<void> {
    const now = this.clock.now();
    await this.commits.run(() => {
      timer.finish();
      this.repo.markLost(row.id, LOST_ATTEMPT);
      this.repo.saveResult(
        { ...row, status: 'failed', error: LOST_ATTEMPT, next_attempt_at: null },
        row.status,
      );
      this.webhooks.recordOutcome(hook, {
        delivered: 0,
        failed: 1,
        failureAt: now,
        exhausted: true,
      });
    });
  }

  /**
   * One attempt at a time per delivery (see retryNow); settles when its outcome is stored.
   * `automatic`: made by the delivery's timer, not a resend; `timer`: that timer, whose parking
   * of an injected latency (untilDue) keeps a clock move or a stop from waiting, and which is
   * deleted in the transaction that stores the outcome (finish).
   */
  private attempt(
    row: DeliveryRow,
    hook: WebhookRow,
    automatic: boolean,
    timer?: TimerContext,
  ): Promise<void> {
    const running = this.attemptOnce(row, hook, automatic, timer);
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
    automatic: boolean,
    timer?: TimerContext,
  ) {
    const attempts = nextAttempt(row);
    await this.start(row, hook, attempts, automatic);
    const result = await this.sender.post(
      hook,
      row.body,
      { eventId: row.event_id, eventType: row.event_type, deliveryId: row.id },
      {
        workspaceId: hook.workspace_id,
        webhookId: hook.id,
        attempt: attempts,
        matchText: () => row.event_type,
        untilDue: timer?.untilDue,
      },
    );
    const now = this.clock.now();
    const verdict = judgeAttempt(result, row, hook, automatic, now);
    const updated: DeliveryRow = {
      ...row,
      status: statusAfter(verdict, row.status),
      attempts,
      http_status: result.status,
      response_time_ms: result.timeMs,
      error: result.error,
      delivered_at: verdict.kind === 'delivered' ? now : row.delivered_at,
      last_attempt_at: now,
      next_attempt_at: verdict.kind === 'retry_at' ? verdict.at : null,
    };
    // In the group commit: the attempts that end in the same tick share one transaction (and one
    // update of the webhook's counters). A crash before it commits leaves the attempt unknown.
    await this.commits.run(() => {
      // The timer that made this attempt is done with it (deleted in this transaction).
      timer?.finish();
      this.repo.answerAttempt({
        delivery_id: row.id,
        attempt: attempts,
        outcome: result.ok ? 'delivered' : 'failed',
        http_status: result.status,
        response_time_ms: result.timeMs,
        error: result.error,
        signature: result.signature,
        response_head: result.responseHead,
        injected_fault: result.injectedFault,
      });
      this.repo.saveResult(updated, row.status);
      // A webhook counts a delivery once, when it leaves pending (a resend of a finished one
      // does not count it again).
      const finishedNow = row.status === 'pending' && updated.status !== 'pending';
      this.webhooks.recordOutcome(hook, {
        delivered: finishedNow && updated.status === 'delivered' ? 1 : 0,
        failed: finishedNow && updated.status === 'failed' ? 1 : 0,
        failureAt: result.ok ? null : now,
        exhausted: verdict.kind === 'exhausted',
      });
      // A resend's watch (see start) has done its job.
      if (!automatic) this.timers.cancelOwned(row.id);
      if (verdict.kind === 'retry_at') this.schedule(row.id, verdict.at);
      this.notices.notify('delivery', row.id);
    });
    if (!this.hooks.has('deliveryAttempted')) return;
    this.hooks.run('deliveryAttempted', {
      // The webhook was active for this attempt; one it turned failed has no pending delivery.
      delivery: toDeliveryView(updated, 'active'),
      webhook_id: hook.id,
      url: hook.url,
      workspace_id: hook.workspace_id,
    });
  }

  /** Another daemon stored an attempt's outcome: `svc webhooks tail` here shows it too. */
  private heard(deliveryId: string): void {
    if (!this.hooks.has('deliveryAttempted')) return;
    const row = this.repo.get(deliveryId);
    if (!row) return;
    const hook = this.webhooks.configuredRow(row.workspace_id, row.webhook_id);
    this.hooks.run('deliveryAttempted', {
      delivery: toDeliveryView(row, hook.status),
      webhook_id: hook.id,
      url: hook.url,
      workspace_id: hook.workspace_id,
    });
  }

  /**
   * Stores attempt `attempt` as started (outcome unknown) and waits for its commit: the POST
   * leaves only once the attempt is on record, so a daemon that dies with it in flight finds
   * it after the restart and counts it (the delivery's timer, which outlives a crash, does:
   * onTimer). An attempt found unknown here was lost so (one runs at a time per delivery).
   * A resend is not run by a timer: it replaces the delivery's schedule with a watch, due once
   * the attempt has timed out, so that a pending delivery goes on after a crash.
   */
  private start(row: DeliveryRow, hook: WebhookRow, attempt: number, automatic: boolean) {
    const now = this.clock.now();
    return this.commits.run(() => {
      this.repo.markLost(row.id, LOST_ATTEMPT);
      this.repo.startAttempt(row.id, attempt, now);
      if (automatic) return;
      this.timers.cancelOwned(row.id);
      if (row.status === 'pending') this.schedule(row.id, now + hook.timeout_seconds * 1000);
    });
  }

  /** The delivery with its attempts and the event it carries. */
  private withAttempts(row: DeliveryRow) {
    const hook = this.webhooks.row(null, row.webhook_id);
    return {
      ...toDeliveryView(row, hook.status),
      attempts_history: this.repo.attempts(row.id).map(toAttemptView),
      event: JSON.parse(row.body) as Record<string, unknown>,
    };
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
