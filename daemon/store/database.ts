// Opens the SQLite store (WAL, foreign keys) and brings its schema up to date.
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MIGRATIONS, type Migration, type MigrationContext } from './migrations.js';

/** The WAL file's size after it starts over (journal_size_limit): the Checkpointer's bound. */
const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

export type Db = Database.Database;

/**
 * The limit of a statement whose limit is a parameter. SQLite (3.46 on) plans a bare `LIMIT ?`
 * with the bound value, and then re-prepares the statement (parse and plan again) every time
 * that parameter is bound, which better-sqlite3 does on every run, even with the same value.
 * `+?` is the same limit but not a bare parameter, so the plan is made once. Measured on the
 * events list (GET /v1/events?limit=20): the re-prepare was a third of its query's time.
 */
export const LIMIT_PARAM = 'LIMIT +?';

export class SchemaTooNewError extends Error {
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `The database has schema version ${found} but this svc knows only up to ${known}. ` +
        'It was written by a newer svc: upgrade svc, or use another --data-dir.',
    );
  }
}

export function openDatabase(
  file: string,
  migrations: readonly Migration[] = MIGRATIONS,
  context: MigrationContext = {},
): Db {
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

/**
 * Checkpoints every frame left in the WAL so that the next write starts the log over from its
 * beginning, on the writer's connection (the Checkpointer calls it when the log grows past its
 * bound). RESTART, not TRUNCATE: cutting a 64 MiB file to nothing costs 100-130 ms here even
 * with no frame left to copy, and blocks every request meanwhile; a restart with a few hundred
 * frames left costs under 10 ms, and journal_size_limit keeps the file's size bounded. It never
 * waits: if the checkpoint worker holds the lock this moment, the next report tries again.
 */
export function restartWal(db: Db): void {
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
  const totalChanges = db.prepare('SELECT total_changes()').pluck();
  return () => totalChanges.get() as number;
}

export function migrate(
  db: Db,
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
