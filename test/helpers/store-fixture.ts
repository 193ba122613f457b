// Stores written by a released svc, kept as test fixtures (test/fixtures/stores/<release>/): runs
// parked in every way a run waits, which the current code must resume to completion
// (test/e2e/run-state-fixtures.test.ts). scripts/make-store-fixture.mjs makes one with the svc
// of the checkout it runs in; the commit that made it is written in its fixture.json.
//
// Each release's fixture holds the same store twice: the data dir a user upgrading a persistent
// sandbox has (data/svc.db with its secret.key: the store is opened, migrated and resumed in
// place), and the `svc state export` snapshot of the same moment (snapshot.svcsnap: imported by
// a newer svc). Both are SQLite files of about the same size, and each is the way in that a
// user takes: one cannot stand for the other.
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { control } from './api.js';
import { ROOT, startDaemon, type TestDaemon } from './daemon.js';
import { killHard, running } from './processes.js';
import { startReceiver } from './receiver.js';
import { apiFor, createWorkflow, getExecution, type Api } from './workflows.js';

export const STORE_FIXTURES = join(ROOT, 'test', 'fixtures', 'stores');

/** Where the fixture's sandbox clock stands, frozen: nothing moves until a test advances it. */
export const FIXTURE_CLOCK = '2026-01-05T09:00:00.000Z';

/** The workspace secret every webhook step of a fixture calls: a test points it at its receiver. */
export const RECEIVER_SECRET = 'RECEIVER_URL';

/** The ways a run waits, one run each. */
export type ParkedRun =
  | 'week_wait' // a 7-day wait step
  | 'approval' // an L2 agent's action waiting for a person
  | 'retry_backoff' // a webhook step's attempt 1 failed (500), attempt 2 due after its backoff
  | 'parallel_join' // a parallel step with one branch done, the other in a 1-hour wait
  | 'call_unknown'; // a webhook step's call in flight when the daemon was SIGKILLed

export interface StoreFixture {
  made_by: { commit: string; svc_version: string; node: string; script: string };
  made_at: string;
  clock: string;
  store_schema: number;
  workspace_id: string;
  runs: Record<
    ParkedRun,
    {
      workflow_id: string;
      execution_id: string;
      /** The run's status when the store was written. */
      status: string;
      /** The agent execution a person decides (approval only). */
      agent_id?: string;
      agent_execution_id?: string;
    }
  >;
}

export function readStoreFixture(release: string): StoreFixture {
  return JSON.parse(
    readFileSync(join(STORE_FIXTURES, release, 'fixture.json'), 'utf8'),
  ) as StoreFixture;
}

/** The releases kept, oldest first (each folder's name starts with its date). */
export function storeFixtureReleases(): string[] {
  return readdirSync(STORE_FIXTURES, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

const WEEK_SECONDS = 7 * 86_400;

/** Polls a run (real time: the daemon works meanwhile) until `done` holds. */
async function until(
  api: Api,
  workflowId: string,
  executionId: string,
  done: (execution: any) => boolean,
): Promise<any> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const execution = await getExecution(api, workflowId, executionId);
    if (done(execution)) return execution;
    if (Date.now() > deadline)
      throw new Error(`run ${executionId} did not park: ${JSON.stringify(execution)}`);
    await new Promise((wake) => setTimeout(wake, 100));
  }
}

async function agent(api: Api, name: string, autonomy: string): Promise<string> {
  const created = await api('POST', '/agents', {
    name,
    ontology: 'retail-v1',
    type: 'customer-service',
    autonomy_level: autonomy,
  });
  if (created.status !== 201) throw new Error(`create agent: ${JSON.stringify(created.body)}`);
  const id = created.body.data.id as string;
  const deployed = await api('POST', '/agents/deploy', { agent_id: id });
  if (deployed.status !== 200) throw new Error(`deploy agent: ${JSON.stringify(deployed.body)}`);
  return id;
}

async function start(api: Api, workflowId: string, input: unknown): Promise<string> {
  const started = await api('POST', `/workflows/${workflowId}/execute`, { input });
  if (started.status !== 202 && started.status !== 200)
    throw new Error(`execute: ${started.status} ${JSON.stringify(started.body)}`);
  return started.body.data.execution_id as string;
}

/** A webhook step calling the receiver the workspace secret names. */
function call(id: string, next?: string) {
  return {
    id,
    name: id,
    type: 'webhook',
    config: {
      url: `{{secrets.${RECEIVER_SECRET}}}`,
      method: 'POST',
      body: { run: '{{workflow.execution_id}}', step: id },
      timeout_seconds: 60,
    },
    ...(next ? { next_step_id: next } : {}),
  };
}

/**
 * Writes test/fixtures/stores/<release>/ with the svc built in this checkout (run `npm run
 * build` first): a sandbox on a frozen clock with one run parked in each way, exported while the
 * last run's call is in flight, then the daemon SIGKILLed and its store copied.
 */
export async function makeStoreFixture(release: string): Promise<string> {
  const dirty = execFileSync('git', ['status', '--porcelain', '--', 'daemon', 'shared', 'cli'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (dirty.trim() !== '')
    throw new Error(
      `daemon/, shared/ or cli/ have uncommitted changes: a fixture is made by a commit.\n${dirty}`,
    );
  const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  const target = join(STORE_FIXTURES, release);
  if (existsSync(target)) throw new Error(`${target} exists: a release's fixture is kept as made`);

  const receiver = await startReceiver();
  let d: TestDaemon | undefined;
  try {
    d = await startDaemon();
    await control(d, 'clock.set', { to: FIXTURE_CLOCK, frozen: true });
    const { workspaceId } = await d.operator();
    const api = await apiFor(d, workspaceId);
    await control(d, 'secrets.set', { name: RECEIVER_SECRET, value: receiver.url });
    const reviewer = await agent(api, 'Reviewer', 'L2');
    const helper = await agent(api, 'Helper', 'L3');
    const workflow = (name: string, steps: unknown[], settings: Record<string, unknown> = {}) =>
      createWorkflow(api, { name, status: 'active', settings, steps });

    const weekWait = await workflow(
      'Week wait',
      [
        {
          id: 'pause',
          name: 'Pause',
          type: 'wait',
          config: { duration_seconds: WEEK_SECONDS },
          next_step_id: 'done',
        },
        {
          id: 'done',
          name: 'Done',
          type: 'agent_action',
          agent_id: helper,
          config: { action: 'summarise' },
        },
      ],
      { timeout_seconds: 8 * 86_400 },
    );
    const approval = await workflow('Approval', [
      {
        id: 'ask',
        name: 'Ask',
        type: 'agent_action',
        agent_id: reviewer,
        config: { action: 'refund' },
        next_step_id: 'after',
      },
      { id: 'after', name: 'After', type: 'wait', config: { duration_seconds: 0 } },
    ]);
    const retry = await workflow('Retry backoff', [call('call')], {
      retry_policy: { max_attempts: 3, backoff_multiplier: 2 },
    });
    const join_ = await workflow(
      'Parallel join',
      [
        {
          id: 'fan',
          name: 'Fan out',
          type: 'parallel',
          config: { steps: ['quick', 'slow'], wait_for_all: true },
          next_step_id: 'joined',
        },
        {
          id: 'quick',
          name: 'Quick',
          type: 'agent_action',
          agent_id: helper,
          config: { action: 'tag' },
        },
        { id: 'slow', name: 'Slow', type: 'wait', config: { duration_seconds: 3600 } },
        {
          id: 'joined',
          name: 'Joined',
          type: 'agent_action',
          agent_id: helper,
          config: { action: 'close' },
        },
      ],
      { timeout_seconds: 86_400 },
    );
    const inFlight = await workflow(
      'Call in flight',
      [
        call('call', 'after'),
        { id: 'after', name: 'After', type: 'wait', config: { duration_seconds: 0 } },
      ],
      {
        retry_policy: { max_attempts: 3, backoff_multiplier: 2 },
      },
    );
    // After the restart the lost call's next attempt goes at once, to the receiver of this
    // script, long gone: a stored fault rule answers it 503 instead, so that attempt 3 waits
    // for its backoff on the frozen clock, until a test has pointed the secret at its receiver.
    await control(d, 'faults.add', {
      workflow_id: inFlight,
      step_id: 'call',
      attempts_from: 2,
      attempts_to: 2,
      status: 503,
    });

    const runs = {} as StoreFixture['runs'];
    const park = async (
      name: ParkedRun,
      workflowId: string,
      parked: (execution: any) => boolean,
    ) => {
      const executionId = await start(api, workflowId, { fixture: name });
      const execution = await until(api, workflowId, executionId, parked);
      runs[name] = { workflow_id: workflowId, execution_id: executionId, status: execution.status };
      return execution;
    };
    const stepIs = (stepId: string, status: string) => (execution: any) =>
      execution.step_results.some((s: any) => s.step_id === stepId && s.status === status);

    await park('week_wait', weekWait, stepIs('pause', 'waiting'));
    const asked = await park('approval', approval, stepIs('ask', 'awaiting_approval'));
    const ask = asked.step_results.find((s: any) => s.step_id === 'ask');
    runs.approval.agent_id = ask.result.agent_id;
    runs.approval.agent_execution_id = ask.result.agent_execution_id;
    await park(
      'parallel_join',
      join_,
      (e) => stepIs('quick', 'completed')(e) && stepIs('slow', 'waiting')(e),
    );
    receiver.respondWith(500);
    await park('retry_backoff', retry, stepIs('call', 'retrying'));
    // The next call is held: it is in flight when the snapshot is taken and the daemon killed.
    receiver.respondWith(200);
    receiver.delay(600_000);
    const before = receiver.requests.length;
    const executionId = await start(api, inFlight, { fixture: 'call_unknown' });
    await receiver.waitForCount(before + 1, 60_000);
    const sent = await getExecution(api, inFlight, executionId);
    if (!stepIs('call', 'running')(sent))
      throw new Error(`call_unknown: not in flight: ${JSON.stringify(sent)}`);
    runs.call_unknown = { workflow_id: inFlight, execution_id: executionId, status: sent.status };

    mkdirSync(join(target, 'data'), { recursive: true });
    const exported = await control<{ schema_version: number; svc_version: string }>(
      d,
      'state.export',
      { file: join(target, 'snapshot.svcsnap') },
    );
    await killHard(running(d).pid);
    compactStore(d.dataDir, join(target, 'data'));

    const fixture: StoreFixture = {
      made_by: {
        commit,
        svc_version: exported.svc_version,
        node: process.version,
        script: 'scripts/make-store-fixture.mjs',
      },
      made_at: new Date().toISOString(),
      clock: FIXTURE_CLOCK,
      store_schema: exported.schema_version,
      workspace_id: workspaceId,
      runs,
    };
    writeFileSync(join(target, 'fixture.json'), `${JSON.stringify(fixture, null, 2)}\n`);
    return target;
  } catch (error) {
    rmSync(target, { recursive: true, force: true });
    throw error;
  } finally {
    await receiver.close();
    if (d) await d.stop();
  }
}

/**
 * The killed daemon's store as one file: its WAL folded in (what SQLite does on the next open
 * anyway) and vacuumed, beside the data dir's secret key. Nothing else of the data dir is kept:
 * the daemon writes the rest (lock, address, control token, logs) at each start.
 */
function compactStore(dataDir: string, to: string): void {
  const scratch = resolve(to, '..', '.scratch');
  mkdirSync(scratch, { recursive: true });
  try {
    for (const suffix of ['', '-wal', '-shm']) {
      const file = join(dataDir, `svc.db${suffix}`);
      if (existsSync(file)) copyFileSync(file, join(scratch, `svc.db${suffix}`));
    }
    const db = new Database(join(scratch, 'svc.db'));
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.pragma('journal_mode = DELETE');
    db.exec('VACUUM');
    db.close();
    copyFileSync(join(scratch, 'svc.db'), join(to, 'svc.db'));
    copyFileSync(join(dataDir, 'secret.key'), join(to, 'secret.key'));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
