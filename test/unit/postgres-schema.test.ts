// The PostgreSQL schema (store/postgres/migrations.ts) and SQLite's (store/migrations.ts) are
// the same schema: same version, tables, columns (type, NOT NULL) and indexes (name, table, key
// columns), so that neither can drift from the other. What each store keeps its own way is
// listed here, with its reason.
import test from 'ava';
import { openDatabase } from '../../daemon/store/database.js';
import type { Db } from '../../daemon/store/db.js';
import { MIGRATIONS } from '../../daemon/store/migrations.js';
import { SchemaTooNewError } from '../../daemon/store/store-errors.js';
import { POSTGRES_MIGRATIONS, VERSION_TABLE } from '../../daemon/store/postgres/migrations.js';
import { openPostgresDatabase } from '../../daemon/store/postgres/open.js';
import { freshSchema, testPostgres } from '../helpers/postgres.js';

/** Columns PostgreSQL has where SQLite has an implicit rowid or FTS5's own index. */
const POSTGRES_ONLY_COLUMNS = new Set([
  'events.rowid', // SQLite's implicit rowid: the order a run's events were published in
  'knowledge_passages.rowid', // FTS5's rowid
  'knowledge_passages.words', // the tsvector FTS5 keeps in its shadow tables
]);
/** FTS5 keeps its index in shadow tables; PostgreSQL in indexes of the passages' table. */
const POSTGRES_ONLY_INDEXES = new Set([
  'knowledge_passages_words',
  'knowledge_passages_by_agent',
  'knowledge_passages_by_document',
]);
const SQLITE_TYPES: Record<string, string> = {
  TEXT: 'text',
  INTEGER: 'bigint',
  REAL: 'double precision',
  '': '',
};

interface Column {
  type: string;
  notNull: boolean;
}

interface Shape {
  columns: Map<string, Column>;
  /** index name -> `table(key columns)` */
  indexes: Map<string, string>;
}

function sqliteShape(db: Db): Shape {
  const columns = new Map<string, Column>();
  const indexes = new Map<string, string>();
  const tables = db
    .prepare<[], { name: string; sql: string }>(
      "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
    )
    .all()
    // FTS5's shadow tables are its index, not part of the schema.
    .filter((table) => !/^knowledge_passages_/.test(table.name));
  for (const { name } of tables) {
    const fts = name === 'knowledge_passages';
    for (const column of db
      .prepare<[], { name: string; type: string; notnull: number; pk: number }>(
        `SELECT * FROM pragma_table_info('${name}')`,
      )
      .all()) {
      columns.set(`${name}.${column.name}`, {
        type: fts ? '' : SQLITE_TYPES[column.type]!,
        // A PRIMARY KEY column is NOT NULL in PostgreSQL (and never null in svc's rows).
        notNull: !fts && (column.notnull === 1 || column.pk > 0),
      });
    }
  }
  for (const index of db
    .prepare<[], { name: string; tbl_name: string }>(
      "SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL",
    )
    .all()) {
    const keys = db
      .prepare<[], { name: string }>(`SELECT name FROM pragma_index_info('${index.name}')`)
      .all()
      .map((key) => key.name);
    indexes.set(index.name, `${index.tbl_name}(${keys.join(', ')})`);
  }
  return { columns, indexes };
}

function postgresShape(db: Db, schema: string): Shape {
  const columns = new Map<string, Column>();
  const indexes = new Map<string, string>();
  for (const column of db
    .prepare<
      [string],
      { table_name: string; column_name: string; data_type: string; is_nullable: string }
    >(
      `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
       WHERE table_schema = ? AND table_name <> '${VERSION_TABLE}'`,
    )
    .all(schema)) {
    const name = `${column.table_name}.${column.column_name}`;
    if (POSTGRES_ONLY_COLUMNS.has(name)) continue;
    const fts = column.table_name === 'knowledge_passages';
    columns.set(name, {
      type: fts ? '' : column.data_type,
      notNull: !fts && column.is_nullable === 'NO',
    });
  }
  // Indexes PostgreSQL names itself (primary keys, UNIQUE columns) are SQLite's autoindexes.
  for (const index of db
    .prepare<[string], { name: string; table: string; keys: string }>(
      `SELECT i.relname AS name, t.relname AS table,
              string_agg(a.attname, ', ' ORDER BY k.ord) AS keys
       FROM pg_index x
       JOIN pg_class i ON i.oid = x.indexrelid
       JOIN pg_class t ON t.oid = x.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
       CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord)
       JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
       WHERE n.nspname = ? AND NOT x.indisprimary
         AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)
       GROUP BY i.relname, t.relname`,
    )
    .all(schema)) {
    if (POSTGRES_ONLY_INDEXES.has(index.name)) continue;
    // SQLite's indexes end with the implicit rowid; events_by_execution names it.
    const keys = index.keys.split(', ').filter((key) => key !== 'rowid');
    indexes.set(index.name, `${index.table}(${keys.join(', ')})`);
  }
  return { columns, indexes };
}

const sorted = <V>(map: Map<string, V>) => [...map].sort(([a], [b]) => (a < b ? -1 : 1));

test('both stores know the same last schema version', (t) => {
  t.is(POSTGRES_MIGRATIONS.at(-1)!.version, MIGRATIONS.at(-1)!.version);
});

test('PostgreSQL has the same tables, columns and indexes as SQLite', async (t) => {
  const { url } = await testPostgres();
  const schema = freshSchema();
  const postgres = openPostgresDatabase({ url, schema });
  const sqlite = openDatabase(':memory:');
  t.teardown(() => {
    postgres.close();
    sqlite.close();
  });
  const expected = sqliteShape(sqlite);
  const actual = postgresShape(postgres, schema);
  t.true(expected.columns.size > 200, `${expected.columns.size} columns compared`);
  t.true(expected.indexes.size > 40, `${expected.indexes.size} indexes compared`);
  t.deepEqual(sorted(actual.columns), sorted(expected.columns));
  t.deepEqual(sorted(actual.indexes), sorted(expected.indexes));
});

test('a sandbox written by a newer svc is refused, untouched', async (t) => {
  const { url } = await testPostgres();
  const schema = freshSchema();
  const db = openPostgresDatabase({ url, schema });
  db.prepare(`UPDATE ${VERSION_TABLE} SET version = version + 1`).run();
  db.close();
  const latest = POSTGRES_MIGRATIONS.at(-1)!.version;
  const error = t.throws(() => openPostgresDatabase({ url, schema }), {
    instanceOf: SchemaTooNewError,
  });
  t.is(error?.found, latest + 1);
  t.is(error?.known, latest);
  // A newer svc (one more migration) opens it, and nothing was run or changed meanwhile.
  const again = openPostgresDatabase({
    url,
    schema,
    migrations: [...POSTGRES_MIGRATIONS, { version: latest + 1, name: 'next', sql: 'SELECT 1' }],
  });
  t.teardown(() => again.close());
  t.is(again.prepare(`SELECT version FROM ${VERSION_TABLE}`).pluck().get(), latest + 1);
});
