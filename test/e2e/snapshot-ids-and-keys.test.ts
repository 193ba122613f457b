// Issue 51 rows 1 and 3, from a snapshot: an id that is not svc's (`wfl_$(touch marker)`, a
// backtick, `${HOME}`, braces, `~`) is refused at svc state import, naming table, row and id, and
// the sandbox stays as it was; a standard key without a workspace (or of a workspace the snapshot
// does not hold) is refused too; and authentication refuses such a key wherever it comes from.
import test from 'ava';
import Database from 'better-sqlite3';
import { chmodSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertExit, SVC_BIN } from '../helpers/daemon.js';
import { completionOffers, installed, SHELLS } from '../helpers/completion-shells.js';
import { svcEnv } from '../helpers/env.js';
import { sharedDaemon } from '../helpers/setup.js';
import { tempDir } from '../helpers/temp-dir.js';
import { apiFor, createWorkflow } from '../helpers/workflows.js';

const d = sharedDaemon(test);
const dir = tempDir('svc-snapshot-ids-');

/** Exports the sandbox, then changes the copy as someone passing it on could. */
async function tampered(name: string, change: (db: Database.Database) => void): Promise<string> {
  const file = join(dir, `${name}.svcsnap`);
  const result = await d.cli(['state', 'export', file]);
  if (result.code !== 0) throw new Error(`svc state export: ${result.code} ${result.stderr}`);
  const db = new Database(file);
  try {
    change(db);
  } finally {
    db.close();
  }
  return file;
}

const HOSTILE = [
  'wfl_$(touch marker)',
  'wfl_`touch marker`',
  'wfl_${HOME}',
  'wfl_{a,b}',
  '~',
  'wfl_\u001b[31mred',
];

test.serial(
  'a workflow id that is not svc grammar is refused naming table, row and id; nothing changes',
  async (t) => {
    const { workspaceId } = await d.operator();
    const api = await apiFor(d, workspaceId);
    const kept = await createWorkflow(api, {
      name: 'Kept',
      status: 'active',
      steps: [{ id: 'pause', name: 'Pause', type: 'wait', config: { duration_seconds: 60 } }],
    });
    for (const [index, hostile] of HOSTILE.entries()) {
      const file = await tampered(`workflow-${index}`, (db) => {
        db.pragma('foreign_keys = OFF');
        db.prepare('UPDATE workflows SET id = ? WHERE id = ?').run(hostile, kept);
      });
      const refused = await d.cli(['--json', 'state', 'import', file]);
      assertExit(t, refused, 1);
      const error = refused.json().error;
      t.is(error.code, 'invalid_parameter', refused.stdout);
      t.true(
        /in table workflows, row \d+: /.test(error.message) &&
          error.message.includes(`: ${JSON.stringify(hostile)} (svc writes wfl_`),
        error.message,
      );
      t.regex(error.message, /nothing was imported/);
      // The message quotes the id escaped: no control character reaches a terminal.
      t.false(error.message.includes('\u001b'));
    }
    // The sandbox is the one before the imports: its workflow under its own id.
    const still = await d.cli(['--json', 'workflows', 'get', kept]);
    assertExit(t, still, 0);
    t.is(still.json().id, kept);
    t.deepEqual(
      readdirSync(dir).filter((name) => name.startsWith('marker')),
      [],
    );
    t.false(existsSync(join(process.cwd(), 'marker')));
  },
);

test.serial(
  'an id of another kind in a table is refused too (an agent id among users)',
  async (t) => {
    const file = await tampered('kind', (db) => {
      db.prepare("INSERT INTO users (id, name, created_at) VALUES ('agt_NotAUser1', 'x', 0)").run();
    });
    const refused = await d.cli(['--json', 'state', 'import', file]);
    assertExit(t, refused, 1);
    t.regex(
      refused.json().error.message,
      /in table users, row \d+: "agt_NotAUser1" \(svc writes usr_/,
      refused.stdout,
    );
  },
);

test.serial(
  'a standard key with no workspace, or of a workspace the snapshot lacks, is refused',
  async (t) => {
    const key = await d.createKey('admin');
    const noWorkspace = await tampered('key-no-workspace', (db) => {
      db.prepare('UPDATE api_keys SET workspace_id = NULL WHERE id = ?').run(key.id);
    });
    const refused = await d.cli(['--json', 'state', 'import', noWorkspace]);
    assertExit(t, refused, 1);
    const error = refused.json().error;
    t.true(error.message.includes(`the API key ${key.id} with no workspace`), error.message);

    const elsewhere = await tampered('key-elsewhere', (db) => {
      db.pragma('foreign_keys = OFF');
      db.prepare('UPDATE api_keys SET workspace_id = ? WHERE id = ?').run('ws_Gone1', key.id);
    });
    const refusedToo = await d.cli(['--json', 'state', 'import', elsewhere]);
    assertExit(t, refusedToo, 1);
    t.true(
      refusedToo.json().error.message.includes(`of workspace "ws_Gone1", which it does not hold`),
      refusedToo.stdout,
    );
    // Still valid here, in its own workspace: nothing was imported.
    const me = await d.callJson('GET', '/v1/auth/me', undefined, { key: key.key });
    t.is(me.status, 200, me.text);
  },
);

test.serial(
  'authentication refuses a standard key with no workspace: 401 invalid_token, in any workspace',
  async (t) => {
    const key = await d.createKey('admin');
    const created = await d.createWorkspace('Later');
    // However it got there (the store edited by hand, an older import): the store holds one.
    const db = new Database(join(d.dataDir, 'svc.db'));
    try {
      db.pragma('busy_timeout = 10000');
      db.prepare('UPDATE api_keys SET workspace_id = NULL WHERE id = ?').run(key.id);
    } finally {
      db.close();
    }
    for (const tenant of [undefined, created]) {
      const listed = await d.callJson('GET', '/v1/workflows', undefined, {
        key: key.key,
        ...(tenant ? { tenant } : {}),
      });
      t.is(listed.status, 401, listed.text);
      t.is(listed.body.error.code, 'invalid_token');
      t.regex(listed.body.error.message, new RegExp(`${key.id} belongs to no workspace`));
    }
    const made = await d.callJson(
      'POST',
      '/v1/workflows',
      { name: 'Planted', steps: [] },
      { key: key.key, tenant: created },
    );
    t.is(made.status, 401, made.text);
    const cli = await d.cli(['--api-key', key.key, '--workspace', created, 'workflows', 'list']);
    assertExit(t, cli, 1);
    t.regex(cli.stderr, /belongs to no workspace/);
  },
);

test.serial(
  "a hostile workflow id in a real daemon's store is offered by no shell, and runs in none",
  async (t) => {
    const { workspaceId } = await d.operator();
    const api = await apiFor(d, workspaceId);
    const steps = [{ id: 'pause', name: 'Pause', type: 'wait', config: { duration_seconds: 60 } }];
    const kept = await createWorkflow(api, { name: 'Listed', status: 'active', steps });
    const planted = await createWorkflow(api, { name: 'Planted', status: 'active', steps });
    // However it got there (an import before this check, the store edited by hand).
    const db = new Database(join(d.dataDir, 'svc.db'));
    try {
      db.pragma('busy_timeout = 10000');
      db.pragma('foreign_keys = OFF');
      db.prepare('UPDATE workflows SET id = ? WHERE id = ?').run('wfl_$(>marker)', planted);
      db.prepare('UPDATE workflow_versions SET workflow_id = ? WHERE workflow_id = ?').run(
        'wfl_$(>marker)',
        planted,
      );
    } finally {
      db.close();
    }
    const shellDir = tempDir('svc-snapshot-ids-shells-');
    writeFileSync(
      join(shellDir, 'svc'),
      `#!/bin/sh\nexec "${process.execPath}" "${SVC_BIN}" "$@"\n`,
    );
    chmodSync(join(shellDir, 'svc'), 0o755);
    const env = svcEnv({ ...d.env, HOME: shellDir, PATH: `${shellDir}:${process.env.PATH}` });
    const shells = SHELLS.filter((shell) => installed(shell));
    t.log(
      `shells: ${shells.join(', ')} (missing: ${SHELLS.filter((s) => !shells.includes(s)).join(', ') || 'none'})`,
    );
    for (const shell of shells) {
      const words = await completionOffers(shell, ['svc', 'workflows', 'get', 'wfl_'], {
        cwd: shellDir,
        env,
      });
      t.true(words.includes(kept), `${shell}: ${words.join(' | ')}`);
      t.false(
        words.some((word) => word.includes('marker')),
        `${shell}: ${words.join(' | ')}`,
      );
    }
    t.deepEqual(
      readdirSync(shellDir).filter((name) => name.startsWith('marker')),
      [],
    );
  },
);
