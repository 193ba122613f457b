// Durations as the CLI takes them (decisions 10) and scopes (only admin implies the others).
import test from 'ava';
import { formatDuration, parseDuration } from '../../shared/duration.js';
import { hasScope, isScope, parseScopes, SCOPES, type Scope } from '../../shared/scopes.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

test('short durations', (t) => {
  t.is(parseDuration('30s'), 30 * S);
  t.is(parseDuration('5m'), 5 * M);
  t.is(parseDuration('1h'), H);
  t.is(parseDuration('2d'), 2 * D);
  t.is(parseDuration('1w'), 7 * D);
  t.is(parseDuration('90d'), 90 * D);
  t.is(parseDuration('250ms'), 250);
  t.is(parseDuration('1.5h'), 90 * M);
  t.is(parseDuration('0s'), 0);
  t.is(parseDuration(' 5m '), 5 * M, 'surrounding spaces are ignored');
});

test('ISO 8601 durations', (t) => {
  t.is(parseDuration('PT1H'), H);
  t.is(parseDuration('PT30S'), 30 * S);
  t.is(parseDuration('PT5M'), 5 * M);
  t.is(parseDuration('P1D'), D);
  t.is(parseDuration('P1DT2H'), D + 2 * H);
  t.is(parseDuration('P2W'), 14 * D);
  t.is(parseDuration('PT1H30M15S'), H + 30 * M + 15 * S);
  t.is(parseDuration('pt1h'), H, 'case-insensitive');
  t.is(parseDuration('PT0.5S'), 500);
});

test('bad durations are null', (t) => {
  for (const text of [
    '',
    ' ',
    'abc',
    '5',
    '-5m',
    '5x',
    '5 m',
    'm5',
    '1h30m',
    'P',
    'PT',
    'P1DT',
    'T1H',
    'PT1D',
    'P1H',
    '1e3s',
    'NaNs',
  ]) {
    t.is(parseDuration(text), null, JSON.stringify(text));
  }
});

test('formatDuration gives a short human form', (t) => {
  t.is(formatDuration(30 * S), '30s');
  t.is(formatDuration(5 * M), '5m');
  t.is(formatDuration(H + 5 * M), '1h 5m');
  t.is(formatDuration(2 * D), '2d');
  t.is(formatDuration(D + 2 * H + 3 * M + 4 * S), '1d 2h 3m 4s');
  t.is(formatDuration(7 * D), '7d');
  t.is(formatDuration(250), '250ms');
  t.is(formatDuration(0), '0ms');
  t.is(formatDuration(-90 * S), '-1m 30s');
});

test('format and parse agree on whole units', (t) => {
  for (const ms of [S, 30 * S, M, 45 * M, H, 23 * H, D, 30 * D]) {
    t.is(parseDuration(formatDuration(ms)), ms);
  }
});

test('parseScopes splits on spaces and commas, drops duplicates, returns unknown words', (t) => {
  t.deepEqual(parseScopes('agents:read agents:write'), {
    scopes: ['agents:read', 'agents:write'],
    unknown: [],
  });
  t.deepEqual(parseScopes(' webhooks:read,  webhooks:write ,webhooks:read '), {
    scopes: ['webhooks:read', 'webhooks:write'],
    unknown: [],
  });
  t.deepEqual(parseScopes('admin agents:fly Agents:read'), {
    scopes: ['admin'],
    unknown: ['agents:fly', 'Agents:read'],
  });
  t.deepEqual(parseScopes(''), { scopes: [], unknown: [] });
  t.deepEqual(parseScopes(SCOPES.join(' ')).scopes, [...SCOPES]);
});

test('isScope knows exactly the spec scopes', (t) => {
  t.is(SCOPES.length, 11);
  for (const scope of SCOPES) t.true(isScope(scope));
  for (const word of ['agents', 'agents:*', '*', 'read', 'ADMIN', 'executions:read']) {
    t.false(isScope(word), word);
  }
});

test('admin implies every scope', (t) => {
  const admin = new Set<Scope>(['admin']);
  for (const scope of SCOPES) t.true(hasScope(admin, scope), scope);
});

test('other scopes are independent: each grants exactly itself', (t) => {
  for (const granted of SCOPES) {
    if (granted === 'admin') continue;
    const set = new Set<Scope>([granted]);
    for (const needed of SCOPES) {
      t.is(hasScope(set, needed), needed === granted, `${granted} -> ${needed}`);
    }
  }
  // write does not imply read, execute does not imply write, all-but-admin is not admin.
  t.false(hasScope(new Set<Scope>(['agents:write']), 'agents:read'));
  t.false(hasScope(new Set<Scope>(['workflows:execute']), 'workflows:write'));
  const everything = new Set<Scope>(SCOPES.filter((scope) => scope !== 'admin'));
  t.false(hasScope(everything, 'admin'));
  t.false(hasScope(new Set<Scope>(), 'agents:read'));
});
