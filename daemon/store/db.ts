// The store port: the synchronous database handle every repository, the commit queue and the
// migrations use. It is the subset of better-sqlite3's Database the daemon calls, so SQLite's
// handle satisfies it as it is (no wrapper, no cost); the PostgreSQL adapter
// (postgres/postgres-db.ts) satisfies it by running each statement on a `pg` connection in a
// worker thread while this thread waits (see ARCHITECTURE.md, "The store").
//
// Only the adapters (database.ts and its SQLite-only neighbours, postgres/) know which engine is
// behind a Db; what differs in SQL between the two is asked of dialect.ts.

/** What a write did. `lastInsertRowid` is SQLite's; PostgreSQL answers 0 (nothing reads it). */
export interface RunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

export interface ColumnDefinition {
  name: string;
}

/** A prepared statement (parsed once; on PostgreSQL, once per connection). */
export interface Statement<BindParameters extends unknown[] = unknown[], Result = unknown> {
  run(...params: BindParameters): RunResult;
  get(...params: BindParameters): Result | undefined;
  all(...params: BindParameters): Result[];
  iterate(...params: BindParameters): IterableIterator<Result>;
  /** Rows are their first column's value. */
  pluck(toggleState?: boolean): this;
  /** Rows are arrays of values, in column order. */
  raw(toggleState?: boolean): this;
  /** The result's columns (SQLite only: PostgreSQL knows them once the statement has run). */
  columns(): ColumnDefinition[];
}

// As better-sqlite3 types them, so that its Database is a Db.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type VariableArgFunction = (...params: any[]) => unknown;
type ArgumentTypes<F extends VariableArgFunction> = F extends (...args: infer A) => unknown
  ? A
  : never;

/** A function that runs in one transaction; called inside another, in a savepoint of it. */
export type Transaction<F extends VariableArgFunction> = (
  ...params: ArgumentTypes<F>
) => ReturnType<F>;

export interface Db {
  /** False once closed. */
  readonly open: boolean;
  /** True while a transaction is open on this handle. */
  readonly inTransaction: boolean;
  prepare<BindParameters extends unknown[] | object = unknown[], Result = unknown>(
    source: string,
  ): BindParameters extends unknown[]
    ? Statement<BindParameters, Result>
    : Statement<[BindParameters], Result>;
  /** Wraps `fn`: calling it begins, commits (or rolls back on a throw); nested, a savepoint. */
  transaction<F extends VariableArgFunction>(fn: F): Transaction<F>;
  /** Runs SQL text of one or more statements, no parameters, no rows. */
  exec(source: string): this;
  close(): this;
}

export type StoreKind = 'sqlite' | 'postgres';

/** Marks a Db that is not SQLite's (the PostgreSQL adapter sets it to its kind). */
export const STORE_KIND: unique symbol = Symbol.for('svc.store.kind');

/** Which engine is behind `db`. */
export function storeKind(db: Db): StoreKind {
  return (db as { [STORE_KIND]?: StoreKind })[STORE_KIND] ?? 'sqlite';
}
