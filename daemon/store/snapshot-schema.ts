// What an imported snapshot may contain. A snapshot is an SQLite file, and SQLite files carry
// code: a trigger or a view runs whenever the store is written or read, so a snapshot from
// elsewhere (a CI artifact, a teammate's bug report) could rewrite every key created after it,
// or stall each write on a recursive query. An import therefore accepts exactly the schema that
// svc's own migrations create for the version the snapshot claims (its user_version): the same
// tables, indexes and triggers with the same definitions, and nothing else. The reference is
// built by running those migrations on an in-memory database, so it cannot drift from them.
//
// Values are checked where svc parses them: a column svc stores JSON in must hold JSON text,
// or reading the row would fail later with an internal error instead of a clear refusal now.
import Database from 'better-sqlite3';
import { ApiError } from '../domain/errors.js';
import { migrate, type SqliteDb as Db } from './database.js';
import type { Migration } from './migrations.js';

/** The table that export adds to the store's copy; the only object a snapshot has beyond it. */
export const SNAPSHOT_TABLE_SQL =
  'CREATE TABLE svc_snapshot (key TEXT PRIMARY KEY, value TEXT NOT NULL)';

interface SchemaObject {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

/** Columns svc writes as JSON text and parses when it reads them (JSON.parse in the services). */
export const JSON_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  agents: ['capabilities', 'guardrails', 'personality', 'brain'],
  agent_executions: ['context'],
  agent_stubs: ['result'],
  timers: ['payload'],
  dead_timers: ['payload'],
  events: ['envelope'],
  webhooks: ['events'],
  deliveries: ['body'],
  integrations: ['config'],
  workflows: ['trigger'],
  workflow_versions: ['steps', 'settings'],
  workflow_executions: ['input', 'frontier', 'result'],
  workflow_step_runs: ['result'],
  workflow_triggers: ['event_patterns'],
  oauth_apps: ['redirect_uris'],
  fixture_objects: ['declaration', 'extra'],
};

const references = new Map<number, Map<string, SchemaObject>>();

/** The objects svc's migrations up to `version` create, by name (built once per version). */
function referenceSchema(version: number, migrations: readonly Migration[]) {
  let reference = references.get(version);
  if (!reference) {
    const db = new Database(':memory:');
    try {
      migrate(
        db,
        migrations.filter((migration) => migration.version <= version),
      );
      db.exec(SNAPSHOT_TABLE_SQL);
      reference = objectsOf(db);
    } finally {
      db.close();
    }
    references.set(version, reference);
  }
  return reference;
}

function objectsOf(db: Db): Map<string, SchemaObject> {
  const rows = db
    .prepare<[], SchemaObject>('SELECT type, name, tbl_name, sql FROM sqlite_master')
    .all();
  return new Map(rows.map((row) => [row.name, row]));
}

/**
 * Runs of white space are one space: SQLite keeps a CREATE statement's text as it was typed, and
 * the table text an ALTER TABLE leaves behind may differ from the migration's only in spacing.
 */
function normalised(sql: string | null): string | null {
  return sql === null ? null : sql.replace(/\s+/g, ' ').trim();
}

function describe(object: SchemaObject): string {
  const kind = object.sql?.startsWith('CREATE VIRTUAL') ? 'virtual table' : object.type;
  return object.type === 'table' || object.tbl_name === object.name
    ? `${kind} ${object.name}`
    : `${kind} ${object.name} (on ${object.tbl_name})`;
}

/**
 * Refuses a snapshot whose schema is not the one svc creates for `version`, naming each object
 * that is extra, missing or defined differently. Reads sqlite_master only: nothing in the
 * snapshot runs.
 */
export function checkSchema(
  db: Db,
  version: number,
  migrations: readonly Migration[],
  shownAs: string,
): void {
  const known = migrations.map((migration) => migration.version);
  if (!known.includes(version)) {
    throw new ApiError(
      'invalid_parameter',
      `The snapshot ${shownAs} claims store schema ${version}, which no svc writes (svc store schemas are ${known[0]} to ${known.at(-1)}): it was not made by svc state export, or was changed after. Export it again with svc state export.`,
      { param: 'file' },
    );
  }
  const reference = referenceSchema(version, migrations);
  const found = objectsOf(db);
  // What does not belong at all (a planted trigger, a table of another schema) is named first:
  // with a lowered user_version every table changed since reads "defined differently" too, and
  // only the first five problems are in the message.
  const extra: string[] = [];
  const changed: string[] = [];
  for (const [name, object] of found) {
    const expected = reference.get(name);
    if (!expected) extra.push(`${describe(object)} is not part of it`);
    else if (
      expected.type !== object.type ||
      expected.tbl_name !== object.tbl_name ||
      normalised(expected.sql) !== normalised(object.sql)
    ) {
      changed.push(`${describe(object)} is defined differently`);
    }
  }
  const missing = [...reference]
    .filter(([name]) => !found.has(name))
    .map(([, object]) => `${describe(object)} is missing`);
  const problems = [...extra, ...missing, ...changed];
  if (problems.length > 0) {
    const shown = problems.slice(0, 5).join('; ');
    const more = problems.length > 5 ? ` (and ${problems.length - 5} more)` : '';
    throw new ApiError(
      'invalid_parameter',
      `The snapshot ${shownAs} does not have the schema svc writes for store schema ${version}: ${shown}${more}. A snapshot may hold only svc's own tables, indexes and triggers; export it again with svc state export.`,
      { param: 'file', extras: { schema_problems: problems } },
    );
  }
}

/** Refuses a snapshot with a value svc would fail to parse, naming the table and column. */
export function checkJsonColumns(db: Db, shownAs: string): void {
  for (const [table, columns] of Object.entries(JSON_COLUMNS)) {
    const present = new Set(
      db
        .prepare<[string], { name: string }>('SELECT name FROM pragma_table_info(?)')
        .all(table)
        .map((row) => row.name),
    );
    for (const column of columns) {
      if (!present.has(column)) continue;
      // Identifiers come from the constant table above, never from the snapshot.
      const bad = db
        .prepare(
          `SELECT 1 FROM "${table}" WHERE "${column}" IS NOT NULL
             AND (typeof("${column}") <> 'text' OR NOT json_valid("${column}")) LIMIT 1`,
        )
        .get();
      if (bad) {
        throw new ApiError(
          'invalid_parameter',
          `The snapshot ${shownAs} has a value in ${table}.${column} that is not JSON (svc stores JSON there): it was changed after svc state export wrote it. Export it again with svc state export.`,
          { param: 'file', extras: { table, column } },
        );
      }
    }
  }
}
