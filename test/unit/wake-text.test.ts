// How the CLI says when a wait ends and which `svc clock advance` skips there (cli/wake-text.ts).
import test from 'ava';
import { parseDuration } from '../../shared/duration.js';
import {
  advanceArgument,
  clockTime,
  sandboxNow,
  skipCommand,
  whenText,
} from '../../cli/wake-text.js';

const NINE = Date.parse('2026-01-05T09:00:00.000Z');

test('the time, how far off it is in words, and the command that skips there', (t) => {
  const at = '2026-01-05T09:15:00.000Z';
  t.is(clockTime(at), '2026-01-05 09:15:00');
  t.is(whenText(at, NINE), '2026-01-05 09:15:00 (in 15m, sandbox clock)');
  t.is(skipCommand(at, NINE), 'svc clock advance 15m');
  // Ticking clock: part of a second already gone still rounds up to the whole wait.
  t.is(whenText(at, NINE + 400), '2026-01-05 09:15:00 (in 15m, sandbox clock)');
  t.is(
    whenText('2026-01-06T10:00:01.000Z', NINE),
    '2026-01-06 10:00:01 (in 1d 1h 0m 1s, sandbox clock)',
  );
});

test('a wake-up that is due (or past) says so and needs no advance', (t) => {
  t.is(whenText('2026-01-05T08:59:00.000Z', NINE), '2026-01-05 08:59:00 (due now, sandbox clock)');
  t.is(skipCommand('2026-01-05T09:00:00.000Z', NINE), undefined);
});

test('without the daemon clock: the time alone, no command', (t) => {
  t.is(whenText('2026-01-05T09:15:00.000Z', undefined), '2026-01-05 09:15:00 (sandbox clock)');
  t.is(skipCommand('2026-01-05T09:15:00.000Z', undefined), undefined);
});

test('the advance argument is exact in the largest unit, and svc clock advance reads it back', (t) => {
  const cases: [number, string][] = [
    [900_000, '15m'],
    [3_600_000, '1h'],
    [86_400_000, '1d'],
    [90_000, '90s'],
    [1_000, '1s'],
    [1, '1s'],
    [7_200_500, '7201s'],
  ];
  for (const [ms, text] of cases) {
    t.is(advanceArgument(ms), text, `${ms} ms`);
    t.true(parseDuration(text)! >= ms, `${text} reaches ${ms} ms`);
  }
});

test('the sandbox clock now: the frozen instant, or real time plus the offset', (t) => {
  const frozen = {
    now: '2026-01-05T09:00:00.000Z',
    offset_ms: 5_000,
    real_now: '2026-01-05T08:59:55.000Z',
    frozen: true,
  };
  t.is(sandboxNow(frozen, 123), NINE);
  t.is(sandboxNow({ ...frozen, frozen: false }, NINE), NINE + 5_000);
});
