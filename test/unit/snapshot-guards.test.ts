// The guards of svc state export|import that need no daemon: the schema reference accepts what
// svc's migrations make at every version and nothing else, the JSON column list names real
// columns, and an export target is resolved through links, also when it does not exist yet.
import test from 'ava';
import Database from 'better-sqlite3';
import { mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError } from '../../daemon/domain/errors.js';
import { migrate } from '../../daemon/store/database.js';
import { checkExportTarget, realTarget } from '../../daemon/store/export-target.js';
import { MIGRATIONS } from '../../daemon/store/migrations.js';
import {
  checkJsonColumns,
  checkSchema,
  JSON_COLUMNS,
  SNAPSHOT_TABLE_SQL,
} from '../../daemon/store/snapshot-schema.js';
import { downgradeTo } from '../helpers/schema.js';

const LATEST = MIGRATIONS.at(-1)!.version;

function snapshotAt(version: number): Database.Database {
  const db = new Database(':memory:');
  migrate(db, MIGRATIONS);
  db.exec(SNAPSHOT_TABLE_SQL);
  if (version < LATEST) downgradeTo(db, version, ['svc_snapshot']);
  return db;
}

test('a store as svc leaves it at each schema version passes; one object more does not', (t) => {
  for (const { version } of MIGRATIONS) {
    const db = snapshotAt(version);
    t.notThrows(() => checkSchema(db, version, MIGRATIONS, 'x.svcsnap'), `version ${version}`);
    db.exec('CREATE VIEW peek AS SELECT * FROM settings');
    const error = t.throws(() => checkSchema(db, version, MIGRATIONS, 'x.svcsnap'), {
      instanceOf: ApiError,
    });
    t.is(error.code, 'invalid_parameter');
    t.regex(error.message, /view peek is not part of it/);
    db.close();
  }
});

test('a changed definition and a missing index are named', (t) => {
  const db = snapshotAt(LATEST);
  db.exec('DROP INDEX timers_by_due; CREATE INDEX timers_by_due ON timers(id)');
  db.exec('DROP INDEX events_by_workspace');
  const error = t.throws(() => checkSchema(db, LATEST, MIGRATIONS, 'x.svcsnap'))!;
  t.regex(error.message, /index timers_by_due \(on timers\) is defined differently/);
  t.regex(error.message, /index events_by_workspace \(on events\) is missing/);
  db.close();
});

test('every JSON column svc checks exists in the latest schema', (t) => {
  const db = snapshotAt(LATEST);
  for (const [table, columns] of Object.entries(JSON_COLUMNS)) {
    const present = db
      .prepare<[string], { name: string }>('SELECT name FROM pragma_table_info(?)')
      .all(table)
      .map((row) => row.name);
    for (const column of columns) t.true(present.includes(column), `${table}.${column}`);
  }
  t.notThrows(() => checkJsonColumns(db, 'x.svcsnap'));
  db.pragma('foreign_keys = OFF');
  db.prepare(
    "INSERT INTO webhooks (id, workspace_id, url, events, status, secret, max_attempts, backoff_multiplier, timeout_seconds, created_at, updated_at) VALUES ('hook_1', 'ws_1', 'http://x', 'agent.created', 'active', 's', 3, 2, 5, 0, 0)",
  ).run();
  const error = t.throws(() => checkJsonColumns(db, 'x.svcsnap'))!;
  t.regex(error.message, /webhooks\.events that is not JSON/);
  db.close();
});

test('an export target is resolved through links, existing or not', (t) => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'svc-export-target-')));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  // The data dir does not exist yet: the links into it dangle.
  const dataDir = join(root, 'data');
  const link = join(root, 'link');
  const dangling = join(root, 'dangling');
  symlinkSync(dataDir, link);
  symlinkSync(join(dataDir, 'later.key'), dangling);
  t.is(realTarget(join(link, 'a', 'b.svcsnap')), join(dataDir, 'a', 'b.svcsnap'));
  t.is(realTarget(dangling), join(dataDir, 'later.key'));
  const options = { dataDir, databaseFile: join(dataDir, 'svc.db'), force: true };
  for (const file of [join(link, 'secret.key'), dangling, join(dataDir, 'svc.db')]) {
    const error = t.throws(() => checkExportTarget(file, options))!;
    t.regex(error.message, /inside the data dir/, file);
  }
  t.notThrows(() => checkExportTarget(join(root, 'out.svcsnap'), options));
});
