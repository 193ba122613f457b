// The one way repositories list rows: a WHERE built from optional conditions, pages in
// (created_at DESC, id DESC) order after a cursor, and the matching count. Statements are
// prepared once per shape of filter.
import type { CursorPosition } from '../http/pagination.js';
import type { Db } from './database.js';
import { StatementCache } from './statement-cache.js';

export interface Where {
  sql: string;
  params: (string | number)[];
}

/** AND of the given conditions; a falsy entry (a filter that was not asked for) is skipped. */
export function where(
  ...conditions: (readonly [string, ...(string | number)[]] | false | undefined | null | '')[]
): Where {
  const kept = conditions.filter(
    (condition): condition is readonly [string, ...(string | number)[]] => Boolean(condition),
  );
  return {
    sql: kept.map(([sql]) => sql).join(' AND ') || '1',
    params: kept.flatMap(([, ...params]) => params),
  };
}

export class KeysetList<Row> {
  private readonly statements: StatementCache;

  constructor(
    db: Db,
    private readonly table: string,
    private readonly columns = '*',
  ) {
    this.statements = new StatementCache(db);
  }

  page(filter: Where, limit: number, cursor: CursorPosition | undefined): Row[] {
    const after = cursor ? '(created_at < ? OR (created_at = ? AND id < ?))' : '1';
    const afterParams = cursor ? [cursor.created_at, cursor.created_at, cursor.id] : [];
    return this.statements
      .get(
        `SELECT ${this.columns} FROM ${this.table} WHERE ${filter.sql} AND ${after} ORDER BY created_at DESC, id DESC LIMIT ?`,
      )
      .all(...filter.params, ...afterParams, limit) as Row[];
  }

  count(filter: Where): number {
    return (
      this.statements
        .get(`SELECT COUNT(*) AS n FROM ${this.table} WHERE ${filter.sql}`)
        .get(...filter.params) as { n: number }
    ).n;
  }
}
