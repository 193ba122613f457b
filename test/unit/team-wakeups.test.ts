// Team mode's wake-ups across daemons (issue 54): a timer one daemon stores for later is told to
// the others (a notice sent with the transaction's commit), whose real-time wake-ups then know
// it: it runs on time on whichever daemon claims it, even when the daemon that stored it never
// looks again (busy, or dead before it fell due). On one PostgreSQL sandbox opened twice.
import test from 'ava';
import type { Db } from '../../daemon/store/db.js';
import { TeamNotices } from '../../daemon/store/team-notices.js';
import { OffsetClock } from '../../daemon/time/clock.js';
import { TimerRepository } from '../../daemon/time/timer.repository.js';
import { TimerService } from '../../daemon/time/timer.service.js';
import { storeOpener } from '../helpers/postgres.js';

const silent = { error: () => undefined };

async function twoHandles(t: import('ava').ExecutionContext): Promise<[Db, Db]> {
  const open = await storeOpener('postgres');
  const handles: [Db, Db] = [open(), open()];
  t.teardown(() => {
    for (const db of handles) if (db.open) db.close();
  });
  return handles;
}

/** A daemon's timer service on `db`, named `name`, with its notices; what its handler ran. */
function daemon(db: Db, name: string, clock: OffsetClock) {
  const ran: string[] = [];
  let heard: (payload: string) => void = () => undefined;
  const timers = new TimerService(
    new TimerRepository(db, name),
    clock,
    silent,
    new TeamNotices(db.notifications),
  );
  timers.register('job', (payload) => {
    ran.push(String(payload));
    heard(String(payload));
  });
  const next = () => new Promise<string>((resolve) => (heard = resolve));
  return { timers, ran, next };
}

test('postgres: a timer stored for later by B runs on A when it falls due, though B never looks again', async (t) => {
  const [dbA, dbB] = await twoHandles(t);
  const clock = new OffsetClock();
  const a = daemon(dbA, 'dmn_a', clock);
  const b = daemon(dbB, 'dmn_b', clock);
  // A runs, with nothing due: its wake-up is set for no timer at all (it would look again only
  // after its longest sleep, a minute). B's loop is off: it stores, and does nothing more.
  a.timers.start();
  t.teardown(() => a.timers.stop());
  await a.timers.runDue();
  const ranOnA = a.next();
  // Stored in a transaction of B's, due 50 ms from now on the sandbox clock.
  dbB.transaction(() => b.timers.schedule('job', clock.now() + 50, 'from-b'))();

  t.is(await ranOnA, 'from-b');
  t.deepEqual(a.ran, ['from-b']);
  t.deepEqual(b.ran, []);
  await a.timers.runDue();
  t.is(a.timers.pending(), 0, 'done and deleted');
});

test('postgres: a timer stored in a transaction that rolls back never runs; the next one stored does', async (t) => {
  const [dbA, dbB] = await twoHandles(t);
  const clock = new OffsetClock();
  const a = daemon(dbA, 'dmn_a', clock);
  const b = daemon(dbB, 'dmn_b', clock);
  a.timers.start();
  t.teardown(() => a.timers.stop());
  await a.timers.runDue();
  const ranOnA = a.next();
  t.throws(
    () =>
      dbB.transaction(() => {
        b.timers.schedule('job', clock.now(), 'rolled-back');
        throw new Error('the caller failed');
      })(),
    { message: 'the caller failed' },
  );
  // Then one that commits: A hears only that one (notices arrive in commit order).
  dbB.transaction(() => b.timers.schedule('job', clock.now() + 20, 'committed'))();
  t.is(await ranOnA, 'committed');
  t.deepEqual(a.ran, ['committed']);
});
