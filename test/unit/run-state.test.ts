// A run's stored state (store/run-state.ts): versioned, validated, upgraded step by step on
// read, always written at the current version; a newer or damaged state is a clear error.
import test from 'ava';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import {
  readRunState,
  RUN_STATE_PREFIX,
  RUN_STATE_VERSION,
  UnreadableRunState,
  writeRunState,
  type RunState,
} from '../../daemon/store/run-state.js';
import { STORE_FIXTURES, storeFixtureReleases } from '../helpers/store-fixture.js';

/** A version-1 state as svc wrote it before states had a version (a retry of a webhook step). */
const V1 = {
  n: 1,
  seq: 1,
  acts: [
    {
      key: 'call#0',
      step_id: 'call',
      attempt: 2,
      branch: null,
      state: 'retrying',
      started_at: 1767603600000,
      real_started_at: 1795923720178,
      wake_at: 1767603601000,
    },
  ],
  joins: [],
  last_seq: null,
  armed: true,
};

const unreadable = (frontier: string) => {
  try {
    readRunState(frontier, 'wex_1');
  } catch (error) {
    if (error instanceof UnreadableRunState) return error;
    throw error;
  }
  throw new Error(`read: ${frontier}`);
};

test('a version-1 state (no v) reads as the current version: its fields kept, interpolated 0', (t) => {
  const state = readRunState(JSON.stringify(V1), 'wex_1');
  t.deepEqual(state, { ...V1, interpolated: 0 } as RunState);
  t.false('v' in state, 'the engine never sees the version');
  // A count a version-1 state had is kept.
  t.is(readRunState(JSON.stringify({ ...V1, interpolated: 52 })).interpolated, 52);
});

test('a version-1 state with a key no release read keeps the rest; the current version refuses one', (t) => {
  t.deepEqual(readRunState(JSON.stringify({ ...V1, stale: true })), { ...V1, interpolated: 0 });
  const error = unreadable(JSON.stringify({ v: 2, ...V1, interpolated: 0, stale: true }));
  t.is(error.reason, 'damaged');
  t.regex(error.message, /^Run wex_1's stored state cannot be read: version 2 does not allow it/);
});

test('writing stores the current version first; reading it back gives the same state', (t) => {
  const state = readRunState(JSON.stringify(V1));
  const text = writeRunState(state);
  t.true(text.startsWith(`{"v":${RUN_STATE_VERSION},`), text);
  // The prefix the daemon's start-up check skips states by (engine.ts checkStoredStates).
  t.is(RUN_STATE_PREFIX, `{"v":${RUN_STATE_VERSION},`);
  t.deepEqual(readRunState(text), state);
  t.is(RUN_STATE_VERSION, 2);
});

test('a state from a newer svc is a conflict naming the run and both versions', (t) => {
  const error = unreadable(JSON.stringify({ v: 3, whatever: 'shape' }));
  t.is(error.reason, 'newer');
  t.is(error.code, 'conflict');
  t.is(error.status, 409);
  t.is(
    error.message,
    "Run wex_1's stored state is version 3: a newer svc wrote it, and this svc reads run states up to version 2. Open this sandbox with that newer svc (or a later one).",
  );
});

test('a damaged state says what is wrong and where, never reads as garbage', (t) => {
  const cases: [string, RegExp][] = [
    ['{"n":', /it is not JSON/],
    ['[]', /its version \(v\) is undefined/],
    ['{"v":"2"}', /its version \(v\) is "2"/],
    ['{"v":0}', /its version \(v\) is 0/],
    ['{"v":1.5}', /its version \(v\) is 1.5/],
    [JSON.stringify({ ...V1, acts: undefined }), /version 1 does not allow it at acts: /],
    [
      JSON.stringify({ ...V1, acts: [{ ...V1.acts[0], state: 'sleeping' }] }),
      /version 1 does not allow it at acts\.0\.state: /,
    ],
    [
      JSON.stringify({ v: 2, ...V1 }),
      /version 2 does not allow it at interpolated: /, // version 2 always has the count
    ],
  ];
  for (const [frontier, expected] of cases) {
    const error = unreadable(frontier);
    t.is(error.reason, 'damaged', frontier);
    t.is(error.code, 'internal_server_error');
    t.regex(error.message, expected, frontier);
    t.regex(error.message, /restore it from a snapshot \(svc state import\)\.$/);
  }
});

test('a state the engine got wrong is never stored', (t) => {
  const state = readRunState(JSON.stringify(V1));
  const broken = { ...state, acts: [{ ...state.acts[0]!, attempt: 0 }] };
  t.throws(() => writeRunState(broken), {
    message: /^Refusing to store a run state that does not fit version 2 at acts\.0\.attempt: /,
  });
});

test('every run state of every kept release reads as the current version', (t) => {
  let read = 0;
  for (const release of storeFixtureReleases()) {
    const db = new Database(join(STORE_FIXTURES, release, 'data', 'svc.db'), { readonly: true });
    try {
      for (const row of db
        .prepare<[], { id: string; frontier: string }>(
          'SELECT id, frontier FROM workflow_executions',
        )
        .all()) {
        const state = readRunState(row.frontier, row.id);
        t.deepEqual(readRunState(writeRunState(state), row.id), state);
        read += 1;
      }
    } finally {
      db.close();
    }
  }
  t.true(read >= 5, `${read} states read`);
});
