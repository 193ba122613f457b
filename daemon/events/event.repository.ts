// The event log: one row per event, the envelope stored as the JSON text that is sent.
import type { ListQueryInput, Page } from '../domain/pages.js';
import type { Db } from '../store/db.js';
import { notIndexed } from '../store/dialect.js';
import { WRITE_AT_ONCE, type CounterDeferral } from '../store/commit-queue.js';
import { ListCounts, ListCountWrites } from '../store/list-counts.js';
import { ListQuery, type Condition } from '../store/list-query.js';
import { prepareLaterInsert } from '../store/object-rows.js';

export interface EventRow {
  id: string;
  workspace_id: string;
  type: string;
  created_at: number;
  /** The run of a workflow.execution.* event (wex_...), null for every other event. */
  execution_id: string | null;
  /** The whole envelope {id, type, created_at, workspace_id, data} as JSON. */
  envelope: string;
}

/** An event of a run's history: its envelope and its place in the run's order. */
export interface RunEventRow {
  envelope: string;
  seq: number;
}

export interface EventFilter {
  workspaceId: string;
  /** Exact types and prefixes (without the *); empty means all. */
  types: string[];
  prefixes: string[];
  /** Oldest created_at still visible (retention). */
  since: number;
}

export class EventRepository {
  private readonly insertStmt;
  private readonly getStmt;
  private readonly existsStmt;
  private readonly purgeStmt;
  private readonly ofRunStmt;
  private readonly positionStmt;
  private readonly counted: ListCountWrites;
  private readonly storedTypesStmt;
  /** Lists read only the stored envelope: it is sent as is. */
  private readonly list: ListQuery<Pick<EventRow, 'envelope'>, EventFilter>;

  constructor(db: Db, deferral: CounterDeferral = WRITE_AT_ONCE) {
    const counts = new ListCounts(db, 'events');
    this.counted = new ListCountWrites(db, 'events', deferral);
    this.list = new ListQuery(db, {
      table: 'events',
      columns: 'envelope',
      scope: { workspace_id: 'workspaceId' },
      conditions: (filter) => [
        ['created_at >= ?', filter.since],
        storedTypeCondition(db, filter, this.storedTypesStmt.all(filter.workspaceId)),
      ],
      // The counters hold the events past retention that housekeeping has not purged yet.
      count: (filter) => {
        const kept = counts.sum(filter.workspaceId, typeCondition(filter, 'bucket'));
        const types = typeCondition(filter, 'type');
        const [typeSql, ...typeParams] = types ?? ['TRUE'];
        return (
          kept -
          counts.countRows('events', [
            `workspace_id = ? AND created_at < ? AND ${typeSql}`,
            filter.workspaceId,
            filter.since,
            ...typeParams,
          ])
        );
      },
    });
    this.storedTypesStmt = db.prepare<[string], StoredType>(
      "SELECT bucket AS type, n FROM list_counts WHERE list = 'events' AND scope = ? AND n > 0",
    );
    // A new event by a new id: sent with its transaction's next statement or COMMIT on
    // PostgreSQL (store/later-writes.ts).
    this.insertStmt = prepareLaterInsert(
      db,
      'events',
      'id, workspace_id, type, created_at, execution_id, envelope',
    );
    // A run's events in the order published: by time, then as stored (rowid; events of one
    // transaction share a millisecond, and ids order by time only). events_by_execution holds
    // exactly this order (its entries end with the rowid): no sort, no scan of other runs.
    this.ofRunStmt = db.prepare<[string, string, number, number, number, number], RunEventRow>(
      `SELECT envelope, rowid AS seq FROM events
       WHERE execution_id = ? AND workspace_id = ? AND created_at >= ? AND (created_at, rowid) > (?, ?)
       ORDER BY created_at, rowid LIMIT ?`,
    );
    this.positionStmt = db.prepare<[string, string], { created_at: number; seq: number }>(
      'SELECT created_at, rowid AS seq FROM events WHERE id = ? AND execution_id = ?',
    );
    this.getStmt = db.prepare<[string, string, number], EventRow>(
      'SELECT * FROM events WHERE id = ? AND workspace_id = ? AND created_at >= ?',
    );
    this.existsStmt = db.prepare<[string, string], { id: string }>(
      'SELECT id FROM events WHERE id = ? AND workspace_id = ?',
    );
    // Retention through the workspace index, one range per workspace that has events, instead
    // of reading every event: each such workspace has an 'events' counter row in list_counts
    // (written with the first event, by ListCountWrites; nothing deletes it). No index on
    // created_at to keep up on the hottest insert.
    this.purgeStmt = db.prepare(
      `DELETE FROM events WHERE workspace_id IN (SELECT DISTINCT scope FROM list_counts WHERE list = 'events') AND created_at < ?`,
    );
  }

  insert(row: EventRow): void {
    this.insertStmt.run(row);
    this.counted.inserted(row.workspace_id, row.type);
  }

  get(workspaceId: string, id: string, since: number): EventRow | undefined {
    return this.getStmt.get(id, workspaceId, since);
  }

  exists(workspaceId: string, id: string): boolean {
    return this.existsStmt.get(id, workspaceId) !== undefined;
  }

  page(filter: EventFilter & ListQueryInput): Page<Pick<EventRow, 'envelope'>> {
    return this.list.page(filter);
  }

  /**
   * Up to `size` events of run `executionId`, oldest first, after the event `after` (an event
   * id, itself of the run) or from the first; undefined when `after` is not an event of the run.
   */
  ofRun(
    workspaceId: string,
    executionId: string,
    since: number,
    size: number,
    after?: string,
  ): RunEventRow[] | undefined {
    const from = after === undefined ? undefined : this.positionStmt.get(after, executionId);
    if (after !== undefined && !from) return undefined;
    return this.ofRunStmt.all(
      executionId,
      workspaceId,
      since,
      from?.created_at ?? -Infinity,
      from?.seq ?? -Infinity,
      size,
    );
  }

  purgeBefore(cutoff: number): number {
    return this.purgeStmt.run(cutoff).changes;
  }
}

/** A type the workspace has events of (its counter), and how many. */
interface StoredType {
  type: string;
  n: number;
}

/** Up to this many matching events, a filter on several types reads them all and sorts them. */
const FEW_EVENTS = 10_000;

/**
 * The list's type filter as the stored types it covers (a prefix such as `integration.` read
 * from the counters), so that no filter walks the whole log looking for rows that are not
 * there: none stored reads nothing; one type reads events_by_type in the list's order; a
 * few events of several types are read by type and sorted; many are found newest first
 * through events_by_workspace (the `+` keeps SQLite off the type index), few others skipped.
 */
function storedTypeCondition(
  db: Db,
  filter: EventFilter,
  stored: StoredType[],
): Condition | undefined {
  if (filter.types.length === 0 && filter.prefixes.length === 0) return undefined;
  const wanted = stored.filter(
    ({ type }) =>
      filter.types.includes(type) || filter.prefixes.some((prefix) => type.startsWith(prefix)),
  );
  // None stored: a type no event has, which events_by_type answers at once.
  if (wanted.length === 0) return ['type = ?', ''];
  const matching = wanted.reduce((sum, { n }) => sum + n, 0);
  const column = wanted.length === 1 || matching <= FEW_EVENTS ? 'type' : notIndexed(db, 'type');
  return [`${column} IN (${wanted.map(() => '?').join(', ')})`, ...wanted.map(({ type }) => type)];
}

/** Any of the exact types or prefixes, on `column`; no condition when neither was asked for. */
function typeCondition(filter: EventFilter, column: 'type' | 'bucket'): Condition | undefined {
  const alternatives: string[] = [];
  const params: (string | number)[] = [];
  if (filter.types.length > 0) {
    alternatives.push(`${column} IN (${filter.types.map(() => '?').join(', ')})`);
    params.push(...filter.types);
  }
  for (const prefix of filter.prefixes) {
    // CAST: substr takes an int4 length on PostgreSQL, and the adapter sends numbers as int8.
    alternatives.push(`substr(${column}, 1, CAST(? AS INTEGER)) = ?`);
    params.push(prefix.length, prefix);
  }
  if (alternatives.length === 0) return undefined;
  return [`(${alternatives.join(' OR ')})`, ...params];
}
