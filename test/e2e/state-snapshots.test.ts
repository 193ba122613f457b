// svc state export|import|reset: a snapshot with runs parked in waits and a delivery waiting
// for its retry survives a reset and an import (each run completes once, the delivery arrives
// once); a snapshot taken under load imports cleanly; versions and foreign secrets are checked.
import test from 'ava';
import Database from 'better-sqlite3';

import { join } from 'node:path';
import { control } from '../helpers/api.js';
import { startDaemon } from '../helpers/daemon.js';
import { startReceiver } from '../helpers/receiver.js';
import { sharedDaemon } from '../helpers/setup.js';
import { MIGRATIONS } from '../../daemon/store/migrations.js';
import { downgradeTo } from '../helpers/schema.js';
import { tempDir } from '../helpers/temp-dir.js';

/** The store schema this svc writes: its newest migration. */
const LATEST_SCHEMA = MIGRATIONS.at(-1)!.version;

const d = sharedDaemon(test);
const dir = tempDir('svc-snapshots-');

async function operator() {
  const { key, workspaceId } = await d.operator();
  return { key, tenant: workspaceId };
}

test.serial(
  'runs parked in waits and a pending retry complete once after reset + import',
  async (t) => {
    const receiver = await startReceiver(t);
    let auth = await operator();
    const hook = await d.callJson(
      'POST',
      '/v1/webhooks',
      { url: receiver.url, events: ['integration.connected'] },
      auth,
    );
    t.is(hook.status, 201, hook.text);
    receiver.respondWith(500);
    const event = await control(d, 'events.trigger', { type: 'integration.connected' });
    await receiver.waitForCount(1, 10_000);

    const workflow = await d.callJson(
      'POST',
      '/v1/workflows',
      {
        name: 'Waits an hour',
        status: 'active',
        settings: { timeout_seconds: 86_400 },
        steps: [{ id: 'pause', name: 'Pause', type: 'wait', config: { duration_seconds: 3600 } }],
      },
      auth,
    );
    t.is(workflow.status, 201, workflow.text);
    const runs: string[] = [];
    for (let i = 0; i < 3; i++) {
      const run = await d.callJson(
        'POST',
        `/v1/workflows/${workflow.body.data.id}/execute`,
        { input: { n: i } },
        auth,
      );
      runs.push(run.body.data.execution_id);
    }

    const file = join(dir, 'parked.svcsnap');
    const exported = await d.cli(['state', 'export', file, '--json']);
    t.is(exported.code, 0, exported.stderr);
    t.like(exported.json(), {
      format: 'svc-snapshot',
      format_version: 1,
      schema_version: LATEST_SCHEMA,
    });

    const reset = await d.cli(['state', 'reset', '--yes', '--json']);
    t.is(reset.code, 0, reset.stderr);
    auth = await freshOperator();
    const empty = await d.callJson('GET', '/v1/workflows', undefined, auth);
    t.is(empty.body.data.length, 0, 'the reset sandbox has no workflow');

    const imported = await d.cli(['state', 'import', file, '--json']);
    t.is(imported.code, 0, imported.stderr);
    auth = await freshOperator();
    for (const id of runs) {
      const run = await d.callJson(
        'GET',
        `/v1/workflows/${workflow.body.data.id}/executions/${id}`,
        undefined,
        auth,
      );
      t.is(run.body.data.status, 'running', 'still waiting after the import');
    }

    receiver.clear();
    receiver.respondWith(200);
    await d.advance('2h');
    for (const id of runs) {
      const run = await d.callJson(
        'GET',
        `/v1/workflows/${workflow.body.data.id}/executions/${id}`,
        undefined,
        auth,
      );
      t.is(run.body.data.status, 'completed');
    }
    const completed = await d.callJson(
      'GET',
      '/v1/events?type=workflow.execution.completed&limit=100',
      undefined,
      auth,
    );
    for (const id of runs) {
      const ends = completed.body.data.filter(
        (e: { data: { execution_id?: string; id?: string } }) =>
          (e.data.execution_id ?? e.data.id) === id,
      );
      t.is(ends.length, 1, `run ${id} completed once`);
    }
    await receiver.waitForCount(1, 10_000);
    const forEvent = receiver.requests.filter((r) => r.header('x-svc-event-id') === event.id);
    t.is(forEvent.length, 1, 'the pending delivery arrived once');
  },
);

/** After a reset or import the store has another operator key: ask again. */
async function freshOperator() {
  const credential = await control<{ key: string; default_workspace_id: string }>(
    d,
    'auth.operatorCredential',
  );
  return { key: credential.key, tenant: credential.default_workspace_id };
}

test.serial('a snapshot taken under load imports cleanly', async (t) => {
  const auth = await freshOperator();
  const file = join(dir, 'load.svcsnap');
  const load = Array.from({ length: 40 }, (_, i) =>
    d.callJson(
      'POST',
      '/v1/agents',
      { name: `Agent ${i}`, ontology: 'retail-v1', type: 'research' },
      auth,
    ),
  );
  const exported = d.cli(['state', 'export', file, '--json']);
  const answers = await Promise.all(load);
  t.true(answers.every((answer) => answer.status === 201));
  t.is((await exported).code, 0, (await exported).stderr);
  const imported = await d.cli(['state', 'import', file, '--json']);
  t.is(imported.code, 0, imported.stderr);
  const after = await freshOperator();
  const agents = await d.callJson('GET', '/v1/agents?limit=100', undefined, after);
  t.is(agents.status, 200, agents.text);
  t.true(agents.body.total_count <= 40);
  t.is((await fetch(`${d.url}/healthz`)).status, 200);
});

test.serial(
  'a newer snapshot is refused naming both versions; an older one is migrated',
  async (t) => {
    const file = join(dir, 'base.svcsnap');
    t.is((await d.cli(['state', 'export', file])).code, 0);

    const newer = join(dir, 'newer.svcsnap');
    const older = join(dir, 'older.svcsnap');
    const db = new Database(file);
    await db.backup(newer);
    await db.backup(older);
    db.close();
    const n = new Database(newer);
    n.pragma('user_version = 99');
    n.prepare("UPDATE svc_snapshot SET value = '9.0.0' WHERE key = 'svc_version'").run();
    n.close();
    const refused = await d.cli(['state', 'import', newer]);
    t.is(refused.code, 1);
    t.regex(
      refused.stderr,
      new RegExp(
        `svc 9\\.0\\.0 \\(store schema 99\\).*this svc 0\\.1\\.0 knows store schemas up to ${LATEST_SCHEMA}`,
      ),
    );

    const o = new Database(older);
    downgradeTo(o, 9, ['svc_snapshot']);
    o.close();
    const migrated = await d.cli(['state', 'import', older, '--json']);
    t.is(migrated.code, 0, migrated.stderr);
    t.like(migrated.json(), { migrated: true, schema_version: LATEST_SCHEMA });
    const applied = await d.cli(['fixtures', 'apply', '-', '--json'], {
      input: 'workspaces:\n  w: {name: After migration, tier: free}\n',
    });
    t.is(applied.code, 0, applied.stderr);
  },
);

test.serial(
  "another data dir's secrets: named and refused, imported with --drop-secrets",
  async (t) => {
    const other = await startDaemon();
    t.teardown(() => other.stop());
    const { key, workspaceId } = await other.operator();
    await other.cli(['secrets', 'set', 'STRIPE_KEY', 'sk_test_abc']);
    const hook = await other.callJson(
      'POST',
      '/v1/webhooks',
      { url: 'http://127.0.0.1:9/hooks', events: ['agent.created'] },
      { key, tenant: workspaceId },
    );
    const file = join(dir, 'foreign.svcsnap');
    t.is((await other.cli(['state', 'export', file])).code, 0);

    const refused = await d.cli(['state', 'import', file]);
    t.is(refused.code, 1);
    t.regex(refused.stderr, /secret STRIPE_KEY/);
    t.regex(refused.stderr, new RegExp(`webhook ${hook.body.data.id} signing secret`));
    t.regex(refused.stderr, /--drop-secrets/);

    const imported = await d.cli(['state', 'import', file, '--drop-secrets', '--json']);
    t.is(imported.code, 0, imported.stderr);
    t.deepEqual(imported.json().dropped_secrets, [`secret STRIPE_KEY (workspace ${workspaceId})`]);
    t.is(imported.json().new_secrets[0].id, hook.body.data.id);
    const secrets = await d.cli(['secrets', 'list', '--json']);
    t.deepEqual(secrets.json().data, []);
  },
);
