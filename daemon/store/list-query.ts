// The one way to list rows: what belongs to the list, the filters a caller may add and the
// order are data; `page()` resolves the cursor, reads limit + 1 rows after it and the matching
// count. Statements are prepared once per shape of filter.
import {
  pageRequest,
  toPage,
  type CursorPosition,
  type ListQueryInput,
  type Page,
} from '../domain/pages.js';
import type { Db } from './db.js';
import { limitParam } from './dialect.js';
import { StatementCache } from './statement-cache.js';

type Param = string | number;
/** A SQL condition and its parameters, e.g. ['created_at >= ?', cutoff]. */
export type Condition = readonly [sql: string, ...params: Param[]];

export interface ListOrder {
  /** The sort column; ties are broken by id in the same direction. */
  column: string;
  direction: 'asc' | 'desc';
}

/** Newest first, the order of every list of the API. */
export const NEWEST_FIRST: ListOrder = { column: 'created_at', direction: 'desc' };

export interface ListSpec<Q> {
  table: string;
  /** The columns read for each item (default all). */
  columns?: string;
  /**
   * What makes a row part of the list at all, as column -> query key (`column = value`), or
   * column -> null (`column IS NULL`). A cursor must name a row that meets these.
   */
  scope: Record<string, (keyof Q & string) | null>;
  /** Optional narrowing, column -> query key, applied when the caller gave a value. */
  filters?: Record<string, keyof Q & string>;
  /** Conditions that are not one column equal to a value (ranges, patterns), from the query. */
  conditions?: (query: Q) => readonly (Condition | false | undefined)[];
  /** Default NEWEST_FIRST. */
  order?: ListOrder;
  /** How many rows the list holds for `query` (e.g. from ListCounts); default a COUNT(*). */
  count?: (query: Q) => number;
}

export class ListQuery<Row, Q> {
  private readonly statements: StatementCache;
  private readonly order: ListOrder;
  private readonly after: string;
  private readonly orderBy: string;
  private readonly columns: string;
  private readonly limit: string;

  constructor(
    db: Db,
    private readonly spec: ListSpec<Q>,
  ) {
    this.statements = new StatementCache(db);
    this.limit = limitParam(db);
    this.order = spec.order ?? NEWEST_FIRST;
    this.columns = spec.columns ?? '*';
    const { column, direction } = this.order;
    const beyond = direction === 'desc' ? '<' : '>';
    // A row value, not `a < ? OR (a = ? AND id < ?)`: SQLite reads the row value as a range of
    // the index and starts the page at the cursor; with the OR it walked the index from the
    // list's first row to the cursor (39 ms for a page after 90,000 of an agent's executions).
    this.after = `(${column}, id) ${beyond} (?, ?)`;
    const dir = direction === 'desc' ? 'DESC' : 'ASC';
    this.orderBy = `ORDER BY ${column} ${dir}, id ${dir}`;
  }

  /** One page of the list for `query` (its filters, limit and cursor). */
  page(query: Q & ListQueryInput): Page<Row> {
    const { limit, cursor } = pageRequest(query, (id) => this.position(query, id));
    const filter = this.where(query);
    const after = cursor ? ` AND ${this.after}` : '';
    const afterParams = cursor ? [cursor.key, cursor.id] : [];
    const rows = this.statements
      .rows<Row>(
        `SELECT ${this.columns} FROM ${this.spec.table} WHERE ${filter.sql}${after} ${this.orderBy} ${this.limit}`,
      )
      .all(...filter.params, ...afterParams, limit + 1);
    return toPage(rows, limit, this.count(query, filter));
  }

  private count(query: Q, filter: Where): number {
    if (this.spec.count) return this.spec.count(query);
    const row = this.statements
      .get(`SELECT COUNT(*) AS n FROM ${this.spec.table} WHERE ${filter.sql}`)
      .get(...filter.params) as { n: number };
    return row.n;
  }

  /** Where the row `id` stands in the list's order; undefined when it is not in the list. */
  position(query: Q, id: string): CursorPosition | undefined {
    const scope = this.scope(query);
    return this.statements
      .get(
        `SELECT ${this.order.column} AS key, id FROM ${this.spec.table} WHERE id = ? AND ${scope.sql}`,
      )
      .get(id, ...scope.params) as CursorPosition | undefined;
  }

  private scope(query: Q): Where {
    return join(this.scopeConditions(query));
  }

  private scopeConditions(query: Q): Condition[] {
    return Object.entries(this.spec.scope).map(([column, key]) =>
      key === null ? [`${column} IS NULL`] : [`${column} = ?`, value(query, key)],
    );
  }

  private where(query: Q): Where {
    const conditions = this.scopeConditions(query);
    for (const [column, key] of Object.entries(this.spec.filters ?? {})) {
      const given = query[key];
      // An empty value is a filter that was not asked for.
      if (given !== undefined && given !== null && given !== '') {
        conditions.push([`${column} = ?`, value(query, key)]);
      }
    }
    for (const condition of this.spec.conditions?.(query) ?? []) {
      if (condition) conditions.push(condition);
    }
    return join(conditions);
  }
}

interface Where {
  sql: string;
  params: Param[];
}

function join(conditions: readonly Condition[]): Where {
  return {
    sql: conditions.map(([sql]) => sql).join(' AND ') || 'TRUE',
    params: conditions.flatMap(([, ...params]) => params),
  };
}

function value<Q>(query: Q, key: keyof Q): Param {
  const given = query[key];
  if (typeof given !== 'string' && typeof given !== 'number') {
    throw new TypeError(`List filter ${String(key)} must be a string or a number.`);
  }
  return given;
}
