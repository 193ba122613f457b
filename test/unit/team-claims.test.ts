// Team mode's claims and leases on one PostgreSQL sandbox opened twice (two daemons' handles):
// a due timer runs on exactly one daemon; a step attempt is claimed by one, and not on a state
// that moved on; a daemon whose lease ran out is taken over by exactly one survivor, which gets
// its timers and step claims; the lost daemon finds out at its next heartbeat. On SQLite, one
// daemon: nothing is claimed, and the rows of earlier runs are taken over at start.
import test from 'ava';
import { DaemonRegistry } from '../../daemon/cluster/daemon-registry.js';
import { LEASE_MS } from '../../daemon/cluster/lease.js';
import { stepClaims } from '../../daemon/cluster/step-claims.js';
import type { Db } from '../../daemon/store/db.js';
import { migratePostgres, POSTGRES_MIGRATIONS } from '../../daemon/store/postgres/migrations.js';

/** The schema version of this svc (the last migration's). */
const CURRENT = POSTGRES_MIGRATIONS.at(-1)!.version;
import { SandboxInUseByOlderSchemaError } from '../../daemon/store/store-errors.js';
import { OffsetClock } from '../../daemon/time/clock.js';
import { TimerRepository } from '../../daemon/time/timer.repository.js';
import { TimerService } from '../../daemon/time/timer.service.js';
import { storeOpener } from '../helpers/postgres.js';

const silent = { info: () => undefined, error: () => undefined };

async function twoHandles(t: import('ava').ExecutionContext): Promise<[Db, Db]> {
  const open = await storeOpener('postgres');
  const handles: [Db, Db] = [open(), open()];
  t.teardown(() => {
    for (const db of handles) if (db.open) db.close();
  });
  return handles;
}

function registry(db: Db, id: string): DaemonRegistry {
  return new DaemonRegistry(db, { id, version: 'test', schemaVersion: CURRENT, log: silent });
}

test('postgres: a due timer runs on exactly one of two daemons, and a stop releases its claims', async (t) => {
  const [a, b] = await twoHandles(t);
  const clock = new OffsetClock();
  const ran: string[] = [];
  const services = (['dmn_a', 'dmn_b'] as const).map((name, index) => {
    const timers = new TimerService(new TimerRepository([a, b][index]!, name), clock, silent);
    timers.register('job', (payload) => void ran.push(`${name}:${String(payload)}`));
    return timers;
  });
  const [first, second] = services as [TimerService, TimerService];
  for (let job = 0; job < 40; job += 1) first.schedule('job', clock.now() - 1, job);
  // Both look at once: each timer is claimed by one of them.
  await Promise.all([first.runDue(), second.runDue()]);
  t.is(ran.length, 40, ran.join(' '));
  t.is(new Set(ran.map((entry) => entry.split(':')[1])).size, 40, 'each job once');
  t.is(first.pending(), 0);
  // A timer claimed by a daemon that stops goes back to the others.
  const repoA = new TimerRepository(a, 'dmn_a');
  repoA.insert({
    id: 'timer_held',
    kind: 'job',
    due_at: 0,
    payload: '"held"',
    owner: null,
    created_at: 0,
    claimed_by: null,
  });
  t.is(repoA.claimDue(clock.now(), 10).length, 1);
  t.is(new TimerRepository(b, 'dmn_b').claimDue(clock.now(), 10).length, 0, 'held by a');
  await first.stop();
  t.deepEqual(
    new TimerRepository(b, 'dmn_b').claimDue(clock.now(), 10).map((row) => row.id),
    ['timer_held'],
  );
});

test('postgres: a step attempt is claimed by one daemon, and only on the state it read', (t) =>
  twoHandles(t).then(([a, b]) => {
    a.prepare(
      `INSERT INTO workflow_executions (id, workflow_id, workspace_id, version, status, trigger_type, input, frontier, deadline_at, created_at)
       VALUES ('exec_1', 'wfl_1', 'ws_1', 1, 'running', 'manual', '{}', 'state-1', 0, 0)`,
    ).run();
    const claimsA = stepClaims(a, 'dmn_a');
    const claimsB = stepClaims(b, 'dmn_b');
    t.false(claimsB.claim('exec_1', 'k1', 1, 'state-0'), 'a state that moved on claims nothing');
    t.true(claimsA.claim('exec_1', 'k1', 1, 'state-1'));
    t.false(claimsB.claim('exec_1', 'k1', 1, 'state-1'), 'held by a');
    t.true(claimsB.claim('exec_1', 'k1', 2, 'state-1'), 'the next attempt is a claim of its own');
    claimsA.release('exec_1', 'k1', 1);
    t.true(claimsB.claim('exec_1', 'k1', 1, 'state-1'), 'released: another daemon may start it');
  }));

test('postgres: a lost daemon is taken over by exactly one survivor, which gets its work; the lost one stops', async (t) => {
  const [a, b] = await twoHandles(t);
  const lost = registry(a, 'dmn_lost');
  lost.join('http://127.0.0.1:1');
  const survivors = [registry(a, 'dmn_s1'), registry(b, 'dmn_s2')];
  const takeovers: string[][] = [];
  for (const survivor of survivors) {
    survivor.onTakeover((ids) => takeovers.push(ids));
    survivor.join('http://127.0.0.1:2');
  }
  let lostHeard = 0;
  lost.onLost(() => (lostHeard += 1));
  t.teardown(() => {
    for (const member of [lost, ...survivors]) member.leave();
  });
  // It holds a timer and a step; then its heartbeat stops for longer than the lease.
  a.prepare(
    `INSERT INTO timers (id, kind, due_at, payload, created_at, claimed_by) VALUES ('timer_1', 'job', 0, '1', 0, 'dmn_lost')`,
  ).run();
  a.prepare(
    `INSERT INTO run_step_claims (execution_id, act_key, attempt, daemon_id, claimed_at) VALUES ('exec_1', 'k1', 1, 'dmn_lost', 0)`,
  ).run();
  t.like(
    survivors[0]!.views().find((view) => view.id === 'dmn_lost'),
    {
      state: 'live',
      claimed_timers: 1,
      driven_runs: 1,
    },
  );
  a.prepare('UPDATE daemons SET heartbeat_at = heartbeat_at - ? WHERE id = ?').run(
    LEASE_MS + 1000,
    'dmn_lost',
  );
  t.like(
    survivors[1]!.views().find((view) => view.id === 'dmn_lost'),
    { state: 'silent' },
  );
  survivors[0]!.beat();
  survivors[1]!.beat();
  t.deepEqual(takeovers, [['dmn_lost']], 'one survivor took it over, once');
  const row = a
    .prepare<[], { taken_over_by: string; lost_at: number | null }>(
      "SELECT taken_over_by, lost_at FROM daemons WHERE id = 'dmn_lost'",
    )
    .get()!;
  t.is(row.taken_over_by, 'dmn_s1');
  t.not(row.lost_at, null);
  t.is(a.prepare("SELECT claimed_by FROM timers WHERE id = 'timer_1'").pluck().get(), null);
  t.is(Number(a.prepare('SELECT COUNT(*) FROM run_step_claims').pluck().get()), 0);
  // The lost daemon comes back (a long pause): its heartbeat finds it was taken over.
  lost.beat();
  t.is(lostHeard, 1);
  t.like(
    survivors[1]!.views().find((view) => view.id === 'dmn_lost'),
    {
      state: 'lost',
      taken_over_by: 'dmn_s1',
    },
  );
  // Housekeeping is one daemon's at a time: the oldest live one.
  t.deepEqual(
    survivors.map((survivor) => survivor.isHousekeeper()),
    [true, false],
  );
  // A clean stop is taken over too (its unfinished runs resume elsewhere).
  survivors[0]!.leave();
  survivors[1]!.beat();
  t.deepEqual(takeovers, [['dmn_lost'], ['dmn_s1']]);
  t.true(survivors[1]!.isHousekeeper());
});

test('postgres: a daemon of a newer schema refuses to migrate a sandbox live daemons of the older one serve, saying how', async (t) => {
  const [a] = await twoHandles(t);
  const schema = a.prepare<[], string>('SELECT current_schema()').pluck().get()!;
  const older = registry(a, 'dmn_older');
  older.join('http://127.0.0.1:7717');
  t.teardown(() => older.leave());
  const newer = [
    ...POSTGRES_MIGRATIONS,
    { version: 99, name: 'a later svc', sql: 'CREATE TABLE later_svc (id TEXT)' },
  ];
  const refused = t.throws(() => migratePostgres(a, schema, newer), {
    instanceOf: SandboxInUseByOlderSchemaError,
  });
  t.regex(
    refused!.message,
    new RegExp(
      `schema version ${CURRENT} and is served by daemons of that version: http://127\\.0\\.0\\.1:7717 \\(pid \\d+ on `,
    ),
  );
  t.regex(refused!.message, /Stop those daemons \(svc daemon stop on each\), start this one alone/);
  t.is(a.prepare('SELECT version FROM svc_schema_version').pluck().get(), CURRENT, 'not migrated');
  // Once they stopped, the newer daemon migrates the sandbox.
  older.leave();
  migratePostgres(a, schema, newer);
  t.is(Number(a.prepare('SELECT version FROM svc_schema_version').pluck().get()), 99);
});
