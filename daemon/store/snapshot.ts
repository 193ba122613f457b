// Snapshots of the whole sandbox (`svc state export|import`): a SQLite database file written with
// VACUUM INTO on the daemon's own connection (one consistent read inside a transaction, while the
// daemon serves; the WAL checkpoint worker's connection never blocks it), plus a svc_snapshot
// table that records the format, the svc and schema versions and when it was taken.
// Everything lives in the store, so the copy holds it all: workspaces, key hashes, agents,
// knowledge, workflows, runs with their timers, deliveries, events, OAuth apps and grants,
// sealed secrets, and the sandbox clock offset (settings); less what is the serving daemons'
// own and not the sandbox's (leaveOutDaemonsOwn), the same from either store.
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  closeSync,
  constants,
  linkSync,
  fstatSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { randomBase62 } from '../../shared/ids.js';
import { SecretBox } from '../platform/secret-box.js';
import { ApiError } from '../domain/errors.js';
import { migrate, openDatabase, sqliteDb, type SqliteDb as Db } from './database.js';
import { storeKind, type Db as StoreDb } from './db.js';
import { copyPostgresToSqliteFile } from './store-copy.js';
import { checkExportTarget } from './export-target.js';
import type { Migration } from './migrations.js';
import { checkJsonColumns, checkSchema, SNAPSHOT_TABLE_SQL } from './snapshot-schema.js';
import { checkIds } from './snapshot-ids.js';
import { RUN_STATE_VERSION, UnreadableRunState, upgradeStoredRunState } from './run-state.js';
import type {
  ImportedKey,
  SnapshotInfo,
  SnapshotWritten,
} from '../../shared/schemas/control-output.js';

export type { ImportedKey, SnapshotInfo, SnapshotWritten };

export const SNAPSHOT_FORMAT = 'svc-snapshot';
export const SNAPSHOT_FORMAT_VERSION = 1;
/** The settings row of the sandbox's secret key verifier (daemon/app/secret-key.ts). */
export const SECRET_KEY_VERIFIER = 'secret_key_verifier';

/**
 * Writes a consistent snapshot of `db` to `file` (through a temp file: never a half file). Never
 * into the data dir; over an existing file only with `force` (export-target.ts).
 */
export function writeSnapshot(
  store: StoreDb,
  file: string,
  meta: { svcVersion: string; environment: string; createdAt: string },
  target: { dataDir: string; force: boolean },
): SnapshotWritten {
  const onPostgres = storeKind(store) === 'postgres';
  checkExportTarget(file, {
    ...target,
    databaseFile: onPostgres ? join(target.dataDir, 'svc.db') : sqliteDb(store).name,
  });
  const temp = `${file}.${randomBytes(4).toString('hex')}.partial`;
  try {
    // The same file from either store: SQLite's own copy, or PostgreSQL's rows written into a
    // new SQLite store of the same schema (store-copy.ts).
    if (onPostgres) copyPostgresToSqliteFile(store, temp, (empty) => openDatabase(empty).close());
    else sqliteDb(store).prepare('VACUUM INTO ?').run(temp);
    const copy = new Database(temp);
    try {
      copy.pragma('journal_mode = DELETE');
      // The rows left out below are overwritten, not only unlinked: a token's hash or a daemon's
      // address must not stay readable in the file's free pages.
      copy.pragma('secure_delete = ON');
      const info: SnapshotInfo = {
        format: SNAPSHOT_FORMAT,
        format_version: SNAPSHOT_FORMAT_VERSION,
        svc_version: meta.svcVersion,
        schema_version: copy.pragma('user_version', { simple: true }) as number,
        environment: meta.environment,
        created_at: meta.createdAt,
      };
      leaveOutDaemonsOwn(copy);
      copy.exec(SNAPSHOT_TABLE_SQL);
      const insert = copy.prepare('INSERT INTO svc_snapshot (key, value) VALUES (?, ?)');
      for (const [key, value] of Object.entries(info)) insert.run(key, String(value));
      copy.close();
      publish(temp, file, target.force);
      return { ...info, file, bytes: statSync(file).size };
    } finally {
      if (copy.open) copy.close();
    }
  } catch (error) {
    rmSync(temp, { force: true });
    if (error instanceof ApiError) throw error;
    throw new ApiError(
      'invalid_parameter',
      `Cannot write the snapshot to ${file}: ${(error as Error).message}. Give a path in a directory you can write to.`,
      { param: 'file' },
    );
  }
}

/**
 * Puts the finished snapshot at `file`. Without `force` a hard link, which fails if a file
 * appeared there since the check, so nothing is replaced unasked even then.
 */
function publish(temp: string, file: string, force: boolean): void {
  if (force) {
    renameSync(temp, file);
    return;
  }
  try {
    linkSync(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new ApiError(
        'conflict',
        `${file} exists. Give another path, or pass --force (force: true) to replace it.`,
        { param: 'file' },
      );
    }
    // A file system without hard links: the check made just before stands.
    renameSync(temp, file);
    return;
  }
  rmSync(temp, { force: true });
}

/** A sealed value of the snapshot that this data dir's key cannot open. */
export interface UnreadableSecret {
  /** `secret CRM_TOKEN (workspace ws_...)`, `webhook hook_...`: what the user knows it as. */
  what: string;
  table: string;
  id: string;
  /** A workspace secret's key (its workspace id and name, either of which may hold a `/`). */
  secret?: { workspace_id: string; name: string };
}

export interface PreparedImport {
  info: SnapshotInfo;
  /** Schema version of the snapshot before migrations ran. */
  from_schema_version: number;
  unreadable: UnreadableSecret[];
  /** With --drop-secrets: new signing secrets given to webhooks and hook triggers (shown once). */
  replaced_secrets: { what: string; id: string; secret: string }[];
  /** The snapshot's API keys that were not revoked, now valid here. */
  keys: ImportedKey[];
  /** Operator credentials found in the snapshot and left out (the daemon mints its own). */
  dropped_operator_keys: number;
}

/**
 * Copies a snapshot to `staging` and makes it this svc's store: checks it is a regular file
 * holding exactly svc's schema of the version it claims (snapshot-schema.ts), with JSON where
 * svc keeps JSON; finds the sealed values this data dir's key cannot open (refused unless
 * `dropSecrets`, which drops them, or gives webhooks and hooks new secrets); leaves out operator
 * credentials; runs migrations; and leaves out who served the sandbox (leaveOutServing). Synchronous and long on a big snapshot: the daemon runs it
 * on a worker thread (import-worker.ts).
 */
export function prepareImport(
  file: string,
  staging: string,
  options: {
    migrations: readonly Migration[];
    secretBox: SecretBox;
    svcVersion: string;
    dropSecrets: boolean;
  },
): PreparedImport {
  removeStaged(staging);
  copyRegularFile(file, staging);
  let db: Db | undefined;
  try {
    db = openSnapshot(staging, file);
    const info = readInfo(db, file);
    const latest = options.migrations.at(-1)?.version ?? 0;
    if (info.schema_version > latest) {
      throw new ApiError(
        'conflict',
        `The snapshot ${file} was made by svc ${info.svc_version} (store schema ${info.schema_version}); this svc ${options.svcVersion} knows store schemas up to ${latest}. Import it with svc ${info.svc_version} or newer.`,
        { param: 'file' },
      );
    }
    checkSchema(db, info.schema_version, options.migrations, file);
    checkIntegrity(db, file);
    checkJsonColumns(db, file);
    checkIds(db, file);
    const unreadable = findUnreadable(db, options.secretBox);
    if (unreadable.length > 0 && !options.dropSecrets) {
      throw new ApiError(
        'conflict',
        `The snapshot's secrets were sealed with another data dir's key (secret.key), so ${unreadable.length} cannot be opened here: ${unreadable
          .map((item) => item.what)
          .join(
            ', ',
          )}. Import it with --drop-secrets to drop them (webhooks and hook triggers get new signing secrets), or import it into the data dir it came from.`,
        { param: 'file', extras: { unreadable_secrets: unreadable.map((item) => item.what) } },
      );
    }
    const replaced = options.dropSecrets ? dropUnreadable(db, unreadable, options.secretBox) : [];
    // The operator credential is the daemon's own, minted at each start and handed out over the
    // control channel only: one planted in a snapshot would answer as the operator.
    const droppedOperatorKeys = db
      .prepare("DELETE FROM api_keys WHERE kind = 'operator'")
      .run().changes;
    // Its sealed values were checked against this daemon's key above: the daemon stores that
    // key's verifier when it opens the store (app/secret-key.ts), not one the file brings.
    db.prepare('DELETE FROM settings WHERE key = ?').run(SECRET_KEY_VERIFIER);
    const keys = importedKeys(db);
    db.exec('DROP TABLE svc_snapshot');
    try {
      migrate(db, options.migrations, { secretBox: options.secretBox });
    } catch (error) {
      throw new ApiError(
        'invalid_parameter',
        `The snapshot ${file} (store schema ${info.schema_version}) could not be brought to store schema ${latest}: ${(error as Error).message}. Export it again with svc state export.`,
        { param: 'file' },
      );
    }
    upgradeRunStates(db, file);
    leaveOutServing(db);
    db.pragma('journal_mode = WAL');
    db.close();
    return {
      info,
      from_schema_version: info.schema_version,
      unreadable,
      replaced_secrets: replaced,
      keys,
      dropped_operator_keys: droppedOperatorKeys,
    };
  } catch (error) {
    if (db?.open) db.close();
    removeStaged(staging);
    throw error;
  }
}

/**
 * Removes a staged store file and what SQLite keeps beside it: its -wal and -shm (a read of a
 * file in WAL mode makes them, and a read-only connection leaves them when it closes) and a
 * rollback -journal.
 */
export function removeStaged(staging: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(staging + suffix, { force: true });
}

/**
 * What a snapshot never carries, from either store: what belongs to the daemons that serve the
 * sandbox rather than to the sandbox. The secret key's verifier (app/secret-key.ts): an import
 * checks the sealed values against the importing daemon's key instead. The operator credentials
 * the daemons minted (each daemon's own, handed out over its control channel only). And who
 * served it (leaveOutServing). An import leaves them out again: an older svc's snapshot, or one
 * changed after export, may hold them.
 */
function leaveOutDaemonsOwn(db: Db): void {
  db.prepare('DELETE FROM settings WHERE key = ?').run(SECRET_KEY_VERIFIER);
  db.prepare("DELETE FROM api_keys WHERE kind = 'operator'").run();
  leaveOutServing(db);
}

/**
 * Who served the sandbox a snapshot was taken of is not the sandbox's: its daemons (team mode)
 * and what they held (timer and step claims, which only a takeover of those daemons would
 * release), the rate-limit windows they counted and the dashboard's logins. Left out, after the
 * migrations made every such table: the daemon that imports serves the sandbox as itself (it
 * joins again at its next heartbeat), its runs' steps are claimed afresh, and a login token or
 * session copied with a snapshot opens nothing.
 */
function leaveOutServing(db: Db): void {
  db.exec(`
    DELETE FROM daemons;
    DELETE FROM run_step_claims;
    UPDATE timers SET claimed_by = NULL WHERE claimed_by IS NOT NULL;
    DELETE FROM rate_counters;
    DELETE FROM dashboard_login_tokens;
    DELETE FROM dashboard_sessions;
  `);
}

/**
 * Every run's stored state at the version this svc writes (run-state.ts), so that an old
 * snapshot's runs are upgraded once, here, and not at each read. A state this svc cannot read
 * refuses the snapshot, naming the run: one from a newer svc, or one that is not a run state.
 * In pages of ids: better-sqlite3 cannot update a table while it iterates over it.
 */
function upgradeRunStates(db: Db, file: string): void {
  const page = db.prepare<[string, number], { id: string; frontier: string }>(
    `SELECT id, frontier FROM workflow_executions
       WHERE id > ? AND json_extract(frontier, '$.v') IS NOT ${RUN_STATE_VERSION}
       ORDER BY id LIMIT ?`,
  );
  const update = db.prepare('UPDATE workflow_executions SET frontier = ? WHERE id = ?');
  let after = '';
  for (;;) {
    const rows = page.all(after, 500);
    if (rows.length === 0) return;
    db.transaction(() => {
      for (const row of rows) {
        try {
          update.run(upgradeStoredRunState(row.frontier, row.id), row.id);
        } catch (error) {
          if (!(error instanceof UnreadableRunState)) throw error;
          throw new ApiError(
            error.reason === 'newer' ? 'conflict' : 'invalid_parameter',
            error.reason === 'newer'
              ? `The snapshot ${file} holds runs written by a newer svc: ${error.message}`
              : `The snapshot ${file} has run ${row.id}, whose stored state svc cannot read (${error.why}): it was changed after svc state export wrote it. Export it again with svc state export.`,
            { param: 'file', extras: { execution_id: row.id } },
          );
        }
      }
    })();
    after = rows.at(-1)!.id;
  }
}

/**
 * Copies `file` to `to` if it is a regular file. Opened without blocking and checked on the open
 * descriptor: a named pipe would block the read until a writer came (forever, if none does),
 * and checking the path first would let it be swapped for one in between.
 */
function copyRegularFile(file: string, to: string): void {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new ApiError(
      'invalid_parameter',
      `Cannot read the snapshot ${file}: ${(error as Error).message}.`,
      { param: 'file' },
    );
  }
  try {
    if (!fstatSync(fd).isFile()) {
      throw new ApiError(
        'invalid_parameter',
        `${file} is not a regular file (a snapshot is one, written by svc state export FILE); pipes, devices and directories are not read.`,
        { param: 'file' },
      );
    }
    const out = openSync(to, 'w', 0o600);
    try {
      const buffer = Buffer.allocUnsafe(1024 * 1024);
      for (;;) {
        const read = readSync(fd, buffer, 0, buffer.length, null);
        if (read === 0) break;
        writeSync(out, buffer, 0, read);
      }
    } finally {
      closeSync(out);
    }
  } catch (error) {
    rmSync(to, { force: true });
    if (error instanceof ApiError) throw error;
    throw new ApiError(
      'invalid_parameter',
      `Cannot read the snapshot ${file}: ${(error as Error).message}.`,
      { param: 'file' },
    );
  } finally {
    closeSync(fd);
  }
}

function openSnapshot(path: string, shownAs: string): Db {
  try {
    const db = new Database(path);
    // Defence in depth: functions with side effects are not run from the schema's SQL. The
    // schema check below refuses any trigger or view that is not svc's own anyway.
    db.pragma('trusted_schema = OFF');
    db.pragma('journal_mode = DELETE');
    return db;
  } catch {
    throw notSnapshot(shownAs);
  }
}

function readInfo(db: Db, file: string): SnapshotInfo {
  // svc_snapshot must be the plain table export writes before it is read: a view of that name
  // would run the snapshot's own query.
  const table = db
    .prepare<[], { sql: string | null }>(
      "SELECT sql FROM sqlite_master WHERE name = 'svc_snapshot' AND type = 'table'",
    )
    .get();
  if (table?.sql !== SNAPSHOT_TABLE_SQL) throw notSnapshot(file);
  let rows: { key: string; value: string }[];
  try {
    rows = db
      .prepare<[], { key: string; value: string }>('SELECT key, value FROM svc_snapshot')
      .all();
  } catch {
    throw notSnapshot(file);
  }
  const values = Object.fromEntries(rows.map((row) => [row.key, row.value]));
  if (values.format !== SNAPSHOT_FORMAT) throw notSnapshot(file);
  const formatVersion = Number(values.format_version);
  if (formatVersion > SNAPSHOT_FORMAT_VERSION) {
    throw new ApiError(
      'conflict',
      `The snapshot ${file} is in snapshot format ${formatVersion} (svc ${values.svc_version}); this svc reads format ${SNAPSHOT_FORMAT_VERSION}. Upgrade svc.`,
      { param: 'file' },
    );
  }
  return {
    format: SNAPSHOT_FORMAT,
    format_version: formatVersion,
    svc_version: values.svc_version ?? 'unknown',
    schema_version: db.pragma('user_version', { simple: true }) as number,
    environment: values.environment ?? 'sandbox',
    created_at: values.created_at ?? '',
  };
}

/** A damaged file would pass the checks above and fail later, request by request. */
function checkIntegrity(db: Db, file: string): void {
  const result = db.pragma('quick_check(1)', { simple: true }) as string;
  if (result !== 'ok') {
    throw new ApiError(
      'invalid_parameter',
      `The snapshot ${file} is damaged (SQLite's quick_check: ${result}). Export it again with svc state export.`,
      { param: 'file' },
    );
  }
}

function importedKeys(db: Db): ImportedKey[] {
  return db
    .prepare<[], { id: string; name: string; scopes: string; workspace_id: string | null }>(
      "SELECT id, name, scopes, workspace_id FROM api_keys WHERE kind = 'standard' AND revoked_at IS NULL ORDER BY created_at, id",
    )
    .all()
    .map((row) => ({ ...row, scopes: row.scopes.split(' ').filter(Boolean) }));
}

function notSnapshot(file: string): ApiError {
  return new ApiError(
    'invalid_parameter',
    `${file} is not an svc snapshot (make one with: svc state export FILE).`,
    { param: 'file' },
  );
}

/** Sealed values the key cannot open, by table. Plain values (older stores) are left to migrations. */
function findUnreadable(db: Db, box: SecretBox): UnreadableSecret[] {
  const opens = (text: string | null) => {
    if (text === null || !SecretBox.isSealed(text)) return true;
    try {
      box.open(text);
      return true;
    } catch {
      return false;
    }
  };
  const found: UnreadableSecret[] = [];
  const tables = new Set(
    db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .all()
      .map((row) => row.name),
  );
  if (tables.has('secrets')) {
    for (const row of db
      .prepare<[], { workspace_id: string; name: string; sealed: string }>(
        'SELECT workspace_id, name, sealed FROM secrets',
      )
      .all()) {
      if (!opens(row.sealed)) {
        found.push({
          what: `secret ${row.name} (workspace ${row.workspace_id})`,
          table: 'secrets',
          id: `${row.workspace_id}/${row.name}`,
          secret: { workspace_id: row.workspace_id, name: row.name },
        });
      }
    }
  }
  for (const row of db
    .prepare<[], { id: string; secret: string }>('SELECT id, secret FROM webhooks')
    .all()) {
    if (!opens(row.secret)) {
      found.push({ what: `webhook ${row.id} signing secret`, table: 'webhooks', id: row.id });
    }
  }
  for (const row of db
    .prepare<[], { id: string; credentials: string | null }>(
      'SELECT id, credentials FROM integrations',
    )
    .all()) {
    if (!opens(row.credentials)) {
      found.push({ what: `integration ${row.id} credentials`, table: 'integrations', id: row.id });
    }
  }
  if (tables.has('workflows')) {
    for (const row of db
      .prepare<[], { id: string; trigger: string }>('SELECT id, trigger FROM workflows')
      .all()) {
      const trigger = JSON.parse(row.trigger) as { config?: { secret?: unknown } } | null;
      const secret = trigger?.config?.secret;
      if (typeof secret === 'string' && !opens(secret)) {
        found.push({
          what: `workflow ${row.id} hook trigger secret`,
          table: 'workflows',
          id: row.id,
        });
      }
    }
  }
  return found;
}

function dropUnreadable(
  db: Db,
  unreadable: UnreadableSecret[],
  box: SecretBox,
): PreparedImport['replaced_secrets'] {
  const replaced: PreparedImport['replaced_secrets'] = [];
  db.transaction(() => {
    for (const item of unreadable) {
      if (item.table === 'secrets') {
        // By its two columns: an id joined with `/` cannot be split back when either has one.
        db.prepare('DELETE FROM secrets WHERE workspace_id = ? AND name = ?').run(
          item.secret!.workspace_id,
          item.secret!.name,
        );
      } else if (item.table === 'integrations') {
        db.prepare('UPDATE integrations SET credentials = NULL WHERE id = ?').run(item.id);
      } else if (item.table === 'webhooks') {
        const secret = `whsec_${randomBase62(32)}`;
        db.prepare('UPDATE webhooks SET secret = ? WHERE id = ?').run(box.seal(secret), item.id);
        replaced.push({ what: item.what, id: item.id, secret });
      } else if (item.table === 'workflows') {
        const secret = `whsec_${randomBase62(32)}`;
        const sealed = box.seal(secret);
        const row = db
          .prepare<[string], { trigger: string }>('SELECT trigger FROM workflows WHERE id = ?')
          .get(item.id)!;
        const trigger = JSON.parse(row.trigger) as { config: Record<string, unknown> };
        trigger.config.secret = sealed;
        db.prepare('UPDATE workflows SET trigger = ? WHERE id = ?').run(
          JSON.stringify(trigger),
          item.id,
        );
        db.prepare('UPDATE workflow_triggers SET hook_secret = ? WHERE workflow_id = ?').run(
          box.seal(secret),
          item.id,
        );
        replaced.push({ what: item.what, id: item.id, secret });
      }
    }
  })();
  return replaced;
}
