// The one human form of durations and clock offsets (shared/duration.ts), as issue 41 asks:
// 24h 0m 1s, not 1440m01s; avg 4h 0m 1s, not 14400.622 s; offset +1h, not 3600000 ms.
import test from 'ava';
import { formatDuration, formatOffset } from '../../shared/duration.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

test('under a minute, a duration keeps its fraction', (t) => {
  t.is(formatDuration(449), '449ms');
  t.is(formatDuration(0.4), '0ms');
  t.is(formatDuration(2_350), '2.35s');
  t.is(formatDuration(12_345), '12.3s');
  t.is(formatDuration(30 * S), '30s');
  t.is(formatDuration(59_960), '1m', 'rounds up to the next unit, never 60.0s');
});

test('from a minute on, whole units with the zeros between them', (t) => {
  t.is(formatDuration(23 * H + 60 * M + S), '1d 0h 0m 1s');
  t.is(formatDuration(4 * H + S), '4h 0m 1s');
  t.is(formatDuration(14_400_622), '4h 0m 1s', 'an average of 14400.622 s');
  t.is(formatDuration(4 * H), '4h');
  t.is(formatDuration(90 * S + 400), '1m 30s');
  t.is(formatDuration(D + 2 * H), '1d 2h');
  t.is(formatDuration(-(H + 30 * S)), '-1h 0m 30s');
});

test('a clock offset carries its sign', (t) => {
  t.is(formatOffset(H), '+1h');
  t.is(formatOffset(-30 * M), '-30m');
  t.is(formatOffset(0), '0ms');
  t.is(formatOffset(D + S), '+1d 0h 0m 1s');
});
