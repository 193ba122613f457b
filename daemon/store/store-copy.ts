// A whole sandbox copied between the two stores, table by table through the port: a snapshot
// file (always SQLite, the format svc state export writes) into a PostgreSQL sandbox (svc state
// import|reset in team mode), and a PostgreSQL sandbox into a snapshot file (svc state export).
// The tables, their columns and the order foreign keys need come from SQLite's side (the
// snapshot, or a migrated empty store): both schemas hold the same tables and columns, less what
// is each engine's own (FTS5's shadow tables; PostgreSQL's generated tsvector, its
// svc_schema_version). SQLite's implicit rowid, which the events of a run and knowledge passages
// are ordered by, is a column of PostgreSQL's table, copied with them.
import Database from 'better-sqlite3';
import type { Db } from './db.js';
import { openDatabase, sqliteDb, type SqliteDb } from './database.js';
import { openPostgresDatabase } from './postgres/open.js';

/** Rows per INSERT statement: one round trip each on PostgreSQL (65,535 parameters at most). */
const BATCH_ROWS = 200;

interface TablePlan {
  name: string;
  /** The columns copied, in order (rowid first where PostgreSQL keeps it as a column). */
  columns: string[];
}

/**
 * Replaces the rows of a PostgreSQL sandbox with a snapshot file's (checked and migrated by
 * prepareImport), or with none (`undefined`: svc state reset), on a connection of its own.
 */
export function fillPostgresSandbox(
  sandbox: { url: string; schema: string },
  snapshotFile: string | undefined,
): void {
  const source =
    snapshotFile === undefined
      ? sqliteDb(openDatabase(':memory:'))
      : new Database(snapshotFile, { readonly: true });
  try {
    const target = openPostgresDatabase(sandbox);
    try {
      copySqliteToPostgres(source, target);
    } finally {
      target.close();
    }
  } finally {
    source.close();
  }
}

/**
 * Replaces every row of the PostgreSQL sandbox `target` with those of the SQLite store `source`
 * (a checked, migrated snapshot; an empty store for a reset), in one transaction: on any error
 * nothing changed. Identity columns continue after the highest value copied.
 */
export function copySqliteToPostgres(source: SqliteDb, target: Db): { rows: number } {
  const plan = copyPlan(source, postgresColumns(target));
  let rows = 0;
  target.transaction(() => {
    // One TRUNCATE of them all: no delete trigger fires and no foreign key is in the way.
    target.exec(`TRUNCATE ${plan.map((table) => quote(table.name)).join(', ')}`);
    for (const table of plan) {
      const select = source
        .prepare(`SELECT ${table.columns.map(quote).join(', ')} FROM ${quote(table.name)}`)
        .raw();
      rows += insertBatches(target, table, select.iterate() as IterableIterator<unknown[]>);
    }
    for (const { table, column } of identityColumns(target)) {
      target
        .prepare(
          `SELECT setval(pg_get_serial_sequence(?, ?), COALESCE((SELECT max(${quote(column)}) FROM ${quote(table)}), 0) + 1, false)`,
        )
        .get(table, column);
    }
  })();
  return { rows };
}

/**
 * Writes the PostgreSQL sandbox `source` into `file`, a new SQLite store of the same schema
 * version made by `makeEmpty` (openDatabase with the migrations), read in one REPEATABLE READ
 * transaction: a consistent copy while the daemon serves.
 */
export function copyPostgresToSqliteFile(
  source: Db,
  file: string,
  makeEmpty: (file: string) => void,
): { rows: number } {
  makeEmpty(file);
  const target = new Database(file);
  try {
    const plan = copyPlan(target, postgresColumns(source));
    let rows = 0;
    source.transaction(() => {
      source.exec('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      target.transaction(() => {
        for (const table of [...plan].reverse()) target.exec(`DELETE FROM ${quote(table.name)}`);
        for (const table of plan) {
          const select = source
            .prepare(`SELECT ${table.columns.map(quote).join(', ')} FROM ${quote(table.name)}`)
            .raw();
          const insert = target.prepare(insertSql(table, 1));
          for (const row of select.all() as unknown[][]) {
            insert.run(...row);
            rows += 1;
          }
        }
      })();
    })();
    return { rows };
  } finally {
    target.close();
  }
}

/** Inserts the rows BATCH_ROWS to a statement; answers how many. */
function insertBatches(target: Db, table: TablePlan, rows: IterableIterator<unknown[]>): number {
  const full = target.prepare(insertSql(table, BATCH_ROWS));
  let batch: unknown[][] = [];
  let count = 0;
  const flush = () => {
    if (batch.length === 0) return;
    const statement =
      batch.length === BATCH_ROWS ? full : target.prepare(insertSql(table, batch.length));
    statement.run(...batch.flat());
    count += batch.length;
    batch = [];
  };
  for (const row of rows) {
    batch.push(row);
    if (batch.length === BATCH_ROWS) flush();
  }
  flush();
  return count;
}

function insertSql(table: TablePlan, rows: number): string {
  const one = `(${table.columns.map(() => '?').join(', ')})`;
  return `INSERT INTO ${quote(table.name)} (${table.columns.map(quote).join(', ')}) VALUES ${Array(rows).fill(one).join(', ')}`;
}

/**
 * svc's tables on SQLite's side that PostgreSQL's sandbox has too, parents before the tables
 * that reference them, each with the columns both have (rowid where PostgreSQL has it).
 */
function copyPlan(sqlite: SqliteDb, postgres: Map<string, Set<string>>): TablePlan[] {
  const names = (
    sqlite
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .pluck()
      .all() as string[]
  ).filter((name) => postgres.has(name));
  const parents = new Map(
    names.map((name) => [
      name,
      (sqlite.pragma(`foreign_key_list(${quote(name)})`) as { table: string }[])
        .map((key) => key.table)
        .filter((parent) => parent !== name && names.includes(parent)),
    ]),
  );
  const ordered: string[] = [];
  const visit = (name: string) => {
    if (ordered.includes(name)) return;
    for (const parent of parents.get(name) ?? []) visit(parent);
    ordered.push(name);
  };
  for (const name of names) visit(name);
  return ordered.map((name) => {
    const wanted = postgres.get(name)!;
    const columns = (sqlite.pragma(`table_info(${quote(name)})`) as { name: string }[])
      .map((column) => column.name)
      .filter((column) => wanted.has(column));
    if (wanted.has('rowid') && !columns.includes('rowid')) columns.unshift('rowid');
    return { name, columns };
  });
}

/** The sandbox's tables and their writable columns (generated ones left out). */
function postgresColumns(db: Db): Map<string, Set<string>> {
  const rows = db
    .prepare<[], { table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns
       WHERE table_schema = current_schema() AND is_generated = 'NEVER'`,
    )
    .all();
  const tables = new Map<string, Set<string>>();
  for (const { table_name: table, column_name: column } of rows) {
    if (!tables.has(table)) tables.set(table, new Set());
    tables.get(table)!.add(column);
  }
  return tables;
}

function identityColumns(db: Db): { table: string; column: string }[] {
  return db
    .prepare<[], { table: string; column: string }>(
      `SELECT table_name AS "table", column_name AS "column" FROM information_schema.columns
       WHERE table_schema = current_schema() AND is_identity = 'YES'`,
    )
    .all();
}

function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
