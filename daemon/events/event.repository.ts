// The event log: one row per event, the envelope stored as the JSON text that is sent.
import type { CursorPosition } from '../http/pagination.js';
import type { Db } from '../store/database.js';
import { KeysetList, where, type Where } from '../store/keyset-list.js';

export interface EventRow {
  id: string;
  workspace_id: string;
  type: string;
  created_at: number;
  /** The whole envelope {id, type, created_at, workspace_id, data} as JSON. */
  envelope: string;
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
  private readonly positionStmt;
  private readonly purgeStmt;
  /** Lists read only the stored envelope: it is sent as is. */
  private readonly list: KeysetList<Pick<EventRow, 'envelope'>>;

  constructor(db: Db) {
    this.list = new KeysetList<Pick<EventRow, 'envelope'>>(db, 'events', 'envelope');
    this.insertStmt = db.prepare(
      'INSERT INTO events (id, workspace_id, type, created_at, envelope) VALUES (@id, @workspace_id, @type, @created_at, @envelope)',
    );
    this.getStmt = db.prepare<[string, string, number], EventRow>(
      'SELECT * FROM events WHERE id = ? AND workspace_id = ? AND created_at >= ?',
    );
    this.positionStmt = db.prepare<[string, string], CursorPosition>(
      'SELECT created_at, id FROM events WHERE id = ? AND workspace_id = ?',
    );
    this.purgeStmt = db.prepare('DELETE FROM events WHERE created_at < ?');
  }

  insert(row: EventRow): void {
    this.insertStmt.run(row);
  }

  get(workspaceId: string, id: string, since: number): EventRow | undefined {
    return this.getStmt.get(id, workspaceId, since);
  }

  position(workspaceId: string, id: string): CursorPosition | undefined {
    return this.positionStmt.get(id, workspaceId);
  }

  page(
    filter: EventFilter,
    limit: number,
    cursor: CursorPosition | undefined,
  ): Pick<EventRow, 'envelope'>[] {
    return this.list.page(this.filter(filter), limit, cursor);
  }

  count(filter: EventFilter): number {
    return this.list.count(this.filter(filter));
  }

  purgeBefore(cutoff: number): number {
    return this.purgeStmt.run(cutoff).changes;
  }

  private filter(filter: EventFilter): Where {
    const base = where(['workspace_id = ?', filter.workspaceId], ['created_at >= ?', filter.since]);
    const alternatives: string[] = [];
    const params: (string | number)[] = [];
    if (filter.types.length > 0) {
      alternatives.push(`type IN (${filter.types.map(() => '?').join(', ')})`);
      params.push(...filter.types);
    }
    for (const prefix of filter.prefixes) {
      alternatives.push('substr(type, 1, ?) = ?');
      params.push(prefix.length, prefix);
    }
    if (alternatives.length === 0) return base;
    return {
      sql: `${base.sql} AND (${alternatives.join(' OR ')})`,
      params: [...base.params, ...params],
    };
  }
}
