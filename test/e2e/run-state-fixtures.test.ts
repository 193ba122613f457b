// Stores written by earlier releases (test/fixtures/stores/<release>/, scripts/make-store-fixture.mjs)
// open on the current code, and every run they left waiting goes on to completion: a 7-day wait,
// an approval, a retry's backoff, a parallel join half done, and a webhook step's call that was in
// flight when the daemon was killed. Each release's store is opened twice: as the data dir a user
// upgrades in place, and as its `svc state export` snapshot imported by a new sandbox.
import test, { type ExecutionContext } from 'ava';
import { chmodSync, copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { control, trpc } from '../helpers/api.js';
import { runCli, startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { killHard, restart, restNow, running } from '../helpers/processes.js';
import { startReceiver } from '../helpers/receiver.js';
import {
  FIXTURE_CLOCK,
  RECEIVER_SECRET,
  readStoreFixture,
  STORE_FIXTURES,
  storeFixtureReleases,
  type StoreFixture,
} from '../helpers/store-fixture.js';
import { RUN_STATE_VERSION } from '../../daemon/store/run-state.js';
import { tempDir } from '../helpers/temp-dir.js';
import { TERMINAL, waitForExecution, type Api } from '../helpers/workflows.js';

/** The versions (`v`, absent before states had one) of the run states in a store file. */
function stateVersions(file: string): (number | null)[] {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare<[], { v: number | null }>(
        "SELECT json_extract(frontier, '$.v') AS v FROM workflow_executions ORDER BY id",
      )
      .all()
      .map((row) => row.v);
  } finally {
    db.close();
  }
}

/**
 * Where every run of a store file stands: its row (status, state, step count) and its step rows.
 * Equal before and after a start means the start moved no run.
 */
function whereRunsStand(file: string): unknown {
  const db = new Database(file, { readonly: true });
  try {
    return {
      runs: db
        .prepare(
          'SELECT id, status, frontier, steps_completed FROM workflow_executions ORDER BY id',
        )
        .all(),
      steps: db
        .prepare(
          'SELECT execution_id, seq, step_id, attempt, status FROM workflow_step_runs ORDER BY execution_id, seq',
        )
        .all(),
    };
  } finally {
    db.close();
  }
}

/** A copy of a store file in which one run's state claims a version this svc does not know. */
function withNewerState(from: string, executionId: string): string {
  const file = join(tempDir('svc-newer-state-'), 'store');
  copyFileSync(from, file);
  const db = new Database(file);
  try {
    db.prepare(
      "UPDATE workflow_executions SET frontier = json_set(frontier, '$.v', ?) WHERE id = ?",
    ).run(RUN_STATE_VERSION + 1, executionId);
  } finally {
    db.close();
  }
  return file;
}

/** A copy of the fixture's file, owner-only as the daemon keeps its files. */
function copyPrivate(from: string, to: string): void {
  copyFileSync(from, to);
  chmodSync(to, 0o600);
}

/** Stops the daemon running on `d`'s data dir (its store is replaced next: how it ends is moot). */
async function shutdown(d: TestDaemon): Promise<void> {
  await killHard(running(d).pid);
}

async function daemon(t: ExecutionContext, args: string[] = []): Promise<TestDaemon> {
  const d = await startDaemon({ args });
  t.teardown(() => d.stop());
  return d;
}

/** The runs of the fixture, each resumed to its end on the daemon now running on `d`. */
async function resumeEveryRun(t: ExecutionContext, d: TestDaemon, fixture: StoreFixture) {
  const api: Api = restNow(d, '/v1');
  const { runs } = fixture;
  const run = (name: keyof StoreFixture['runs']) =>
    waitForExecution(api, runs[name].workflow_id, runs[name].execution_id, () => true);

  const clock = await control<{ now: string; frozen: boolean }>(running(d), 'clock.show');
  t.like(clock, { now: FIXTURE_CLOCK, frozen: true }, 'the sandbox clock came with the store');

  // Where each run stands once the daemon has resumed them (nothing moved the clock yet).
  t.like(await run('week_wait'), {
    status: runs.week_wait.status,
    step_results: [{ step_id: 'pause', status: 'waiting' }],
  });
  t.like(await run('approval'), {
    status: runs.approval.status,
    step_results: [{ step_id: 'ask', status: 'awaiting_approval' }],
  });
  const join_ = await run('parallel_join');
  t.deepEqual(
    join_.step_results.map((s: any) => [s.step_id, s.status]),
    [
      ['quick', 'completed'],
      ['slow', 'waiting'],
    ],
  );
  t.like(await run('retry_backoff'), {
    step_results: [
      { step_id: 'call', attempt: 1, status: 'failed' },
      { step_id: 'call', attempt: 2, status: 'retrying' },
    ],
  });
  // The call in flight at the kill counts as attempt 1 (unknown); attempt 2 went at once after
  // the start and met the stored fault (503); attempt 3 waits for its backoff.
  const lost = await waitForExecution(
    api,
    runs.call_unknown.workflow_id,
    runs.call_unknown.execution_id,
    (e) => e.step_results.some((s: any) => s.attempt === 3 && s.status === 'retrying'),
  );
  t.like(lost.step_results, [
    { step_id: 'call', attempt: 1, status: 'unknown' },
    { step_id: 'call', attempt: 2, status: 'failed', result: { status_code: 503 } },
    { step_id: 'call', attempt: 3, status: 'retrying' },
  ]);

  // What moves them on: a receiver for the webhook steps, a person's decision, the clock.
  const receiver = await startReceiver(t);
  await control(running(d), 'secrets.set', {
    workspace_id: fixture.workspace_id,
    name: RECEIVER_SECRET,
    value: receiver.url,
  });
  const { agent_id: agentId, agent_execution_id: agentExecutionId } = runs.approval;
  const approved = await api('POST', `/agents/${agentId}/executions/${agentExecutionId}/approve`, {
    decision: 'approve',
  });
  t.is(approved.status, 200, JSON.stringify(approved.body));
  await control(running(d), 'clock.advance', { ms: 7 * 86_400_000 + 60_000 });

  for (const name of Object.keys(runs) as (keyof StoreFixture['runs'])[]) {
    const ended = await waitForExecution(
      api,
      runs[name].workflow_id,
      runs[name].execution_id,
      (e) => TERMINAL.includes(e.status),
    );
    t.is(ended.status, 'completed', `${name}: ${JSON.stringify(ended)}`);
  }
  t.deepEqual(
    (await run('week_wait')).step_results.map((s: any) => [s.step_id, s.status]),
    [
      ['pause', 'completed'],
      ['done', 'completed'],
    ],
  );
  t.deepEqual(
    (await run('parallel_join')).step_results.map((s: any) => s.step_id),
    ['quick', 'slow', 'fan', 'joined'],
  );
  t.like((await run('call_unknown')).step_results, [
    { attempt: 1, status: 'unknown' },
    { attempt: 2, status: 'failed' },
    { attempt: 3, status: 'completed', result: { status_code: 200 } },
    { step_id: 'after', status: 'completed' },
  ]);
  // Each webhook run called the receiver once: the retry's attempt 2, the lost call's attempt 3.
  t.deepEqual(
    receiver.requests.map((request) => request.json().run).sort(),
    [runs.retry_backoff.execution_id, runs.call_unknown.execution_id].sort(),
  );
}

const releases = storeFixtureReleases().map((release) => ({
  release,
  fixture: readStoreFixture(release),
  at: join(STORE_FIXTURES, release),
}));
const latest = releases.at(-1)!;
/** Under npm run test:e2e:pg the daemons' store is a PostgreSQL schema, not svc.db. */
const onSqlite = process.env.SVC_STORE_URL === undefined;

/** Replaces the store of `d`'s (stopped) daemon with a copy of `store` and the fixture's key. */
function plantStore(d: TestDaemon, store: string, at: string): void {
  for (const suffix of ['-wal', '-shm'])
    rmSync(join(d.dataDir, `svc.db${suffix}`), { force: true });
  copyPrivate(store, join(d.dataDir, 'svc.db'));
  copyPrivate(join(at, 'data', 'secret.key'), join(d.dataDir, 'secret.key'));
}

const newerMessage = (executionId: string) =>
  `Run ${executionId}'s stored state is version ${RUN_STATE_VERSION + 1}: a newer svc wrote it, and this svc reads run states up to version ${RUN_STATE_VERSION}.`;

test('the data dir of every kept release opens on this svc and every waiting run completes', async (t) => {
  for (const { release, fixture, at } of releases) {
    t.log(`release ${release} (made by ${fixture.made_by.commit})`);
    const d = await daemon(t);
    await shutdown(d);
    plantStore(d, join(at, 'data', 'svc.db'), at);
    t.true(
      stateVersions(join(d.dataDir, 'svc.db')).every((v) => v === null || v < RUN_STATE_VERSION),
    );
    await restart(d);
    await resumeEveryRun(t, d, fixture);
    // Each run's state was written again as it went on: at the current version.
    t.deepEqual(
      stateVersions(join(d.dataDir, 'svc.db')),
      Object.keys(fixture.runs).map(() => RUN_STATE_VERSION),
    );
    await d.stop();
  }
});

test('the snapshot of every kept release imports on this svc and every waiting run completes', async (t) => {
  for (const { release, fixture, at } of releases) {
    t.log(`release ${release} (made by ${fixture.made_by.commit})`);
    // The sandbox the snapshot came from had this key: its secrets open here.
    const key = join(tempDir('svc-fixture-key-'), 'secret.key');
    copyPrivate(join(at, 'data', 'secret.key'), key);
    const d = await daemon(t, ['--secret-key-file', key]);
    const imported = await control(running(d), 'state.import', {
      file: join(at, 'snapshot.svcsnap'),
    });
    t.like(imported, { snapshot: { schema_version: fixture.store_schema }, dropped_secrets: [] });
    // Upgraded by the import, before any of them ran. (On PostgreSQL the import copies the same
    // upgraded SQLite staging file into the schema.)
    if (onSqlite) {
      t.deepEqual(
        stateVersions(join(d.dataDir, 'svc.db')),
        Object.keys(fixture.runs).map(() => RUN_STATE_VERSION),
      );
    }
    await resumeEveryRun(t, d, fixture);
    await d.stop();
  }
});

test('a snapshot holding a run state from a newer svc is refused, naming the run', async (t) => {
  const newer = latest.fixture.runs.week_wait.execution_id;
  const d = await daemon(t);
  const file = withNewerState(join(latest.at, 'snapshot.svcsnap'), newer);
  const refused = await trpc(running(d), 'state.import', { file, drop_secrets: true });
  t.is(refused.status, 409, refused.text);
  t.true(refused.error!.message.includes(newerMessage(newer)), refused.error!.message);
  t.true(
    refused.error!.message.startsWith(`The snapshot ${file} holds runs written by a newer svc`),
  );
  // The sandbox is as it was: the import changed nothing.
  const workflows = await restNow(d, '/v1')('GET', '/workflows');
  t.deepEqual(workflows.body.data, []);
});

test('a data dir holding a run state from a newer svc does not start, naming the run', async (t) => {
  const newer = latest.fixture.runs.week_wait.execution_id;
  const d = await daemon(t);
  await shutdown(d);
  plantStore(d, withNewerState(join(latest.at, 'data', 'svc.db'), newer), latest.at);
  const store = join(d.dataDir, 'svc.db');
  const before = whereRunsStand(store);
  const start = await runCli(['daemon', 'start', '--port', '0', '--json'], { env: d.env });
  t.is(start.code, 1, start.stdout + start.stderr);
  t.like(start.json().error, { code: 'daemon_start_failed' });
  t.true(start.json().error.message.includes(newerMessage(newer)), start.stdout);
  // Every state was checked before any run went on: the runs it would have reached before the
  // newer one (the lost call's attempt, the others' steps) are where they were. (The daemon
  // closes its store before it reports why it could not start.)
  t.deepEqual(whereRunsStand(store), before);
});
