// Trigger logic on a real SQLite file, real durable timers and the offset clock: cron
// arithmetic, schedules firing per occurrence, catch-up after downtime, config checks and the
// event fan-out's loop guards. The engine is replaced by a recorder of start() calls.
import test from 'ava';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { OffsetClock } from '../../daemon/time/clock.js';
import { SecretBox } from '../../daemon/platform/secret-box.js';
import { openDatabase } from '../../daemon/store/database.js';
import type { Db } from '../../daemon/store/db.js';
import { TimerRepository } from '../../daemon/time/timer.repository.js';
import { TimerService } from '../../daemon/time/timer.service.js';
import { checkSchedule, latestOccurrence, nextOccurrence } from '../../daemon/triggers/cron.js';
import { TriggerRepository } from '../../daemon/triggers/trigger.repository.js';
import {
  MAX_EVENT_CHAIN,
  TriggerService,
  type RunRequest,
} from '../../daemon/triggers/trigger.service.js';
import type { ApiError } from '../../daemon/domain/errors.js';
import type { EventEnvelope } from '../../shared/schemas/events.js';
import { signatureHeader } from '../../shared/signature.js';
import { tempDir } from '../helpers/app.js';

const HOUR = 3_600_000;
const WS = 'ws_test';

interface Started {
  workflowId: string;
  run: RunRequest;
  executionId: string;
}

function setUp(t: import('ava').ExecutionContext) {
  const dir = tempDir();
  const file = join(dir, 'svc.db');
  const clock = new OffsetClock();
  // Start on a whole hour so that occurrences are easy to name.
  clock.setOffset(Date.parse('2031-03-03T00:00:00.000Z') - Date.now());
  const started: Started[] = [];
  const opened: { db: Db; timers: TimerService }[] = [];
  const box = SecretBox.fromKeyFile(join(dir, 'secret.key'));
  const boot = () => {
    const db = openDatabase(file);
    const timers = new TimerService(new TimerRepository(db), clock, { error: () => undefined });
    const triggers = new TriggerService({
      db,
      repo: new TriggerRepository(db),
      runs: {
        start: (_workspaceId, workflowId, run) => {
          const executionId = `wex_${started.length + 1}`;
          started.push({ workflowId, run, executionId });
          return { execution_id: executionId };
        },
      },
      timers,
      clock,
      commits: { run: async (work) => db.transaction(work)() },
      box,
    });
    opened.push({ db, timers });
    return { db, timers, triggers };
  };
  const shutdown = async (node: { db: Db; timers: TimerService }) => {
    await node.timers.stop();
    node.db.close();
  };
  t.teardown(async () => {
    for (const node of opened) if (node.db.open) await shutdown(node);
    rmSync(dir, { recursive: true, force: true });
  });
  const advance = async (node: { timers: TimerService }, ms: number) => {
    clock.setOffset(clock.offset + ms);
    await node.timers.runDue();
  };
  return { boot, shutdown, advance, clock, started };
}

function errorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    return error as ApiError;
  }
  throw new Error('expected an ApiError');
}

const hourly = { type: 'schedule', config: { cron: '0 * * * *', timezone: 'UTC' } };

/** Stores an active workflow `id` with `trigger` in WS, as the workflow service's write does. */
function created(
  node: Pick<ReturnType<ReturnType<typeof setUp>['boot']>, 'db' | 'triggers'>,
  id: string,
  trigger: unknown,
) {
  node.db.transaction(() =>
    node.triggers.onWrite({
      workspaceId: WS,
      before: null,
      after: { id, status: 'active', trigger: trigger as never },
    }),
  )();
}

test('cron: next and latest occurrence in a time zone, from any instant', (t) => {
  const at = Date.parse('2030-01-01T07:59:59.500Z');
  const eight = { cron: '0 8 * * *', timezone: 'UTC' };
  t.is(new Date(nextOccurrence(eight, at)).toISOString(), '2030-01-01T08:00:00.000Z');
  // Strictly after: an occurrence does not follow itself.
  t.is(
    new Date(nextOccurrence(eight, Date.parse('2030-01-01T08:00:00.000Z'))).toISOString(),
    '2030-01-02T08:00:00.000Z',
  );
  t.is(
    new Date(latestOccurrence(eight, Date.parse('2030-01-01T08:00:00.000Z'))!).toISOString(),
    '2030-01-01T08:00:00.000Z',
  );
  const paris = { cron: '0 8 * * *', timezone: 'Europe/Paris' };
  t.is(new Date(nextOccurrence(paris, at)).toISOString(), '2030-01-02T07:00:00.000Z');
});

test('cron: a bad expression or time zone names its field', (t) => {
  for (const cron of ['61 * * * *', 'every hour', '* * *', '* * * * * * *']) {
    const error = errorOf(() => checkSchedule({ cron, timezone: 'UTC' }));
    t.is(error.code, 'invalid_parameter', cron);
    t.is(error.param, 'trigger.config.cron', cron);
  }
  const zone = errorOf(() => checkSchedule({ cron: '0 * * * *', timezone: 'Mars/Olympus' }));
  t.is(zone.param, 'trigger.config.timezone');
  t.notThrows(() => checkSchedule({ cron: '@daily', timezone: 'America/New_York' }));
});

test('a schedule fires once per occurrence that became due, with scheduled_at', async (t) => {
  const { boot, advance, started } = setUp(t);
  const node = boot();
  node.timers.start();
  created(node, 'wfl_a', hourly);
  await advance(node, 3 * HOUR + 60_000);
  t.deepEqual(
    started.map((run) => (run.run.trigger.payload as { scheduled_at: string }).scheduled_at),
    ['2031-03-03T01:00:00.000Z', '2031-03-03T02:00:00.000Z', '2031-03-03T03:00:00.000Z'],
  );
  t.true(started.every((run) => run.workflowId === 'wfl_a' && run.run.trigger.type === 'schedule'));
});

test('pausing stops a schedule; activating starts it from now', async (t) => {
  const { boot, advance, started } = setUp(t);
  const node = boot();
  node.timers.start();
  const write = (status: string) =>
    node.db.transaction(() =>
      node.triggers.onWrite({
        workspaceId: WS,
        before: null,
        after: { id: 'wfl_p', status, trigger: hourly },
      }),
    )();
  write('active');
  write('paused');
  await advance(node, 5 * HOUR);
  t.is(started.length, 0);
  write('active');
  await advance(node, HOUR);
  t.is(started.length, 1, 'only the occurrence after activation, none of the paused hours');
  t.is(
    (started[0]!.run.trigger.payload as { scheduled_at: string }).scheduled_at,
    '2031-03-03T06:00:00.000Z',
  );
});

test('occurrences missed while the daemon was down fire once, for the latest', async (t) => {
  const { boot, shutdown, clock, started } = setUp(t);
  const first = boot();
  first.timers.start();
  created(first, 'wfl_r', hourly);
  await shutdown(first);
  clock.setOffset(clock.offset + 4 * HOUR + 30 * 60_000);
  const second = boot();
  second.triggers.catchUp();
  second.timers.start();
  await second.timers.runDue();
  t.is(started.length, 1);
  t.is(
    (started[0]!.run.trigger.payload as { scheduled_at: string }).scheduled_at,
    '2031-03-03T04:00:00.000Z',
  );
  clock.setOffset(clock.offset + HOUR);
  await second.timers.runDue();
  t.is(started.length, 2, 'then it goes on with the next occurrence');
});

test('beside a live daemon (team mode) nothing is caught up: each missed occurrence fires, in turn', async (t) => {
  const { boot, shutdown, clock, started } = setUp(t);
  const first = boot();
  first.timers.start();
  created(first, 'wfl_r', hourly);
  await shutdown(first);
  clock.setOffset(clock.offset + 2 * HOUR + 30 * 60_000);
  const second = boot();
  // Another daemon serves the sandbox: it fires what fell due, each occurrence.
  second.triggers.catchUp(() => true);
  second.timers.start();
  await second.timers.runDue();
  t.deepEqual(
    started.map((each) => (each.run.trigger.payload as { scheduled_at: string }).scheduled_at),
    ['2031-03-03T01:00:00.000Z', '2031-03-03T02:00:00.000Z'],
  );
});

test('trigger configs are checked per type, and a hook path belongs to one workflow', (t) => {
  const { boot } = setUp(t);
  const { db, triggers } = boot();
  const write = (id: string, trigger: unknown) =>
    errorOf(() =>
      db.transaction(() =>
        triggers.onWrite({
          workspaceId: WS,
          before: null,
          after: { id, status: 'active', trigger: trigger as never },
        }),
      )(),
    );
  t.is(write('wfl_1', { type: 'webhook', config: {} }).code, 'missing_required_field');
  t.is(write('wfl_1', { type: 'webhook', config: { path: 'a/b' } }).param, 'trigger.config.path');
  t.is(
    write('wfl_1', { type: 'event', config: { event_types: ['nope.*'] } }).code,
    'invalid_event_type',
  );
  t.is(write('wfl_1', { type: 'cron', config: {} }).param, 'trigger.type');
  t.notThrows(() =>
    db.transaction(() =>
      triggers.onWrite({
        workspaceId: WS,
        before: null,
        after: {
          id: 'wfl_1',
          status: 'active',
          trigger: { type: 'webhook', config: { path: 'orders' } },
        },
      }),
    )(),
  );
  const clash = write('wfl_2', { type: 'webhook', config: { path: 'orders' } });
  t.is(clash.code, 'conflict');
  t.is(clash.status, 409);
});

function event(type: string, data: Record<string, unknown>, id = 'evt_1'): EventEnvelope {
  return {
    id,
    type,
    created_at: new Date().toISOString(),
    workspace_id: WS,
    data,
  } as EventEnvelope;
}

test('an event trigger starts one run per matching event, never from its own runs', (t) => {
  const { boot, started } = setUp(t);
  const { db, triggers } = boot();
  created({ db, triggers }, 'wfl_e', {
    type: 'event',
    config: { event_types: ['agent.*', 'workflow.execution.*'] },
  });
  triggers.fanout(event('agent.created', { id: 'agt_1' }));
  triggers.fanout(event('integration.connected', { id: 'int_1' }));
  triggers.fanout(
    event('workflow.execution.completed', { workflow_id: 'wfl_e', execution_id: 'wex_1' }),
  );
  t.is(started.length, 1);
  t.is(started[0]!.run.trigger.type, 'event');
  t.is((started[0]!.run.trigger.payload as EventEnvelope).type, 'agent.created');
});

test('event-triggered runs that trigger each other stop after a bounded chain', (t) => {
  const { boot, started } = setUp(t);
  const { db, triggers } = boot();
  for (const id of ['wfl_x', 'wfl_y'])
    db.transaction(() =>
      triggers.onWrite({
        workspaceId: WS,
        before: null,
        after: {
          id,
          status: 'active',
          trigger: { type: 'event', config: { event_types: ['workflow.execution.completed'] } },
        },
      }),
    )();
  // Each completion of one workflow's run starts the other: simulate the completions.
  let workflowId = 'wfl_x';
  let executionId = 'wex_manual';
  for (let round = 0; round < 20; round += 1) {
    const before = started.length;
    triggers.fanout(
      event(
        'workflow.execution.completed',
        { workflow_id: workflowId, execution_id: executionId },
        `evt_${round}`,
      ),
    );
    if (started.length === before) break;
    const last = started.at(-1)!;
    workflowId = last.workflowId;
    executionId = last.executionId;
  }
  t.is(started.length, MAX_EVENT_CHAIN);
});

test('the webhook intake refuses a bad signature, a paused workflow and an unknown path', async (t) => {
  const { boot, started } = setUp(t);
  const { db, triggers } = boot();
  const write = (status: string) =>
    db.transaction(() =>
      triggers.onWrite({
        workspaceId: WS,
        before: null,
        after: {
          id: 'wfl_h',
          status,
          trigger: { type: 'webhook', config: { path: 'in', secret: 'whsec_abcdefgh' } },
        },
      }),
    )();
  write('active');
  // The trigger table keeps the secret sealed; the intake opens it to verify.
  const stored = new TriggerRepository(db).get('wfl_h')!.hook_secret!;
  t.true(SecretBox.isSealed(stored));
  t.false(stored.includes('whsec_abcdefgh'));
  const hook = (headers: Record<string, string>, path = 'in') =>
    triggers.receiveHook({ workspaceId: WS, path, body: { a: 1 }, rawBody: '{"a":1}', headers });
  t.is(errorOf(() => hook({})).code, 'unauthorized');
  t.is(errorOf(() => hook({ 'x-svc-signature': 't=1,v1=' + '0'.repeat(64) })).code, 'unauthorized');
  t.is(errorOf(() => hook({}, 'elsewhere')).code, 'not_found');
  const signed = { 'x-svc-signature': signatureHeader('whsec_abcdefgh', '{"a":1}') };
  write('paused');
  t.is(errorOf(() => hook(signed)).code, 'workflow_not_active');
  t.is(started.length, 0);
  write('active');
  const { execution_id } = await hook({
    ...signed,
    authorization: 'Bearer x',
    'x-trace': 't1',
  }).start();
  t.is(execution_id, 'wex_1');
  t.deepEqual(started[0]!.run.trigger.headers, { 'x-trace': 't1' });
});
