// The SQLite adapter of the store port (db.ts): opens the SQLite store (WAL, foreign keys) and
// brings its schema up to date. better-sqlite3's Database is the port's Db as it is.
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { storeKind, type Db } from './db.js';
import { MIGRATIONS, type Migration, type MigrationContext } from './migrations.js';
import { SchemaTooNewError } from './store-errors.js';

/** The WAL file's size after it starts over (journal_size_limit): the Checkpointer's bound. */
const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

/** SQLite's handle, with what only SQLite has (pragmas): for this adapter and its tools. */
export type SqliteDb = Database.Database;

export { SchemaTooNewError } from './store-errors.js';

/** `db` as SQLite's handle; throws for another store (a caller that should have asked). */
export function sqliteDb(db: Db): SqliteDb {
  if (storeKind(db) !== 'sqlite') throw new TypeError('This needs the SQLite store.');
  return db as SqliteDb;
}

export function openDatabase(
  file: string,
  migrations: readonly Migration[] = MIGRATIONS,
  context: MigrationContext = {},
): SqliteDb {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // NORMAL in WAL mode survives a process crash; only an OS crash can lose the last commits.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // Statement journals (SQLite keeps one for a statement that may have to be undone on its own
  // inside a transaction) stay in memory. With the default, one that outgrows 64 KiB spills to
  // a temporary file, and every later statement of that transaction journals through it: in the
  // workflow bench that was 133 write syscalls and 280 KB written per run, against 26 and 61 KB
  // with this (measured from /proc/<pid>/io). Sorts and temporary tables would stay in memory
  // too; the lists are served from indexes (test/unit/list-plans.test.ts), so none is large.
  db.pragma('temp_store = MEMORY');
  if (file !== ':memory:') {
    // Checkpoints (the only fsyncs with synchronous=NORMAL) never run inside a request's
    // commit: the Checkpointer's worker thread runs them on its own connection (which is why
    // the locking mode stays NORMAL). A WAL that starts over is cut back to 64 MiB, the
    // Checkpointer's bound, so the file is never much larger than that.
    db.pragma('wal_autocheckpoint = 0');
    db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  }
  try {
    migrate(db, migrations, context);
  } catch (error) {
    if (db.open) db.close();
    throw error;
  }
  return db;
}

/** Opens an existing SQLite file (a snapshot) to read only; no migration. */
export function openReadOnly(file: string): Db {
  return new Database(file, { readonly: true, fileMustExist: true });
}

/**
 * Checkpoints every frame left in the WAL so that the next write starts the log over from its
 * beginning, on the writer's connection (the Checkpointer calls it when the log grows past its
 * bound). RESTART, not TRUNCATE: cutting a 64 MiB file to nothing costs 100-130 ms here even
 * with no frame left to copy, and blocks every request meanwhile; a restart with a few hundred
 * frames left costs under 10 ms, and journal_size_limit keeps the file's size bounded. It never
 * waits: if the checkpoint worker holds the lock this moment, the next report tries again.
 */
export function restartWal(store: Db): void {
  const db = sqliteDb(store);
  if (!db.open || db.inTransaction) return;
  const busyTimeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    db.pragma('wal_checkpoint(RESTART)');
  } catch (error) {
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
  } finally {
    db.pragma(`busy_timeout = ${busyTimeout}`);
  }
}

/** A count that grows with every row the connection writes (SQLite's total_changes()). */
export function writeCounter(db: Db): () => number {
  const totalChanges = sqliteDb(db).prepare('SELECT total_changes()').pluck();
  return () => totalChanges.get() as number;
}

export function migrate(
  db: SqliteDb,
  migrations: readonly Migration[],
  context: MigrationContext = {},
): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = migrations.at(-1)?.version ?? 0;
  if (current > latest) throw new SchemaTooNewError(current, latest);
  let ranCode = false;
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      if (migration.sql) db.exec(migration.sql);
      if (migration.run) {
        migration.run(db, context);
        ranCode = true;
      }
      db.pragma(`user_version = ${migration.version}`);
    })();
  }
  if (ranCode) {
    // Code steps rewrite values (sealing secrets): the old versions of those pages must not
    // stay readable in the WAL.
    db.pragma('secure_delete = OFF');
    db.pragma('wal_checkpoint(TRUNCATE)');
  }
}
