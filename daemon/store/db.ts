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
  /**
   * What one daemon tells the others serving the same sandbox (team mode). Absent on SQLite:
   * one daemon, nothing to tell. See Notifications.
   */
  readonly notifications?: Notifications;
}

/** Hears a notification of another daemon: its topic and payload (data, never code). */
export type NotificationListener = (topic: string, payload: string) => void;

/**
 * Notifications between the daemons of one sandbox (PostgreSQL's LISTEN/NOTIFY on one channel
 * per sandbox). A daemon never hears its own. Delivery is at most once: a daemon whose
 * listening connection was lost hears RESYNC_TOPIC once it is back, and reloads what it keeps
 * in memory, as it cannot know what it missed.
 */
export interface Notifications {
  /**
   * Inside a transaction: sent with its commit (dropped if it, or the savepoint it was sent in,
   * rolls back), so the others hear of a change only once they can read it. Outside: at once.
   * `topic` is a word (no tab); topic and payload together at most 7,000 bytes.
   */
  notify(topic: string, payload: string): void;
  /** Starts listening (the first call connects); returns the function that stops this one. */
  onNotification(listener: NotificationListener): () => void;
}

/** Heard after the listening connection was lost and made again: notifications were missed. */
export const RESYNC_TOPIC = 'store.resync';

export type StoreKind = 'sqlite' | 'postgres';

/** Marks a Db that is not SQLite's (the PostgreSQL adapter sets it to its kind). */
export const STORE_KIND: unique symbol = Symbol.for('svc.store.kind');

/** Which engine is behind `db`. */
export function storeKind(db: Db): StoreKind {
  return (db as { [STORE_KIND]?: StoreKind })[STORE_KIND] ?? 'sqlite';
}
