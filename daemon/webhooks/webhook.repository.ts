// Webhook subscription rows.
import type { ListQueryInput, Page } from '../domain/pages.js';
import { PendingCounters, WRITE_AT_ONCE, type CounterDeferral } from '../store/commit-queue.js';
import type { Db } from '../store/db.js';
import { prepareLaterWrite } from '../store/later-writes.js';
import { ListQuery } from '../store/list-query.js';
import { prepareInsert, prepareRows } from '../store/object-rows.js';
import { cacheRows, RowCache } from '../store/row-cache.js';

export interface WebhookRow {
  id: string;
  workspace_id: string;
  url: string;
  description: string | null;
  events: string;
  status: 'active' | 'paused' | 'failed';
  secret: string;
  max_attempts: number;
  backoff_multiplier: number;
  timeout_seconds: number;
  created_at: number;
  updated_at: number;
  last_triggered_at: number | null;
  last_failure_at: number | null;
  total_deliveries: number;
  delivered_count: number;
  failed_count: number;
}

export interface WebhookListQuery {
  workspaceId: string;
  status?: string | undefined;
}

export class WebhookRepository {
  private readonly insertStmt;
  private readonly getStmt;
  /** Rows as stored; a delivery attempt reads its webhook's configuration from here. */
  private readonly rows: RowCache<WebhookRow>;
  private readonly activeStmt;
  private readonly updateStmt;
  private readonly deleteStmt;
  private readonly triggeredStmt;
  private readonly outcomeStmt;
  private readonly statusStmt;
  private readonly secretStmt;

  private readonly list: ListQuery<WebhookRow, WebhookListQuery>;
  /** Delivery outcomes, added up per webhook until the group commit writes them (commit-queue). */
  private readonly outcomes: PendingCounters<{ at: number; delivered: number; failed: number }>;
  /** Deliveries fanned out (and the latest time), added up the same way. */
  private readonly triggers: PendingCounters<{ at: number; deliveries: number }>;

  /**
   * Whether this daemon is the store's one writer (SQLite), so that what it read of the webhooks
   * stays true until it writes them itself; false in team mode, where other daemons write them.
   */
  readonly keepsRows: boolean;

  constructor(db: Db, deferral: CounterDeferral = WRITE_AT_ONCE) {
    this.keepsRows = cacheRows(db);
    this.rows = new RowCache(this.keepsRows);
    this.list = new ListQuery(db, {
      table: 'webhooks',
      scope: { workspace_id: 'workspaceId' },
      filters: { status: 'status' },
    });
    this.insertStmt = prepareInsert(
      db,
      'webhooks',
      'id, workspace_id, url, description, events, status, secret, max_attempts, backoff_multiplier, timeout_seconds, created_at, updated_at',
    );
    this.getStmt = prepareRows<WebhookRow, [string]>(db, 'SELECT * FROM webhooks WHERE id = ?');
    this.activeStmt = db.prepare<[string], WebhookRow>(
      "SELECT * FROM webhooks WHERE workspace_id = ? AND status = 'active'",
    );
    this.updateStmt = db.prepare(
      `UPDATE webhooks SET url = @url, description = @description, events = @events, status = @status, max_attempts = @max_attempts,
         backoff_multiplier = @backoff_multiplier, timeout_seconds = @timeout_seconds, updated_at = @updated_at WHERE id = @id`,
    );
    this.deleteStmt = db.prepare('DELETE FROM webhooks WHERE id = ?');
    // Counters added to: sent with the transaction's COMMIT on PostgreSQL (later-writes.ts).
    this.triggeredStmt = prepareLaterWrite<[{ id: string; at: number; deliveries: number }]>(
      db,
      'UPDATE webhooks SET last_triggered_at = @at, total_deliveries = total_deliveries + @deliveries WHERE id = @id',
    );
    this.triggers = new PendingCounters(deferral, (id, triggered) => {
      // A row read since the counts were added (in the same transaction) is behind again.
      this.rows.moveCounters(id);
      this.triggeredStmt.run({ id, ...triggered });
    });
    // at: the latest failed attempt's time, 0 when none of the outcomes added up was a failure.
    // CAST: PostgreSQL would type the parameter by the literal beside it (NULLIF(?, 0): an
    // integer, too small for a time in ms); SQLite reads it the same either way.
    this.outcomeStmt = prepareLaterWrite<
      [{ id: string; at: number; delivered: number; failed: number }]
    >(
      db,
      `UPDATE webhooks SET delivered_count = delivered_count + @delivered, failed_count = failed_count + @failed,
         last_failure_at = COALESCE(NULLIF(CAST(@at AS BIGINT), 0), last_failure_at) WHERE id = @id`,
    );
    this.outcomes = new PendingCounters(deferral, (id, outcome) => {
      this.rows.moveCounters(id);
      this.outcomeStmt.run({ id, ...outcome });
    });
    this.statusStmt = db.prepare('UPDATE webhooks SET status = ?, updated_at = ? WHERE id = ?');
    this.secretStmt = db.prepare('UPDATE webhooks SET secret = ?, updated_at = ? WHERE id = ?');
  }

  insert(
    row: Omit<
      WebhookRow,
      | 'last_triggered_at'
      | 'last_failure_at'
      | 'total_deliveries'
      | 'delivered_count'
      | 'failed_count'
    >,
  ): void {
    this.insertStmt.run(row);
  }

  /** The row, the same object until it is written (callers must not mutate it). */
  get(id: string): WebhookRow | undefined {
    return this.rows.get(id, () => this.getStmt.get(id));
  }

  /** The row for what the webhook is configured to be: its delivery counts may lag. */
  configured(id: string): WebhookRow | undefined {
    return this.rows.configured(id, () => this.getStmt.get(id));
  }

  activeInWorkspace(workspaceId: string): WebhookRow[] {
    return this.activeStmt.all(workspaceId);
  }

  update(row: WebhookRow): void {
    this.rows.forget(row.id);
    this.updateStmt.run(row);
  }

  /** update() leaves the secret as it is: only this replaces it (already sealed). */
  setSecret(id: string, sealed: string, at: number): void {
    this.rows.forget(id);
    this.secretStmt.run(sealed, at, id);
  }

  delete(id: string): void {
    this.rows.forget(id);
    this.deleteStmt.run(id);
  }

  page(query: WebhookListQuery & ListQueryInput): Page<WebhookRow> {
    return this.list.page(query);
  }

  /** A delivery was fanned out at `at` (written with the group commit, like the outcomes). */
  markTriggered(id: string, at: number): void {
    this.rows.moveCounters(id);
    this.triggers.add(id, { at, deliveries: 1 });
  }

  recordOutcome(
    id: string,
    outcome: { delivered: number; failed: number; failureAt: number | null },
  ): void {
    this.rows.moveCounters(id);
    this.outcomes.add(id, {
      delivered: outcome.delivered,
      failed: outcome.failed,
      at: outcome.failureAt ?? 0,
    });
  }

  setStatus(id: string, status: WebhookRow['status'], at: number): void {
    this.rows.forget(id);
    this.statusStmt.run(status, at, id);
  }
}
