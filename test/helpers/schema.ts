// Makes a daemon's database look as an older svc left it: what the migrations after `version`
// added (tables, indexes, triggers, columns) is removed, the triggers and indexes they dropped
// are back, and user_version is set back, so a test can start the daemon on a database "written
// before" a migration and see that migration run.
import Database from 'better-sqlite3';
import { migrate } from '../../daemon/store/database.js';
import { MIGRATIONS } from '../../daemon/store/migrations.js';

type Db = Database.Database;

function schemaOf(db: Db): Map<string, { type: string; table: string; sql: string }> {
  const rows = db
    .prepare<[], { type: string; name: string; tbl_name: string; sql: string }>(
      "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'",
    )
    .all();
  return new Map(
    rows.map((row) => [row.name, { type: row.type, table: row.tbl_name, sql: row.sql }]),
  );
}

function columnsOf(db: Db, table: string): string[] {
  return db
    .prepare<[], { name: string }>(`PRAGMA table_info(${table})`)
    .all()
    .map((column) => column.name);
}

/**
 * Removes from `db` what the migrations after `version` added; sets user_version to it. Tables
 * named in `keep` are not the store's (a snapshot's svc_snapshot) and stay.
 */
export function downgradeTo(db: Db, version: number, keep: readonly string[] = []): void {
  const older = new Database(':memory:');
  migrate(
    older,
    MIGRATIONS.filter((migration) => migration.version <= version),
  );
  const kept = schemaOf(older);
  const now = schemaOf(db);
  for (const name of keep) now.delete(name);
  const exists = db.prepare<[string], { n: number }>(
    'SELECT COUNT(*) AS n FROM sqlite_master WHERE name = ?',
  );
  // Triggers and indexes first, then tables (which take their own indexes with them), virtual
  // tables before the others: they take their shadow tables, which may not be dropped alone.
  const isVirtual = (object: { sql: string }) => /^CREATE VIRTUAL TABLE/i.test(object.sql ?? '');
  const ordered = [...now].sort(([, a], [, b]) => Number(isVirtual(b)) - Number(isVirtual(a)));
  for (const type of ['trigger', 'index', 'table'] as const) {
    for (const [name, object] of ordered) {
      if (object.type !== type || kept.has(name)) continue;
      if (type !== 'table' && !now.has(object.table)) continue;
      if (exists.get(name)!.n === 0) continue;
      db.exec(`DROP ${type.toUpperCase()} IF EXISTS "${name}"`);
    }
  }
  for (const [name, object] of kept) {
    if (object.type !== 'table') continue;
    const olderColumns = new Set(columnsOf(older, name));
    for (const column of columnsOf(db, name)) {
      if (!olderColumns.has(column)) db.exec(`ALTER TABLE "${name}" DROP COLUMN "${column}"`);
    }
  }
  // What a later migration dropped (the insert triggers of the list counts, an index on
  // deliveries, the first knowledge index) comes back: the result has exactly the schema of
  // `version`. Tables first, virtual ones before the others: they make their own shadow tables.
  for (const [name, object] of [...kept].sort(
    ([, a], [, b]) => Number(isVirtual(b)) - Number(isVirtual(a)),
  )) {
    if (object.type === 'table' && !now.has(name) && exists.get(name)!.n === 0) db.exec(object.sql);
  }
  for (const [name, object] of kept) {
    if ((object.type === 'trigger' || object.type === 'index') && !now.has(name))
      db.exec(object.sql);
  }
  older.close();
  db.pragma(`user_version = ${version}`);
}
