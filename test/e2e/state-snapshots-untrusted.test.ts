// Snapshots travel (CI artifacts, a teammate's bug report), so svc state import treats them as
// untrusted input and svc state export never destroys what it should save. Each case of issue 39
// is reproduced as it was reported: a snapshot carrying its own trigger (privilege escalation, or
// a recursive query on every write), a planted operator credential, export over an existing file
// or into the data dir, import of a named pipe, --drop-secrets with a `/` in a secret's name,
// a lowered user_version and a non-JSON column. And (issue 54) a team sandbox's daemons, their
// claims, rate windows and dashboard logins, which an older or changed snapshot may carry, are
// left out.
import test, { type ExecutionContext } from 'ava';
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SecretBox } from '../../daemon/platform/secret-box.js';
import { generateKey, hashKey } from '../../daemon/keys/key-material.js';
import { trpc } from '../helpers/api.js';
import { assertExit, type CliResult } from '../helpers/daemon.js';
import { longestHealthGap, stallBound } from '../helpers/health.js';
import { sharedDaemon } from '../helpers/setup.js';
import { tempDir } from '../helpers/temp-dir.js';

const d = sharedDaemon(test);
const dir = tempDir('svc-snapshots-untrusted-');

/** The operator credential the CLI would use now (after an import it is a new one: ask again). */
async function operator() {
  const answer = await trpc<{ key: string; default_workspace_id: string }>(
    d,
    'auth.operatorCredential',
  );
  return { key: answer.data!.key, tenant: answer.data!.default_workspace_id };
}

/** Exports the sandbox to a new file in the test's temp dir; returns its path. */
async function exported(name: string): Promise<string> {
  const file = join(dir, `${name}.svcsnap`);
  const result = await d.cli(['state', 'export', file]);
  if (result.code !== 0) throw new Error(`svc state export: ${result.code} ${result.stderr}`);
  return file;
}

/**
 * The stall bound (stallBound) from the longest /healthz gap while `refusal`, an import refused
 * at the same point without the costly part, runs: load stretches both gaps alike, where a fixed
 * 1 s was outlasted by a CLI import on a loaded machine (1,682 ms) with nothing stalled.
 */
async function baselineBound(t: ExecutionContext, refusal: () => Promise<CliResult>) {
  const { result, gapMs } = await longestHealthGap(d, refusal);
  assertExit(t, result, 1);
  t.log(`baseline: longest /healthz gap ${gapMs.toFixed(0)} ms`);
  return stallBound(gapMs);
}

/** Opens a snapshot file to tamper with it, as someone passing it on could. */
function tamper(file: string, change: (db: Database.Database) => void): void {
  const db = new Database(file);
  try {
    change(db);
  } finally {
    db.close();
  }
}

test.serial(
  "a snapshot's own trigger is refused with 400 naming it; keys created after keep their scopes",
  async (t) => {
    const file = await exported('trigger');
    tamper(file, (db) =>
      db.exec(`CREATE TRIGGER escalate AFTER INSERT ON api_keys BEGIN
        UPDATE api_keys SET scopes = 'admin' WHERE id = NEW.id; END;`),
    );
    const refused = await d.cli(['state', 'import', file]);
    assertExit(t, refused, 1);
    t.regex(refused.stderr, /trigger escalate \(on api_keys\) is not part of it/);
    t.regex(refused.stderr, /export it again with svc state export/);
    const answer = await trpc(d, 'state.import', { file });
    t.is(answer.status, 400, answer.text);
    t.is(answer.error?.data?.httpStatus, 400, answer.text);

    const key = await d.createKey('agents:read');
    const me = await d.callJson('GET', '/v1/auth/me', undefined, { key: key.key });
    t.is(me.status, 200, me.text);
    t.deepEqual(me.body.data.scopes, ['agents:read'], 'the key has the scopes it was made with');
  },
);

test.serial(
  'a recursive trigger on events is refused without stalling the daemon (/healthz answers throughout)',
  async (t) => {
    const file = await exported('slow-trigger');
    tamper(file, (db) =>
      db.exec(`CREATE TRIGGER slow AFTER INSERT ON events BEGIN
        INSERT INTO settings (key, value)
          SELECT 'slow', (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50000000)
                          SELECT count(*) FROM n)
          ON CONFLICT (key) DO UPDATE SET value = excluded.value;
      END;`),
    );
    // The baseline: the same refusal of a trigger that costs nothing, through the same CLI.
    const cheap = await exported('cheap-trigger');
    tamper(cheap, (db) =>
      db.exec(`CREATE TRIGGER cheap AFTER INSERT ON events BEGIN SELECT 1; END;`),
    );
    const bound = await baselineBound(t, () => d.cli(['state', 'import', cheap]));
    const { result, gapMs } = await longestHealthGap(d, () => d.cli(['state', 'import', file]));
    t.log(`longest /healthz gap during the import: ${gapMs.toFixed(0)} ms`);
    assertExit(t, result, 1);
    t.regex(result.stderr, /trigger slow \(on events\) is not part of it/);
    t.true(gapMs < bound, `/healthz answered throughout (longest gap ${gapMs.toFixed(0)} ms)`);
    const started = performance.now();
    const event = await trpc(d, 'events.trigger', { type: 'integration.connected' });
    t.is(event.status, 200, event.text);
    t.log(`an event written after: ${(performance.now() - started).toFixed(0)} ms`);
  },
);

test.serial(
  'a planted operator credential is left out; the import lists the keys it brings',
  async (t) => {
    const brought = await d.createKey('agents:read workflows:write', { name: 'CI reader' });
    const file = await exported('operator');
    const planted = generateKey('sandbox');
    tamper(file, (db) => {
      const user = db
        .prepare<[], { value: string }>("SELECT value FROM settings WHERE key = 'operator_user_id'")
        .get()!.value;
      db.prepare(
        `INSERT INTO api_keys (id, kind, user_id, workspace_id, name, hash, hint, scopes, environment, created_at)
         VALUES ('key_planted', 'operator', ?, NULL, 'Planted', ?, ?, 'admin', 'sandbox', 0)`,
      ).run(user, hashKey(planted), planted.slice(-4));
    });
    const imported = await d.cli(['state', 'import', file, '--json']);
    assertExit(t, imported, 0);
    const answer = imported.json();
    t.is(answer.dropped_operator_keys, 1);
    t.deepEqual(
      answer.keys.find((key: { id: string }) => key.id === brought.id),
      {
        id: brought.id,
        name: 'CI reader',
        scopes: ['agents:read', 'workflows:write'],
        workspace_id: brought.workspace_id,
      },
    );
    t.false(
      answer.keys.some((key: { id: string }) => key.id === 'key_planted'),
      'no operator key is listed as brought',
    );
    const asPlanted = await d.callJson('GET', '/v1/auth/me', undefined, { key: planted });
    t.is(asPlanted.status, 401, 'the planted operator key does not answer');
    const auth = await operator();
    t.is((await d.callJson('GET', '/v1/auth/me', undefined, auth)).status, 200);

    const human = await d.cli(['state', 'import', file]);
    assertExit(t, human, 0);
    t.regex(
      human.stdout,
      new RegExp(`${brought.id}\\s+CI reader\\s+scopes: agents:read workflows:write`),
    );
    t.regex(human.stdout, /left out 1 operator credential/);
  },
);

test.serial(
  'export refuses an existing file without --force, and the data dir always',
  async (t) => {
    const notes = join(dir, 'notes.txt');
    writeFileSync(notes, 'keep me\n');
    const refused = await d.cli(['state', 'export', notes]);
    assertExit(t, refused, 2);
    t.regex(refused.stderr, /--force/);
    t.is(readFileSync(notes, 'utf8'), 'keep me\n', 'the file is as it was');
    const overControl = await trpc(d, 'state.export', { file: notes });
    t.is(overControl.status, 409, overControl.text);
    t.is(readFileSync(notes, 'utf8'), 'keep me\n');
    const forced = await d.cli(['state', 'export', notes, '--force']);
    assertExit(t, forced, 0);
    t.is(readFileSync(notes).subarray(0, 15).toString(), 'SQLite format 3', 'replaced when asked');

    const secretKey = join(d.dataDir, 'secret.key');
    const keyBefore = readFileSync(secretKey, 'utf8');
    const outside = join(dir, 'into-data-dir');
    symlinkSync(d.dataDir, outside);
    for (const target of [secretKey, join(d.dataDir, 'svc.db'), join(outside, 'secret.key')]) {
      const answer = await d.cli(['state', 'export', target, '--force']);
      assertExit(t, answer, 1);
      t.regex(answer.stderr, /inside the data dir/, target);
      const raw = await trpc(d, 'state.export', { file: target, force: true });
      t.is(raw.status, 400, raw.text);
    }
    const fresh = await d.cli(['state', 'export', join(d.dataDir, 'new.svcsnap')]);
    assertExit(t, fresh, 1);
    t.is(readFileSync(secretKey, 'utf8'), keyBefore, 'secret.key is untouched');
    t.is((await d.callJson('GET', '/v1/auth/me', undefined, await operator())).status, 200);
  },
);

test.serial(
  'import of a named pipe is refused at once (/healthz answers throughout)',
  async (t) => {
    const pipe = join(dir, 'snapshot.fifo');
    execFileSync('mkfifo', [pipe]);
    // The baseline: an import refused before it reads anything (no such file), same CLI.
    const bound = await baselineBound(t, () =>
      d.cli(['state', 'import', join(dir, 'missing.svcsnap')]),
    );
    const { result, gapMs } = await longestHealthGap(d, () => d.cli(['state', 'import', pipe]));
    t.log(`longest /healthz gap during the import: ${gapMs.toFixed(0)} ms`);
    assertExit(t, result, 1);
    t.regex(result.stderr, /is not a regular file/);
    t.true(gapMs < bound, `/healthz answered throughout (longest gap ${gapMs.toFixed(0)} ms)`);
  },
);

test.serial("--drop-secrets drops a secret with '/' in its name and workspace id", async (t) => {
  const file = await exported('slash');
  const foreign = new SecretBox(randomBytes(32));
  tamper(file, (db) =>
    db
      .prepare(
        "INSERT INTO secrets (workspace_id, name, sealed, created_at, updated_at) VALUES ('ws/a', 'A/B', ?, 0, 0)",
      )
      .run(foreign.seal('sk_test_abc')),
  );
  const imported = await d.cli(['state', 'import', file, '--drop-secrets', '--json']);
  assertExit(t, imported, 0);
  t.deepEqual(imported.json().dropped_secrets, ['secret A/B (workspace ws/a)']);
  const left = new Database(join(d.dataDir, 'svc.db'), { readonly: true });
  try {
    const rows = left.prepare("SELECT name FROM secrets WHERE workspace_id = 'ws/a'").all();
    t.deepEqual(rows, [], 'the secret reported dropped is gone');
  } finally {
    left.close();
  }
});

test.serial(
  "who served the snapshot's sandbox is left out: daemons, their claims, rate windows, dashboard logins",
  async (t) => {
    const file = await exported('serving');
    // As a snapshot of a team sandbox brings them (issue 54): a daemon of it, a timer and a step
    // it had claimed, a client's rate window, a dashboard login token and session.
    tamper(file, (db) =>
      db.exec(`
        INSERT INTO daemons (id, address, host, pid, version, schema_version, started_at, heartbeat_at)
          VALUES ('dmn_ghost', 'http://10.0.0.9:7801', 'build-7', 4100, '0.1.0', 29, 0, 0);
        INSERT INTO timers (id, kind, due_at, payload, created_at, claimed_by)
          VALUES ('tmr_claimed', 'test.never', 4102444800000, '{}', 0, 'dmn_ghost');
        INSERT INTO run_step_claims (execution_id, act_key, attempt, daemon_id, claimed_at)
          VALUES ('wex_ghost', 'call', 1, 'dmn_ghost', 0);
        INSERT INTO rate_counters (bucket, key, window_start, reset_at, count)
          VALUES ('requests', 'key_ghost', 0, 4102444800000, 99);
        INSERT INTO dashboard_login_tokens (token_hash, expires_at) VALUES ('planted', 4102444800000);
        INSERT INTO dashboard_sessions (session_hash, last_seen_at) VALUES ('planted', 4102444800000);
      `),
    );
    assertExit(t, await d.cli(['state', 'import', file]), 0);
    const left = new Database(join(d.dataDir, 'svc.db'), { readonly: true });
    try {
      const count = (sql: string) => (left.prepare(sql).pluck().get() as number) ?? 0;
      t.is(count("SELECT COUNT(*) FROM daemons WHERE id = 'dmn_ghost'"), 0);
      t.is(count('SELECT COUNT(*) FROM timers WHERE claimed_by IS NOT NULL'), 0);
      t.is(count("SELECT COUNT(*) FROM timers WHERE id = 'tmr_claimed'"), 1, 'the timer stays');
      for (const table of [
        'run_step_claims',
        'rate_counters',
        'dashboard_login_tokens',
        'dashboard_sessions',
      ]) {
        t.is(count(`SELECT COUNT(*) FROM ${table}`), 0, table);
      }
    } finally {
      left.close();
    }
  },
);

test.serial('a lowered user_version is refused with 400 naming what does not belong', async (t) => {
  const file = await exported('lowered');
  tamper(file, (db) => db.pragma('user_version = 5'));
  const refused = await d.cli(['state', 'import', file]);
  assertExit(t, refused, 1);
  t.regex(refused.stderr, /does not have the schema svc writes for store schema 5/);
  t.regex(refused.stderr, /table workflow_triggers is not part of it/);
  const answer = await trpc(d, 'state.import', { file });
  t.is(answer.status, 400, answer.text);

  tamper(file, (db) => db.pragma('user_version = 0'));
  const zero = await d.cli(['state', 'import', file]);
  assertExit(t, zero, 1);
  t.regex(zero.stderr, /claims store schema 0, which no svc writes/);
});

test.serial(
  'a non-JSON value where svc keeps JSON is refused with 400 naming the column',
  async (t) => {
    const auth = await operator();
    const agent = await d.callJson(
      'POST',
      '/v1/agents',
      { name: 'Parsed', ontology: 'retail-v1', type: 'research' },
      auth,
    );
    t.is(agent.status, 201, agent.text);
    const file = await exported('not-json');
    tamper(file, (db) => db.prepare("UPDATE agents SET capabilities = '{oops'").run());
    const refused = await d.cli(['state', 'import', file]);
    assertExit(t, refused, 1);
    t.regex(refused.stderr, /agents\.capabilities that is not JSON/);
    const answer = await trpc(d, 'state.import', { file });
    t.is(answer.status, 400, answer.text);
    const listed = await d.callJson('GET', '/v1/agents', undefined, await operator());
    t.is(listed.status, 200, 'the live store is untouched');
  },
);
