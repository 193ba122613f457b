// The frozen sandbox clock: OffsetClock stands still while frozen, ClockService moves it only on
// advance and set (through every due time on the way, exactly), persists it and restores it.
import test from 'ava';
import { setTimeout as delay } from 'node:timers/promises';
import { OffsetClock } from '../../daemon/time/clock.js';
import { Hooks } from '../../daemon/domain/hooks.js';
import { ClockService, loadClock } from '../../daemon/time/clock.service.js';
import type { SettingsRepository } from '../../daemon/store/settings.repository.js';

const HOUR = 3_600_000;

function memorySettings(): SettingsRepository & { full: boolean } {
  const values = new Map<string, string>();
  const settings = {
    /** Set: every write is refused as a full disk refuses it (SQLITE_FULL). */
    full: false,
    get: (key: string) => values.get(key),
    write(entries: Record<string, string | null>) {
      if (settings.full) {
        throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      }
      for (const [key, value] of Object.entries(entries)) {
        if (value === null) values.delete(key);
        else values.set(key, value);
      }
    },
  };
  return settings as unknown as SettingsRepository & { full: boolean };
}

/** A sandbox ClockService whose agenda has the due times `due` (sorted), fired by `runDue`. */
function serviceDueAt(clock: OffsetClock, due: number[], runDue: () => Promise<void>) {
  return new ClockService({
    clock,
    settings: memorySettings(),
    environment: 'sandbox',
    agenda: { nextDueAfter: (time) => due.find((at) => at > time), runDue },
  });
}

test('a frozen OffsetClock stands still; shift moves it; resume ticks from there', async (t) => {
  const clock = new OffsetClock(HOUR);
  clock.freeze();
  const at = clock.now();
  await delay(20);
  t.is(clock.now(), at);
  clock.shift(1000);
  t.is(clock.now(), at + 1000);
  clock.setOffset(2 * HOUR);
  t.true(clock.frozen, 'setOffset keeps it frozen');
  t.true(Math.abs(clock.now() - (Date.now() + 2 * HOUR)) < 50);
  const frozenAt = clock.now();
  clock.resume();
  t.false(clock.frozen);
  await delay(20);
  t.true(clock.now() >= frozenAt + 15, 'ticking again from the frozen instant');
});

test('advance on a frozen clock goes through each due time and lands exactly', async (t) => {
  const clock = new OffsetClock();
  clock.freeze(Date.parse('2026-01-05T09:00:00Z'));
  const start = clock.now();
  const due = [start + 10 * 60_000, start + 20 * 60_000];
  const seen: number[] = [];
  const service = serviceDueAt(clock, due, async () => {
    seen.push(clock.now());
    await delay(15); // real time passing while due work runs does not move a frozen clock
  });
  const state = await service.advance(HOUR);
  t.deepEqual(seen, due, 'stopped at each due time, in order');
  t.is(state.now, '2026-01-05T10:00:00.000Z');
  t.true(state.frozen);
});

test('advance on a ticking clock: what fell due while a due time was worked on fires before the next jump', async (t) => {
  // Found by CI under Node 26: a run's wait ending 40 ms of real time after another run's fired
  // with that run's deadline, after the next jump, so the run timed out in the wait.
  const clock = new OffsetClock();
  const start = clock.now();
  const due = [start + 10 * 60_000, start + 10 * 60_000 + 40, start + 20 * 60_000];
  const done = new Set<number>();
  const passes: number[][] = [];
  const service = serviceDueAt(clock, due, async () => {
    const now = clock.now();
    const fired = due.filter((at) => at <= now && !done.has(at));
    for (const at of fired) done.add(at);
    passes.push(fired);
    await delay(80); // the work takes longer than the gap to the next due time
  });
  await service.advance(HOUR);
  t.deepEqual(
    passes.filter((fired) => fired.length > 0),
    due.map((at) => [at]),
    'each due time fired in a pass of its own, in order',
  );
});

test('freeze, set and resume persist; load restores a frozen clock', async (t) => {
  const settings = memorySettings();
  const service = new ClockService({ clock: new OffsetClock(), settings, environment: 'sandbox' });
  service.freeze();
  await service.set(Date.parse('2030-01-01T00:00:00Z'));
  const restored = new OffsetClock();
  loadClock(restored, settings, 'sandbox');
  t.true(restored.frozen);
  t.is(restored.iso(), '2030-01-01T00:00:00.000Z');

  const ticking = await service.set(Date.parse('2030-06-01T00:00:00Z'), false);
  t.false(ticking.frozen);
  const again = new OffsetClock();
  loadClock(again, settings, 'sandbox');
  t.false(again.frozen);
  t.true(Math.abs(again.now() - Date.parse('2030-06-01T00:00:00Z')) < 1000);

  await service.set(Date.parse('2030-07-01T00:00:00Z'), true);
  const reset = await service.reset();
  t.false(reset.frozen);
  t.is(reset.offset_ms, 0);
});

test('production refuses to freeze the clock', (t) => {
  const service = new ClockService({
    clock: new OffsetClock(),
    settings: memorySettings(),
    environment: 'production',
  });
  const error = t.throws(() => service.freeze());
  t.regex(error.message, /only be moved in the sandbox/);
});

test('a move the store refuses changes nothing: the clock stays where the last stored step left it', async (t) => {
  const clock = new OffsetClock();
  const settings = memorySettings();
  clock.freeze(Date.parse('2026-01-05T09:00:00Z'));
  const start = clock.now();
  const due = [start + 10 * 60_000, start + 20 * 60_000];
  const seen: number[] = [];
  let moved = 0;
  const hooks = new Hooks();
  hooks.add('clockMoved', () => void (moved += 1));
  const service = new ClockService({
    clock,
    settings,
    environment: 'sandbox',
    hooks,
    agenda: {
      nextDueAfter: (time) => due.find((at) => at > time),
      runDue: () => {
        seen.push(clock.now());
        return Promise.resolve();
      },
    },
  });

  settings.full = true;
  await t.throwsAsync(service.advance(HOUR), { message: 'database or disk is full' });
  t.is(clock.now(), start, 'not moved, not even to the first due time');
  t.deepEqual(seen, [], 'nothing became due');
  t.throws(() => service.freeze(), { message: 'database or disk is full' });
  await t.throwsAsync(service.set(start + HOUR));
  await t.throwsAsync(service.reset());
  t.is(clock.now(), start);
  t.true(clock.frozen);
  t.is(moved, 0);

  // Space comes back after the first step was stored: the move stops at the step it reached.
  settings.full = false;
  const advancing = service.advance(HOUR);
  settings.full = true;
  await t.throwsAsync(advancing);
  t.deepEqual(seen, [due[0]]);
  t.is(clock.now(), due[0]!, 'where the last stored step left it');
  const restored = new OffsetClock();
  loadClock(restored, settings, 'sandbox');
  t.is(restored.now(), due[0]!, 'as stored');
});
