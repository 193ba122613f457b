// svc state import stages the snapshot in the data dir (svc.db.importing: a copy to check and
// migrate, then swap in or copy into PostgreSQL). Once the import is done, imported or refused,
// nothing of it is left there: not the copy, not the -wal and -shm files SQLite makes beside a
// file in WAL mode when the workflow check and the copy into PostgreSQL read it. Before, every
// import left svc.db.importing-wal and svc.db.importing-shm behind (issue 53/54's loose ends).
// On both stores.
import test, { type ExecutionContext } from 'ava';
import Database from 'better-sqlite3';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { control } from '../helpers/api.js';
import { assertExit, startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { STORE_KINDS, testPostgres } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp-dir.js';
import { apiFor, createWorkflow, waitStep } from '../helpers/workflows.js';
import { daemonsStoppedAfterFile } from '../helpers/team-daemons.js';

const started = daemonsStoppedAfterFile();

/** The data dir's entries an import staged (svc.db.importing and its siblings). */
function staged(dataDir: string): string[] {
  return readdirSync(dataDir).filter((name) => name.includes('importing'));
}

async function exported(t: ExecutionContext, d: TestDaemon, name: string): Promise<string> {
  const file = join(tempDir('svc-import-staging-'), `${name}.svc`);
  assertExit(t, await d.cli(['state', 'export', file]), 0);
  return file;
}

for (const kind of STORE_KINDS) {
  test.serial(
    `svc state import on ${kind}: the data dir holds no staged file after an import, done or refused`,
    async (t) => {
      const store = kind === 'postgres' ? (await testPostgres()).url : '';
      const d = await startDaemon({ env: { SVC_STORE_URL: store } });
      started.push(d);
      const { workspaceId } = await d.operator();
      const api = await apiFor(d, workspaceId);
      const workflowId = await createWorkflow(api, {
        name: 'Kept',
        trigger: { type: 'manual' },
        steps: [waitStep('pause', 0)],
      });

      const good = await exported(t, d, 'good');
      assertExit(t, await d.cli(['state', 'import', good]), 0);
      t.deepEqual(staged(d.dataDir), [], 'imported');

      // Refused by the workflow check, after the copy was checked and migrated.
      const broken = await exported(t, d, 'broken');
      const db = new Database(broken);
      db.prepare('UPDATE workflow_versions SET steps = ? WHERE workflow_id = ?').run(
        JSON.stringify([waitStep('first', 0, 'missing')]),
        workflowId,
      );
      db.close();
      const refused = await d.cli(['state', 'import', broken]);
      assertExit(t, refused, 1);
      t.regex(refused.stderr, /refers to step 'missing', which does not exist/);
      t.deepEqual(staged(d.dataDir), [], 'refused by the workflow check');

      // Refused while the copy is checked.
      const junk = join(tempDir('svc-import-staging-'), 'junk.svc');
      const junkDb = new Database(junk);
      junkDb.exec('CREATE TABLE t (x)');
      junkDb.close();
      const notSnapshot = await d.cli(['state', 'import', junk]);
      assertExit(t, notSnapshot, 1);
      t.regex(notSnapshot.stderr, /is not an svc snapshot/);
      t.deepEqual(staged(d.dataDir), [], 'refused as no snapshot');

      // The sandbox is the one imported, unchanged by the refusals (asked with the operator
      // credential minted after the import).
      const credential = await control<{ key: string }>(d, 'auth.operatorCredential');
      const kept = await d.callJson('GET', `/v1/workflows/${workflowId}`, undefined, {
        key: credential.key,
        tenant: workspaceId,
      });
      t.is(kept.status, 200, kept.text);
      t.deepEqual(
        kept.body.data.steps.map((step: { id: string }) => step.id),
        ['pause'],
      );
    },
  );
}
