// The event log: one row per event, the envelope stored as the JSON text that is sent.
import type { CursorPosition } from '../http/pagination.js';
import type { Db } from '../store/database.js';
import { afterCursor } from '../store/keyset.js';
import { StatementCache } from '../store/statement-cache.js';

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
  private readonly statements: StatementCache;

  constructor(db: Db) {
    this.statements = new StatementCache(db);
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
    const where = this.where(filter);
    const after = afterCursor(cursor);
    const sql = `SELECT envelope FROM events WHERE ${where.sql} AND ${after.sql} ORDER BY created_at DESC, id DESC LIMIT ?`;
    return this.statements.get(sql).all(...where.params, ...after.params, limit) as Pick<
      EventRow,
      'envelope'
    >[];
  }

  count(filter: EventFilter): number {
    const where = this.where(filter);
    const row = this.statements
      .get(`SELECT COUNT(*) AS n FROM events WHERE ${where.sql}`)
      .get(...where.params) as { n: number };
    return row.n;
  }

  purgeBefore(cutoff: number): number {
    return this.purgeStmt.run(cutoff).changes;
  }

  private where(filter: EventFilter): { sql: string; params: (string | number)[] } {
    const clauses = ['workspace_id = ?', 'created_at >= ?'];
    const params: (string | number)[] = [filter.workspaceId, filter.since];
    const alternatives: string[] = [];
    if (filter.types.length > 0) {
      alternatives.push(`type IN (${filter.types.map(() => '?').join(', ')})`);
      params.push(...filter.types);
    }
    for (const prefix of filter.prefixes) {
      alternatives.push('substr(type, 1, ?) = ?');
      params.push(prefix.length, prefix);
    }
    if (alternatives.length > 0) clauses.push(`(${alternatives.join(' OR ')})`);
    return { sql: clauses.join(' AND '), params };
  }
}
