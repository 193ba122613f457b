// Webhook subscriptions: validation of URL and event types, the secret shown once, the active
// webhooks of a workspace and their delivery counts. Deliveries themselves (fan-out, attempts,
// retries, replay, test sends) are the delivery module's (deliveries/delivery.service.ts).
import { newId, randomBase62 } from '../../shared/ids.js';
import { isEventType } from '../../shared/schemas/events.js';
import {
  WEBHOOK_DEFAULTS,
  type WebhookCreateInput,
  type WebhookUpdateInput,
  type WebhookView,
} from '../../shared/schemas/webhooks.js';
import { toIso, type Clock } from '../time/clock.js';
import { ApiError } from '../domain/errors.js';
import { mapPage, type ListQueryInput, type Page } from '../domain/pages.js';
import { checkOutboundUrl, type UrlPolicy } from '../outbound/url-policy.js';
import type { Transactions } from '../domain/transactions.js';
import { ownedRow } from '../domain/workspace.js';
import type { Hooks } from '../domain/hooks.js';
import type { SecretBox } from '../platform/secret-box.js';
import { TickMemo } from '../store/tick-memo.js';
import type { WebhookRepository, WebhookRow } from './webhook.repository.js';

/** An active webhook and the event types it receives. */
export interface ActiveHook {
  row: WebhookRow;
  events: ReadonlySet<string>;
}

/** What an attempt did to a webhook's counts, and whether it ran out the delivery's attempts. */
export interface AttemptOutcome {
  delivered: number;
  failed: number;
  /** The attempt's time if it failed, else null. */
  failureAt: number | null;
  /** The schedule's last attempt failed: the webhook fails too. */
  exhausted: boolean;
}

/** What WebhookService is built from (app/services.ts passes them by name). */
export interface WebhookServiceDeps {
  db: Transactions;
  repo: WebhookRepository;
  clock: Clock;
  urlPolicy: UrlPolicy;
  /** Signing secrets are stored sealed: the database alone does not let anyone sign. */
  secretBox: SecretBox;
  hooks: Hooks;
}

export class WebhookService {
  /** Active webhooks per workspace, read on every published event; dropped on any change. */
  private readonly activeCache = new Map<string, ActiveHook[]>();
  /** Team mode: the active webhooks read in this synchronous stretch (store/tick-memo.ts). */
  private readonly activeStretch = new TickMemo<ActiveHook[]>();
  /** Opened signing secrets per webhook, used while the stored (sealed) value is the same. */
  private readonly openedSecrets = new Map<string, { sealed: string; secret: string }>();

  private readonly db: Transactions;
  private readonly repo: WebhookRepository;
  private readonly clock: Clock;
  private readonly urlPolicy: UrlPolicy;
  /** Signing secrets are stored sealed: the database alone does not let anyone sign. */
  private readonly secretBox: SecretBox;
  private readonly hooks: Hooks;

  constructor(deps: WebhookServiceDeps) {
    this.db = deps.db;
    this.repo = deps.repo;
    this.clock = deps.clock;
    this.urlPolicy = deps.urlPolicy;
    this.secretBox = deps.secretBox;
    this.hooks = deps.hooks;
  }

  /** `fixedSecret`: a signing secret chosen by the caller (sandbox fixtures), else a random one. */
  create(workspaceId: string, input: WebhookCreateInput, fixedSecret?: string): WebhookView {
    const now = this.clock.now();
    const secret = fixedSecret ?? `whsec_${randomBase62(32)}`;
    const row: WebhookRow = {
      id: newId('webhook'),
      workspace_id: workspaceId,
      url: checkOutboundUrl(input.url, this.urlPolicy),
      description: input.description ?? null,
      events: JSON.stringify(checkEventTypes(input.events)),
      status: 'active',
      secret: this.secretBox.seal(secret),
      max_attempts: input.settings?.retry_policy?.max_attempts ?? WEBHOOK_DEFAULTS.maxAttempts,
      backoff_multiplier:
        input.settings?.retry_policy?.backoff_multiplier ?? WEBHOOK_DEFAULTS.backoffMultiplier,
      timeout_seconds: input.settings?.timeout_seconds ?? WEBHOOK_DEFAULTS.timeoutSeconds,
      created_at: now,
      updated_at: now,
      last_triggered_at: null,
      last_failure_at: null,
      total_deliveries: 0,
      delivered_count: 0,
      failed_count: 0,
    };
    this.repo.insert(row);
    this.forgetActive(workspaceId);
    return { ...toWebhookView(row), secret };
  }

  get(workspaceId: string, id: string): WebhookView {
    return toWebhookView(this.row(workspaceId, id));
  }

  /** The signing secret of a webhook (whsec_...), unsealed for signing a delivery. */
  signingSecret(row: WebhookRow): string {
    // Opened once, not on every attempt: a new secret is a new sealed value, so it is opened anew.
    const opened = this.openedSecrets.get(row.id);
    if (opened?.sealed === row.secret) return opened.secret;
    const secret = this.secretBox.open(row.secret);
    this.openedSecrets.set(row.id, { sealed: row.secret, secret });
    return secret;
  }

  /** The stored row (its secret sealed), for the delivery worker. */
  row(workspaceId: string | null, id: string): WebhookRow {
    return ownedRow(this.repo.get(id), workspaceId, id, 'webhook');
  }

  /**
   * The row for what the webhook is configured to be (URL, secret, status, retry policy): its
   * delivery counts may lag behind the store. Read for each delivery attempt, where reading
   * the row again after every attempt's counts were added was 1.5% of the daemon's time.
   */
  configuredRow(workspaceId: string | null, id: string): WebhookRow {
    return ownedRow(this.repo.configured(id), workspaceId, id, 'webhook');
  }

  list(
    workspaceId: string,
    query: ListQueryInput & { status?: string | undefined },
  ): Page<WebhookView> {
    return mapPage(this.repo.page({ ...query, workspaceId }), toWebhookView);
  }

  update(workspaceId: string, id: string, input: WebhookUpdateInput): WebhookView {
    const row = { ...this.row(workspaceId, id) };
    if (input.url !== undefined) row.url = checkOutboundUrl(input.url, this.urlPolicy);
    if (input.events !== undefined) row.events = JSON.stringify(checkEventTypes(input.events));
    if (input.description !== undefined) row.description = input.description;
    if (input.settings?.timeout_seconds !== undefined)
      row.timeout_seconds = input.settings.timeout_seconds;
    if (input.settings?.retry_policy?.max_attempts !== undefined)
      row.max_attempts = input.settings.retry_policy.max_attempts;
    if (input.settings?.retry_policy?.backoff_multiplier !== undefined) {
      row.backoff_multiplier = input.settings.retry_policy.backoff_multiplier;
    }
    const resuming = input.status === 'active' && row.status !== 'active';
    if (input.status !== undefined) row.status = input.status;
    row.updated_at = this.clock.now();
    this.db.transaction(() => {
      this.repo.update(row);
      // The deliveries it held go out again (the delivery module hears it).
      if (resuming) this.hooks.run('webhookResumed', row.id, row.updated_at);
    })();
    this.forgetActive(workspaceId);
    return toWebhookView(row);
  }

  /** Replaces the signing secret (sandbox fixtures that fix it); deliveries sign with it next. */
  setSecret(workspaceId: string, id: string, secret: string): void {
    this.row(workspaceId, id);
    this.repo.setSecret(id, this.secretBox.seal(secret), this.clock.now());
    this.forgetActive(workspaceId);
  }

  delete(workspaceId: string, id: string): { id: string; deleted: true } {
    this.row(workspaceId, id);
    this.repo.delete(id);
    this.forgetActive(workspaceId);
    this.openedSecrets.delete(id);
    return { id, deleted: true };
  }

  /** A delivery was created for the webhook at `at` (its total and last_triggered_at). */
  markTriggered(id: string, at: number): void {
    this.repo.markTriggered(id, at);
  }

  /** A delivery attempt's outcome; a delivery that exhausted its attempts fails the webhook. */
  recordOutcome(row: WebhookRow, outcome: AttemptOutcome): void {
    this.repo.recordOutcome(row.id, outcome);
    if (outcome.exhausted) {
      this.repo.setStatus(row.id, 'failed', this.clock.now());
      this.forgetActive(row.workspace_id);
      this.hooks.run('webhookFailed', row);
    }
  }

  /**
   * The active webhooks of a workspace (read on every published event, so kept until a change
   * here). In team mode they are read from the store once per synchronous stretch (the events
   * of one group commit share the read): a webhook another daemon created, paused or failed
   * changes which deliveries an event of this one makes.
   */
  active(workspaceId: string): readonly ActiveHook[] {
    if (!this.repo.keepsRows) {
      return this.activeStretch.get(workspaceId, () => this.readActive(workspaceId));
    }
    let hooks = this.activeCache.get(workspaceId);
    if (!hooks) {
      hooks = this.readActive(workspaceId);
      this.activeCache.set(workspaceId, hooks);
    }
    return hooks;
  }

  private forgetActive(workspaceId: string): void {
    this.activeCache.delete(workspaceId);
    this.activeStretch.forget(workspaceId);
  }

  private readActive(workspaceId: string): ActiveHook[] {
    return this.repo
      .activeInWorkspace(workspaceId)
      .map((row) => ({ row, events: new Set(JSON.parse(row.events) as string[]) }));
  }
}

function checkEventTypes(events: string[]): string[] {
  events.forEach((type, index) => {
    if (!isEventType(type)) {
      throw new ApiError(
        'invalid_event_type',
        `'${type}' is not an event type. See the Event types list in /openapi.json (e.g. agent.created).`,
        {
          param: `events.${index}`,
        },
      );
    }
  });
  return [...new Set(events)];
}

export function toWebhookView(row: WebhookRow): WebhookView {
  const finished = row.delivered_count + row.failed_count;
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as WebhookView['events'],
    status: row.status,
    settings: {
      retry_policy: { max_attempts: row.max_attempts, backoff_multiplier: row.backoff_multiplier },
      timeout_seconds: row.timeout_seconds,
    },
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
    last_triggered_at: toIso(row.last_triggered_at),
    stats: {
      total_deliveries: row.total_deliveries,
      success_rate:
        finished === 0 ? 0 : Math.round((row.delivered_count / finished) * 10_000) / 10_000,
      last_failure_at: toIso(row.last_failure_at),
    },
  };
}
