// Durable timers on each store (a real SQLite file, a PostgreSQL schema) and the daemon's
// offset clock.
import test from 'ava';
import { OffsetClock } from '../../daemon/time/clock.js';
import type { Db, StoreKind } from '../../daemon/store/db.js';
import { TimerRepository, type TimerRow } from '../../daemon/time/timer.repository.js';
import { MAX_TIMER_ATTEMPTS, TimerService } from '../../daemon/time/timer.service.js';
import { CommitQueue } from '../../daemon/store/commit-queue.js';
import { STORE_KINDS, storeOpener } from '../helpers/postgres.js';
import { unlessHung } from '../helpers/waiting.js';

const HOUR = 3_600_000;

interface Logged {
  obj: object;
  msg: string;
}

async function setUp(t: import('ava').ExecutionContext, kind: StoreKind) {
  const openStore = await storeOpener(kind);
  const opened: Db[] = [];
  const open = () => {
    const db = openStore();
    opened.push(db);
    return db;
  };
  const logged: Logged[] = [];
  const log = { error: (obj: object, msg: string) => logged.push({ obj, msg }) };
  const clock = new OffsetClock();
  const services: TimerService[] = [];
  /** A started service, as the daemon runs it (start() once the server listens). */
  const make = async (db: Db, register?: (timers: TimerService) => void) => {
    const timers = new TimerService(new TimerRepository(db), clock, log);
    services.push(timers);
    register?.(timers);
    timers.start();
    // Let the first pass (nothing due yet) settle.
    await timers.runDue();
    return timers;
  };
  t.teardown(async () => {
    for (const timers of services) await timers.stop();
    for (const db of opened) if (db.open) db.close();
  });
  /** One database and a started service on it. */
  const started = async () => {
    const db = open();
    return { db, timers: await make(db) };
  };
  return { open, make, started, clock, logged };
}

function rows(db: Db): TimerRow[] {
  return db.prepare('SELECT * FROM timers ORDER BY due_at').all() as TimerRow[];
}

for (const kind of STORE_KINDS) {
  test(`${kind}: a timer due in 1 h fires only once the clock has reached it`, async (t) => {
    const { started, clock } = await setUp(t, kind);
    const { timers } = await started();
    const fired: unknown[] = [];
    timers.register('ping', (payload, timer) => {
      fired.push(payload);
      t.regex(timer.id, /^tmr_/);
    });
    const dueAt = clock.now() + HOUR;
    timers.schedule('ping', dueAt, { n: 1 });
    t.is(timers.pending(), 1);

    await timers.runDue();
    t.deepEqual(fired, []);

    clock.setOffset(HOUR - 60_000);
    await timers.runDue();
    t.deepEqual(fired, [], 'not yet: a minute early');
    t.is(timers.pending(), 1);

    clock.setOffset(HOUR + 1);
    await timers.runDue();
    t.deepEqual(fired, [{ n: 1 }]);
    t.is(timers.pending(), 0);

    await timers.runDue();
    t.is(fired.length, 1, 'fired once');
  });

  test(`${kind}: timers fire in due order and only the due ones`, async (t) => {
    const { started, clock } = await setUp(t, kind);
    const { timers } = await started();
    const fired: string[] = [];
    timers.register('k', (payload) => {
      fired.push(payload as string);
    });
    const now = clock.now();
    timers.schedule('k', now + 3 * HOUR, 'c');
    timers.schedule('k', now + HOUR, 'a');
    timers.schedule('k', now + 2 * HOUR, 'b');
    timers.schedule('k', now + 10 * HOUR, 'late');
    clock.setOffset(3 * HOUR + 1);
    await timers.runDue();
    t.deepEqual(fired.sort(), ['a', 'b', 'c']);
    t.is(timers.pending(), 1);
  });

  test(`${kind}: a failing handler is kept, its attempts and error recorded, and retried later`, async (t) => {
    const { started, clock, logged } = await setUp(t, kind);
    // The retry is 1 s later on the daemon clock: frozen, that holds however slow the store is.
    clock.freeze();
    const { db, timers } = await started();
    let calls = 0;
    timers.register('flaky', () => {
      calls += 1;
      if (calls <= 2) throw new Error(`failure ${calls}`);
    });
    timers.schedule('flaky', clock.now(), { job: 1 });

    await timers.runDue();
    t.is(calls, 1);
    let [row] = rows(db);
    t.truthy(row, 'the timer is still stored');
    t.is(row!.attempts, 1);
    t.is(row!.last_error, 'failure 1');
    t.true(row!.due_at > clock.now(), 'retried later, not at once');
    t.is(logged.length, 1);

    // Running again right away does not retry before the new due time.
    await timers.runDue();
    t.is(calls, 1);

    clock.setOffset(row!.due_at - Date.now() + 1);
    await timers.runDue();
    t.is(calls, 2);
    [row] = rows(db);
    t.is(row!.attempts, 2);
    t.is(row!.last_error, 'failure 2');

    clock.setOffset(clock.offset + HOUR);
    await timers.runDue();
    t.is(calls, 3);
    t.deepEqual(rows(db), [], 'deleted once the handler succeeded');
  });

  test(`${kind}: a timer of an unregistered kind is not lost`, async (t) => {
    const { started, clock } = await setUp(t, kind);
    const { db, timers } = await started();
    timers.schedule('nobody', clock.now(), {});
    await timers.runDue();
    const [row] = rows(db);
    t.is(row!.attempts, 1);
    t.regex(row!.last_error!, /no handler/);
  });

  test(`${kind}: timers survive closing and reopening the database`, async (t) => {
    const { open, make, clock } = await setUp(t, kind);
    const first = open();
    const before = await make(first);
    before.schedule('wake', clock.now() + HOUR, { who: 'durable' });
    await before.stop();
    first.close();

    clock.setOffset(2 * HOUR);
    const second = open();
    // As the daemon does on start: a new service, handlers registered, then started.
    const after = new TimerService(new TimerRepository(second), clock, { error: () => undefined });
    t.teardown(() => after.stop());
    t.is(after.pending(), 1);
    const fired: unknown[] = [];
    after.register('wake', (payload) => {
      fired.push(payload);
    });
    after.start();
    await after.runDue();
    t.deepEqual(fired, [{ who: 'durable' }]);
    t.is(after.pending(), 0);
  });

  test(`${kind}: a follow-up scheduled for now by a handler runs in the same runDue`, async (t) => {
    const { started, clock } = await setUp(t, kind);
    const { timers } = await started();
    const fired: string[] = [];
    timers.register('step', (payload) => {
      const { n } = payload as { n: number };
      fired.push(`step ${n}`);
      if (n < 3) timers.schedule('step', clock.now(), { n: n + 1 });
    });
    timers.register('async-step', async (payload) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      fired.push(`async ${String(payload)}`);
      if (payload === 1) timers.schedule('async-step', clock.now(), 2);
    });
    timers.schedule('step', clock.now(), { n: 1 });
    timers.schedule('async-step', clock.now(), 1);
    await timers.runDue();
    t.deepEqual(
      fired.filter((f) => f.startsWith('step')),
      ['step 1', 'step 2', 'step 3'],
    );
    t.deepEqual(
      fired.filter((f) => f.startsWith('async')),
      ['async 1', 'async 2'],
    );
    t.is(timers.pending(), 0);
  });

  test(`${kind}: runDue while one is running joins it; a timer scheduled meanwhile still runs`, async (t) => {
    const { started, clock } = await setUp(t, kind);
    const { timers } = await started();
    const fired: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    timers.register('slow', async () => {
      await gate;
      fired.push('slow');
    });
    timers.register('quick', () => {
      fired.push('quick');
    });
    timers.schedule('slow', clock.now(), null);
    const first = timers.runDue();
    timers.schedule('quick', clock.now(), null);
    const second = timers.runDue();
    release();
    await Promise.all([first, second]);
    t.deepEqual(fired.sort(), ['quick', 'slow']);
    t.is(timers.pending(), 0);
  });

  test(`${kind}: cancelOwned removes every pending timer of an owner, through an index`, async (t) => {
    const { started, clock } = await setUp(t, kind);
    const { db, timers } = await started();
    const fired: unknown[] = [];
    timers.register('x', (payload) => {
      fired.push(payload);
    });
    timers.register('y', (payload) => {
      fired.push(payload);
    });
    timers.schedule('x', clock.now() + HOUR, 'a1', 'owner_a');
    timers.schedule('y', clock.now() + HOUR, 'a2', 'owner_a');
    timers.schedule('x', clock.now() + HOUR, 'b', 'owner_b');
    timers.schedule('x', clock.now() + HOUR, 'none');
    t.is(timers.cancelOwned('owner_a'), 2);
    clock.setOffset(2 * HOUR);
    await timers.runDue();
    t.deepEqual(fired.sort(), ['b', 'none']);
    // SQLite's plan (PostgreSQL picks its plan by the table's statistics).
    if (kind !== 'sqlite') return;
    const plan = db
      .prepare('EXPLAIN QUERY PLAN DELETE FROM timers WHERE owner = ?')
      .all('owner_a') as { detail: string }[];
    t.true(
      plan.some((step) => step.detail.includes('timers_by_owner')),
      JSON.stringify(plan),
    );
  });

  test(`${kind}: a due-now timer of a group commit that was rolled back and re-run fires once`, async (t) => {
    const { started, clock } = await setUp(t, kind);
    const { db, timers } = await started();
    const fired: unknown[] = [];
    timers.register('now', (payload) => {
      fired.push(payload);
    });
    const commits = new CommitQueue(db);
    // Same tick, so one group: the failing change rolls the group back, then each change is run
    // again alone. The first run's timer was rolled back and must not reach the loop.
    const good = commits.run(() => timers.schedule('now', clock.now(), 'once'));
    const bad = commits.run(() => {
      throw new Error('refused');
    });
    await good;
    await t.throwsAsync(bad, { message: 'refused' });
    await timers.runDue();
    await timers.runDue();
    t.deepEqual(fired, ['once']);
    t.is(timers.pending(), 0);
  });

  test(`${kind}: finish() deletes the timer with the handler's transaction; a rolled-back one keeps it for a retry`, async (t) => {
    const { started, clock } = await setUp(t, kind);
    // The retry is 1 s later on the daemon clock: frozen, that holds however slow the store is.
    clock.freeze();
    const { db, timers } = await started();
    const put = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)');
    let calls = 0;
    const seen: number[] = [];
    timers.register('work', (_payload, timer) => {
      calls += 1;
      db.transaction(() => {
        put.run(`work_${calls}`, 'done');
        timer.finish();
        // Inside the transaction, before its commit: still stored.
        seen.push(rows(db).length);
        if (calls === 1) throw new Error('refused');
      })();
    });
    timers.schedule('work', clock.now(), null);
    await timers.runDue();
    t.is(calls, 1);
    const [kept] = rows(db);
    t.is(kept?.attempts, 1, 'the rolled-back finish() left the timer, its attempt recorded');
    clock.setOffset(kept!.due_at - Date.now() + 1);
    await timers.runDue();
    t.is(calls, 2);
    t.deepEqual(seen, [0, 0], 'deleted in the transaction, as it ran');
    t.deepEqual(rows(db), [], 'gone with the commit of the work');
    t.deepEqual(db.prepare("SELECT key FROM settings WHERE key LIKE 'work_%'").pluck().all(), [
      'work_2',
    ]);
  });

  test(`${kind}: a timer that fails every attempt becomes dead, is counted and logged, and stops`, async (t) => {
    const { started, clock, logged } = await setUp(t, kind);
    const { db, timers } = await started();
    let calls = 0;
    timers.register('broken', () => {
      calls += 1;
      throw new Error('always broken');
    });
    timers.schedule('broken', clock.now(), { n: 1 }, 'owner_x');
    await timers.runDue();
    for (let i = 0; i < MAX_TIMER_ATTEMPTS + 3; i++) {
      clock.setOffset(clock.offset + 2 * HOUR);
      await timers.runDue();
    }
    t.is(calls, MAX_TIMER_ATTEMPTS);
    t.is(timers.pending(), 0);
    t.is(timers.dead(), 1);
    const last = logged.at(-1)!;
    t.regex(last.msg, /dead/);
    t.like(last.obj, { kind: 'broken', owner: 'owner_x', attempts: MAX_TIMER_ATTEMPTS });
    const dead = db.prepare('SELECT * FROM dead_timers').get() as { last_error: string };
    t.is(dead.last_error, 'always broken');
  });

  test(`${kind}: runDue right after start, while the first pass settles, still fires what is due`, async (t) => {
    const { open, clock } = await setUp(t, kind);
    const db = open();
    const timers = new TimerService(new TimerRepository(db), clock, { error: () => undefined });
    t.teardown(() => timers.stop());
    const fired: unknown[] = [];
    timers.register('now', (payload) => {
      fired.push(payload);
    });
    timers.start();
    timers.schedule('now', clock.now() + HOUR, 'after the move');
    clock.setOffset(HOUR + 1);
    // The daemon does exactly this when `svc clock advance` lands just after a pass.
    await timers.runDue();
    t.deepEqual(fired, ['after the move']);
  });

  test(`${kind}: a started service fires a due timer by itself`, async (t) => {
    const { started, clock } = await setUp(t, kind);
    const { timers } = await started();
    const fired = new Promise<unknown>((resolve) => timers.register('auto', resolve));
    timers.schedule('auto', clock.now() + 20, 'by itself');
    // Waits for the handler itself (the service's own wake-up, 20 ms on): however late a loaded
    // machine runs it, only a service that never fires it fails (after the hang guard).
    t.is(await unlessHung(fired, 'the due timer fired by itself'), 'by itself');
  });

  test(`${kind}: a handler parked on the daemon clock holds neither runDue nor stop; it finishes later`, async (t) => {
    const { started, clock } = await setUp(t, kind);
    const { timers } = await started();
    let release!: () => void;
    const latency = new Promise<void>((resolve) => (release = resolve));
    const steps: string[] = [];
    timers.register('slow', async (_payload, timer) => {
      steps.push('started');
      await timer.untilDue(latency);
      steps.push('resumed');
    });
    timers.register('quick', () => {
      steps.push('quick');
    });
    timers.schedule('slow', clock.now(), null);
    await timers.runDue();
    t.deepEqual(steps, ['started'], 'runDue answered while the handler is parked');
    t.is(timers.pending(), 1, 'its timer is kept until the handler ends');

    // Another timer still runs while one is parked, and the parked one is not started twice.
    timers.schedule('quick', clock.now(), null);
    await timers.runDue();
    t.deepEqual(steps, ['started', 'quick']);

    release();
    await new Promise<void>((resolve) => setImmediate(resolve));
    await timers.runDue();
    t.deepEqual(steps, ['started', 'quick', 'resumed']);
    t.is(timers.pending(), 0, 'deleted once the handler ended');
  });

  test(`${kind}: stop() does not wait for a parked handler; its timer runs again later`, async (t) => {
    const { open, make, clock } = await setUp(t, kind);
    const db = open();
    const timers = await make(db);
    const never = new Promise<void>(() => undefined);
    let runs = 0;
    timers.register('held', async (_payload, timer) => {
      runs += 1;
      await timer.untilDue(never);
    });
    timers.schedule('held', clock.now(), null);
    await timers.runDue();
    t.is(runs, 1);
    // The handler never ends: a stop() that waited for it would never resolve (the hang guard
    // fails it), whereas a 2 s race also failed a stop() that was only slow on a loaded machine.
    await unlessHung(timers.stop(), 'stop() while a handler is parked');
    // As after a restart: the timer is still there and runs again.
    let ranAgain = 0;
    const again = await make(db, (timers) => timers.register('held', () => void (ranAgain += 1)));
    await again.runDue();
    t.is(ranAgain, 1);
    t.is(again.pending(), 0);
  });
}

test('sqlite: a handler whose work the full disk refuses is not a failed attempt: it runs again on real time, the clock frozen', async (t) => {
  const { started, clock, logged } = await setUp(t, 'sqlite');
  const { db, timers } = await started();
  clock.freeze();
  let calls = 0;
  const done = new Promise<void>((resolve) =>
    timers.register('store', () => {
      calls += 1;
      // What better-sqlite3 throws for a write the full disk cut short.
      if (calls <= 2)
        throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      resolve();
    }),
  );
  const dueAt = clock.now();
  timers.schedule('store', dueAt, { job: 1 });
  await timers.runDue();
  t.is(calls, 1);
  // Kept as it was (nothing could be written), not counted, due now: not pushed to a later time
  // on the frozen daemon clock, which would never come without a clock move.
  t.like(rows(db)[0], { attempts: 0, last_error: null, due_at: dueAt });
  t.is(logged.length, 1, 'said once');
  t.regex(logged[0]!.msg, /disk is full/);
  // No clock move: the service tries again by itself after a real-time pause (1 s, then 2 s).
  await unlessHung(done, 'the handler run again after the full disk');
  t.is(calls, 3);
  await timers.runDue();
  t.deepEqual(rows(db), [], 'deleted once its work was stored');
  t.is(timers.dead(), 0);
  t.is(logged.length, 1);
});
