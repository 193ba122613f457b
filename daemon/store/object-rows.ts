// Reads rows as plain objects built in JavaScript from better-sqlite3's raw (array) rows, and
// writes them with their fields bound by position.
//
// On Node 20, better-sqlite3 builds an object row with one V8 API call per column, interning
// the column's name again for every row: measured 85 µs for a page of 20 run rows (20 columns)
// against 49 µs for the same rows read raw and copied into objects here. Reading a page of runs
// with its step rows was mostly that cost. (better-sqlite3 builds the object in one call when
// built for Node 22 and later, NODE_MODULE_VERSION >= 127: there this module gains less.)
//
// Each row starts as a copy of a template with every column (one object shape for all rows of a
// statement, cloned fast by V8), then takes the values by index. Columns with the same name keep
// the last one, as better-sqlite3 does.
//
// Writing, better-sqlite3 binds each named parameter (@name) by looking the name up on the
// object through the V8 API, making the name's string again on every call: measured 3.5 µs
// against 1.9 for an insert of 20 columns, 1.7 against 1.2 for 5. prepareRowWrite keeps the
// statement's text with its names, and binds the object's fields in their order as positional
// parameters.
import { storeKind, type Db, type RunResult } from './db.js';
import { prepareLaterWrite } from './later-writes.js';

export interface RowReader<P extends unknown[], R> {
  /** The first row, or undefined. */
  get(...params: P): R | undefined;
  all(...params: P): R[];
}

/** Prepares a SELECT whose rows are built here (the statement is read raw). */
export function prepareRows<R, P extends unknown[] = unknown[]>(
  db: Db,
  sql: string,
): RowReader<P, R> {
  // The PostgreSQL adapter builds object rows this way itself (it gets arrays from its worker).
  if (storeKind(db) === 'postgres') return db.prepare<P, R>(sql);
  const raw = db.prepare(sql).raw(true);
  const build = objectBuilder<R>(raw.columns().map((column) => column.name));
  return {
    get: (...params) => {
      const values = raw.get(...params) as unknown[] | undefined;
      return values === undefined ? undefined : build(values);
    },
    all: (...params) => (raw.all(...params) as unknown[][]).map(build),
  };
}

function objectBuilder<R>(names: readonly string[]): (values: unknown[]) => R {
  const template = Object.fromEntries(names.map((name) => [name, null])) as Record<string, unknown>;
  const count = names.length;
  return (values) => {
    const row = { ...template };
    for (let index = 0; index < count; index += 1) row[names[index]!] = values[index];
    return row as R;
  };
}

export interface RowWriter<R> {
  run(row: R): RunResult;
}

/** Prepares an INSERT or UPDATE written with @name parameters, bound by position from `row`. */
export function prepareRowWrite<R extends object>(db: Db, sql: string): RowWriter<R> {
  const { text, bind } = rowBinding(sql);
  const statement = db.prepare(text);
  return { run: (row) => statement.run(...bind(row)) };
}

export interface LaterRowWriter<R> {
  run(row: R): void;
}

/**
 * prepareRowWrite for a write whose result is not read: on PostgreSQL, inside a transaction,
 * sent with the transaction's next statement or its COMMIT (store/later-writes.ts says when).
 */
export function prepareLaterRowWrite<R extends object>(db: Db, sql: string): LaterRowWriter<R> {
  const { text, bind } = rowBinding(sql);
  const statement = prepareLaterWrite(db, text);
  return { run: (row) => statement.run(...bind(row)) };
}

/** The statement's text with each @name a ?, and the binder of a row's fields in that order. */
function rowBinding(sql: string): { text: string; bind: (row: object) => unknown[] } {
  const names: string[] = [];
  // A string literal is kept as it is (an @ in it is text); each parameter becomes a ?.
  const text = sql.replace(/'(?:[^']|'')*'|@([A-Za-z_]\w*)/g, (match, name: string | undefined) => {
    if (name === undefined) return match;
    names.push(name);
    return '?';
  });
  const count = names.length;
  return {
    text,
    bind: (row) => {
      const fields = row as Record<string, unknown>;
      const values = new Array<unknown>(count);
      for (let index = 0; index < count; index += 1) {
        const value = fields[names[index]!];
        // As better-sqlite3 for a named parameter the object lacks (undefined binds nothing).
        if (value === undefined) throw new RangeError(`Missing named parameter "${names[index]}"`);
        values[index] = value;
      }
      return values;
    },
  };
}

/** The names of a column list written as SQL ('a, b, c'), as the union 'a' | 'b' | 'c'. */
type ColumnNames<S extends string> = S extends `${infer Head}, ${infer Tail}`
  ? Head | ColumnNames<Tail>
  : S;

/**
 * Prepares `INSERT INTO table (columns) VALUES (...)` from the column list alone (each column
 * written once; the rows it takes must have every one of them), bound by position like
 * prepareRowWrite.
 */
export function prepareInsert<const S extends string>(
  db: Db,
  table: string,
  columns: S,
): RowWriter<Record<ColumnNames<S>, unknown>> {
  return prepareRowWrite(db, insertSql(table, columns));
}

/** prepareInsert of a row whose insert's result is not read (see prepareLaterRowWrite). */
export function prepareLaterInsert<const S extends string>(
  db: Db,
  table: string,
  columns: S,
): LaterRowWriter<Record<ColumnNames<S>, unknown>> {
  return prepareLaterRowWrite(db, insertSql(table, columns));
}

function insertSql(table: string, columns: string): string {
  const values = columns.replace(/\w+/g, (column) => `@${column}`);
  return `INSERT INTO ${table} (${columns}) VALUES (${values})`;
}
