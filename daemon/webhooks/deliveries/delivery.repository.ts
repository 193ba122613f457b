// Delivery rows (one per event per webhook) and the history of their attempts.
import type { ListQueryInput, Page } from '../../domain/pages.js';
import type { Db } from '../../store/db.js';
import { jsonArrayValues } from '../../store/dialect.js';
import { WRITE_AT_ONCE, type CounterDeferral } from '../../store/commit-queue.js';
import { ListCounts, ListCountWrites } from '../../store/list-counts.js';
import { ListQuery } from '../../store/list-query.js';
import { prepareLaterWrite } from '../../store/later-writes.js';
import { prepareLaterRowWrite, prepareRows, prepareRowWrite } from '../../store/object-rows.js';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  workspace_id: string;
  event_id: string;
  event_type: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  http_status: number | null;
  response_time_ms: number | null;
  error: string | null;
  created_at: number;
  delivered_at: number | null;
  last_attempt_at: number | null;
  next_attempt_at: number | null;
}

/** What a new delivery is stored with (it starts pending, with no attempt). */
export type NewDeliveryRow = Pick<
  DeliveryRow,
  | 'id'
  | 'webhook_id'
  | 'workspace_id'
  | 'event_id'
  | 'event_type'
  | 'body'
  | 'created_at'
  | 'next_attempt_at'
>;

/**
 * What an attempt came to. `unknown`: stored before its POST left and not answered yet, or
 * never (the daemon stopped while it was in flight: error then says so).
 */
export type DeliveryAttemptOutcome = 'unknown' | 'delivered' | 'failed';

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  attempted_at: number;
  outcome: DeliveryAttemptOutcome;
  http_status: number | null;
  /** 0 while the outcome is unknown (the column is NOT NULL; the API shows null then). */
  response_time_ms: number;
  error: string | null;
  /** The X-Svc-Signature header sent (null for attempts stored before it was kept). */
  signature: string | null;
  /** The first bytes of the receiver's answer, as text (null when there was no answer). */
  response_head: string | null;
  /** The sandbox fault rule (flt_...) that produced this attempt's outcome. */
  injected_fault: string | null;
}

export interface DeliveryListQuery {
  webhookId: string;
  status?: string | undefined;
}

export class DeliveryRepository {
  private readonly insertStmt;
  private readonly getStmt;
  private readonly attemptStmt;
  private readonly answerStmt;
  private readonly lostStmt;
  private readonly lastAttemptStmt;
  private readonly startStmt;
  private readonly attemptsStmt;
  private readonly resultStmt;
  private readonly resultFromStmt;
  private readonly statusStmt;
  private readonly pendingStmt;
  private readonly windowStmt;
  private readonly pendingCountStmt;
  private readonly ofEventsStmt;
  private readonly counted: ListCountWrites;

  private readonly list: ListQuery<DeliveryRow, DeliveryListQuery>;

  constructor(db: Db, deferral: CounterDeferral = WRITE_AT_ONCE) {
    const counts = new ListCounts(db, 'deliveries');
    this.counted = new ListCountWrites(db, 'deliveries', deferral);
    this.list = new ListQuery(db, {
      table: 'deliveries',
      scope: { webhook_id: 'webhookId' },
      filters: { status: 'status' },
      count: ({ webhookId, status }) =>
        counts.sum(webhookId, status ? ['bucket = ?', status] : undefined),
    });
    // The writes of a delivery's life whose results are not read go with their transaction's
    // next statement or COMMIT on PostgreSQL (store/later-writes.ts): a new row by a new id,
    // updates by key. saveResult reads its update's changes: a plain run.
    this.insertStmt = prepareLaterRowWrite<NewDeliveryRow>(
      db,
      `INSERT INTO deliveries (id, webhook_id, workspace_id, event_id, event_type, body, status, created_at, next_attempt_at)
       VALUES (@id, @webhook_id, @workspace_id, @event_id, @event_type, @body, 'pending', @created_at, @next_attempt_at)`,
    );
    this.getStmt = prepareRows<DeliveryRow, [string]>(db, 'SELECT * FROM deliveries WHERE id = ?');
    this.attemptStmt = prepareLaterWrite<[string, number, number]>(
      db,
      `INSERT INTO delivery_attempts (delivery_id, attempt, attempted_at, outcome, response_time_ms)
       VALUES (?, ?, ?, 'unknown', 0)`,
    );
    this.startStmt = prepareLaterWrite<[number, number, string]>(
      db,
      'UPDATE deliveries SET attempts = ?, last_attempt_at = ? WHERE id = ?',
    );
    this.answerStmt = prepareLaterRowWrite<Omit<AttemptRow, 'attempted_at'>>(
      db,
      `UPDATE delivery_attempts SET outcome = @outcome, http_status = @http_status, response_time_ms = @response_time_ms,
         error = @error, signature = @signature, response_head = @response_head, injected_fault = @injected_fault
       WHERE delivery_id = @delivery_id AND attempt = @attempt`,
    );
    this.lostStmt = prepareLaterWrite<[string, string]>(
      db,
      `UPDATE delivery_attempts SET error = ? WHERE delivery_id = ? AND outcome = 'unknown' AND error IS NULL`,
    );
    this.lastAttemptStmt = prepareRows<AttemptRow, [string]>(
      db,
      'SELECT * FROM delivery_attempts WHERE delivery_id = ? ORDER BY attempt DESC LIMIT 1',
    );
    this.attemptsStmt = db.prepare<[string], AttemptRow>(
      'SELECT * FROM delivery_attempts WHERE delivery_id = ? ORDER BY attempt',
    );
    const result = `UPDATE deliveries SET status = @status, attempts = @attempts, http_status = @http_status,
         response_time_ms = @response_time_ms, error = @error, delivered_at = @delivered_at,
         last_attempt_at = @last_attempt_at, next_attempt_at = @next_attempt_at WHERE id = @id`;
    this.resultStmt = prepareRowWrite<DeliveryRow>(db, result);
    this.resultFromStmt = prepareRowWrite<DeliveryRow & { stored: DeliveryStatus }>(
      db,
      `${result} AND status = @stored`,
    );
    this.statusStmt = db
      .prepare<[string], DeliveryStatus>('SELECT status FROM deliveries WHERE id = ?')
      .pluck();
    // Keyset pages over (created_at, id), the order of deliveries_by_webhook.
    this.windowStmt = db.prepare<
      { webhook: string; to: number; at: number; id: string; size: number },
      DeliveryRow
    >(
      `SELECT * FROM deliveries WHERE webhook_id = @webhook AND created_at <= @to
         AND (created_at, id) > (@at, @id) ORDER BY created_at, id LIMIT @size`,
    );
    this.pendingStmt = db.prepare<[string], { id: string }>(
      "SELECT id FROM deliveries WHERE webhook_id = ? AND status = 'pending'",
    );
    // The deliveries of some events (a run's history), through deliveries_by_event.
    this.ofEventsStmt = prepareRows<DeliveryRow, [string, string]>(
      db,
      `SELECT * FROM deliveries WHERE event_id IN (${jsonArrayValues(db)}) AND workspace_id = ?
       ORDER BY created_at, id`,
    );
    // From the list counters (one row per webhook), not the deliveries: svc status stays cheap
    // with a hundred thousand of them.
    this.pendingCountStmt = db.prepare<[], { pending: number; held: number }>(
      `SELECT COALESCE(SUM(CASE WHEN w.status = 'active' THEN c.n END), 0) AS pending,
              COALESCE(SUM(CASE WHEN w.status <> 'active' THEN c.n END), 0) AS held
       FROM list_counts c JOIN webhooks w ON w.id = c.scope
       WHERE c.list = 'deliveries' AND c.bucket = 'pending'`,
    );
  }

  insert(row: NewDeliveryRow): void {
    this.insertStmt.run(row);
    // Stored as pending (the insert's SQL says so).
    this.counted.inserted(row.webhook_id, 'pending');
  }

  get(id: string): DeliveryRow | undefined {
    return this.getStmt.get(id);
  }

  /**
   * Stores attempt `attempt` of a delivery as started (outcome unknown) and counts it in the
   * delivery's attempts, before its POST leaves: whatever happens next, it is on record.
   */
  startAttempt(deliveryId: string, attempt: number, at: number): void {
    this.attemptStmt.run(deliveryId, attempt, at);
    this.startStmt.run(attempt, at, deliveryId);
  }

  /** The answer to a started attempt (its outcome and what came back). */
  answerAttempt(row: Omit<AttemptRow, 'attempted_at'>): void {
    this.answerStmt.run(row);
  }

  /** Says why the delivery's attempts left unknown stay so (one only ever is, the last). */
  markLost(deliveryId: string, why: string): void {
    this.lostStmt.run(why, deliveryId);
  }

  lastAttempt(deliveryId: string): AttemptRow | undefined {
    return this.lastAttemptStmt.get(deliveryId);
  }

  attempts(deliveryId: string): AttemptRow[] {
    return this.attemptsStmt.all(deliveryId);
  }

  /**
   * Writes an attempt's outcome. `stored` is the status the caller read before the attempt
   * (a delivery's attempts run one at a time, so nothing should have moved it since); the
   * update checks it all the same, for free, and reads the status it replaces only when it has
   * moved: the list counter always moves from the status the row really had.
   */
  saveResult(row: DeliveryRow, stored: DeliveryStatus): void {
    let from = stored;
    if (this.resultFromStmt.run({ ...row, stored }).changes === 0) {
      const current = this.statusStmt.get(row.id);
      if (current === undefined) return;
      from = current;
      this.resultStmt.run(row);
    }
    this.counted.moved(row.webhook_id, from, row.status);
  }

  /**
   * Pending deliveries in every workspace: those of an active webhook (to be attempted) and
   * those held by a paused or failed one.
   */
  pendingCounts(): { pending: number; held: number } {
    return this.pendingCountStmt.get()!;
  }

  pendingIds(webhookId: string): string[] {
    return this.pendingStmt.all(webhookId).map((row) => row.id);
  }

  /** A webhook's deliveries created in [from, to], oldest first. */
  /**
   * A webhook's deliveries created in [from, to], oldest first, `size` at a time: the caller
   * lets the event loop go between pages (a window may hold a hundred thousand of them).
   */
  *inWindow(webhookId: string, from: number, to: number, size: number): Generator<DeliveryRow[]> {
    let at = from;
    let id = ''; // every id sorts after '': the first page starts at `from` itself
    for (;;) {
      const page = this.windowStmt.all({ webhook: webhookId, to, at, id, size });
      if (page.length > 0) yield page;
      if (page.length < size) return;
      ({ created_at: at, id } = page.at(-1)!);
    }
  }

  /** The workspace's deliveries of these events, oldest first. */
  ofEvents(workspaceId: string, eventIds: readonly string[]): DeliveryRow[] {
    if (eventIds.length === 0) return [];
    return this.ofEventsStmt.all(JSON.stringify(eventIds), workspaceId);
  }

  page(query: DeliveryListQuery & ListQueryInput): Page<DeliveryRow> {
    return this.list.page(query);
  }
}
