// Reads rows as plain objects built in JavaScript from better-sqlite3's raw (array) rows.
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
import type { Db } from './database.js';

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
