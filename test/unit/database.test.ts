// The store: migrations record user_version, run once, and a newer database is refused.
import test from 'ava';
import Database from 'better-sqlite3';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { migrate, openDatabase, SchemaTooNewError } from '../../daemon/store/database.js';
import { MIGRATIONS, type Migration } from '../../daemon/store/migrations.js';
import { tempDir } from '../helpers/app.js';

const LATEST = MIGRATIONS.at(-1)!.version;

function dbFile(t: import('ava').ExecutionContext, sub = 'svc.db'): string {
  const dir = tempDir();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, sub);
}

function version(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

function tables(db: Database.Database): string[] {
  return (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
      name: string;
    }[]
  ).map((row) => row.name);
}

test('migrations are numbered 1, 2, 3... in order with unique names', (t) => {
  t.true(MIGRATIONS.length >= 1);
  MIGRATIONS.forEach((migration, index) => {
    t.is(migration.version, index + 1);
    t.true(migration.name.length > 0);
  });
  t.is(new Set(MIGRATIONS.map((m) => m.name)).size, MIGRATIONS.length);
});

test('a new database gets every migration and the latest user_version', (t) => {
  const file = dbFile(t, join('nested', 'dir', 'svc.db'));
  const db = openDatabase(file);
  t.teardown(() => db.close());
  t.true(existsSync(file), 'creates missing parent directories');
  t.is(version(db), LATEST);
  for (const table of ['settings', 'users', 'workspaces', 'api_keys', 'events', 'timers']) {
    t.true(tables(db).includes(table), table);
  }
  t.is(db.pragma('journal_mode', { simple: true }), 'wal');
  t.is(db.pragma('foreign_keys', { simple: true }), 1);
  t.is(db.pragma('temp_store', { simple: true }), 2, 'statement journals stay in memory');
});

test('reopening keeps the data and runs nothing twice', (t) => {
  const file = dbFile(t);
  const first = openDatabase(file);
  first.prepare("INSERT INTO settings (key, value) VALUES ('k', 'v')").run();
  first.close();
  const second = openDatabase(file);
  t.teardown(() => second.close());
  t.is(version(second), LATEST);
  t.deepEqual(second.prepare('SELECT value FROM settings WHERE key = ?').get('k'), { value: 'v' });
});

test('only the migrations above the current version run, each recorded', (t) => {
  const file = dbFile(t);
  const steps: Migration[] = [
    { version: 1, name: 'one', sql: 'CREATE TABLE a (x INTEGER);' },
    { version: 2, name: 'two', sql: 'CREATE TABLE b (x INTEGER);' },
  ];
  const db = openDatabase(file, steps.slice(0, 1));
  t.is(version(db), 1);
  t.deepEqual(tables(db), ['a']);
  db.close();

  const upgraded = openDatabase(file, steps);
  t.teardown(() => upgraded.close());
  t.is(version(upgraded), 2);
  t.deepEqual(tables(upgraded), ['a', 'b']);
});

test('a failing migration rolls back and leaves the version where it was', (t) => {
  const file = dbFile(t);
  const good: Migration = { version: 1, name: 'one', sql: 'CREATE TABLE a (x INTEGER);' };
  const bad: Migration = {
    version: 2,
    name: 'bad',
    sql: 'CREATE TABLE b (x INTEGER); INSERT INTO nowhere VALUES (1);',
  };
  openDatabase(file, [good]).close();
  let failure: unknown;
  try {
    openDatabase(file, [good, bad]).close();
  } catch (error) {
    failure = error;
  }
  t.regex(String((failure as { message?: unknown } | undefined)?.message), /nowhere/);
  const db = new Database(file);
  t.teardown(() => db.close());
  t.is(version(db), 1);
  t.deepEqual(tables(db), ['a'], 'the half-applied migration left nothing behind');
});

test('a database from a newer svc is refused with SchemaTooNewError, untouched', (t) => {
  const file = dbFile(t);
  openDatabase(file).close();
  const raw = new Database(file);
  raw.pragma(`user_version = ${LATEST + 5}`);
  raw.close();

  const error = t.throws(() => openDatabase(file));
  t.true(error instanceof SchemaTooNewError);
  const tooNew = error as SchemaTooNewError;
  t.is(tooNew.found, LATEST + 5);
  t.is(tooNew.known, LATEST);
  t.regex(tooNew.message, /newer svc/);

  const check = new Database(file);
  t.teardown(() => check.close());
  t.is(version(check), LATEST + 5, 'user_version not rewritten');
});

test('version 17 renames the error code of executions a reviewer rejected', (t) => {
  const db = new Database(':memory:');
  t.teardown(() => db.close());
  migrate(db, MIGRATIONS.slice(0, 16));
  const insert = db.prepare(
    `INSERT INTO agent_executions (id, agent_id, workspace_id, status, autonomy_level, input, context, error_code, created_at)
     VALUES (?, 'agt_1', 'ws_1', ?, 'L2', 'in', '{}', ?, 0)`,
  );
  insert.run('exec_rejected', 'cancelled', 'rejected');
  insert.run('exec_failed', 'failed', 'external_api_error');
  migrate(db, MIGRATIONS.slice(0, 17));
  const codes = db.prepare('SELECT id, error_code FROM agent_executions ORDER BY id').all();
  t.deepEqual(codes, [
    { id: 'exec_failed', error_code: 'external_api_error' },
    { id: 'exec_rejected', error_code: 'approval_rejected' },
  ]);
});

test('migrate() on an open connection refuses a newer schema too', (t) => {
  const db = new Database(':memory:');
  db.pragma('user_version = 99');
  t.throws(() => migrate(db, MIGRATIONS), { instanceOf: SchemaTooNewError });
  t.true(db.open, 'the caller opened the connection, so the caller closes it');
  t.is(db.pragma('user_version', { simple: true }), 99, 'nothing was rewritten');
  db.close();
});

test('openDatabase closes its connection when a migration fails (the lock is released)', (t) => {
  const file = dbFile(t);
  openDatabase(file).close();
  const raw = new Database(file);
  raw.pragma('user_version = 99');
  raw.close();
  t.throws(() => openDatabase(file), { instanceOf: SchemaTooNewError });
  const again = new Database(file);
  t.teardown(() => again.close());
  t.is(again.pragma('user_version', { simple: true }), 99);
});
