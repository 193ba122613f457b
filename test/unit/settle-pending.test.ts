// What svc settle waits for and how its timeout names it: busy runs with their steps, deliveries
// and other due timers; parked work (a future wake-up, an approval) does not hold it.
import test from 'ava';
import { describePending, pending, settle, type SettleDeps } from '../../daemon/control/settle.js';
import type { RunActivity } from '../../daemon/engine/engine.js';
import type { DueTimer } from '../../daemon/time/timer.service.js';
import { StillClock } from '../helpers/still-clock.js';

const NOW = Date.parse('2026-01-05T09:00:00Z');

function deps(runs: RunActivity[], timers: DueTimer[]): SettleDeps {
  return {
    engine: { activity: () => runs },
    timers: { dueNow: (limit) => timers.slice(0, limit) },
    clock: new StillClock(NOW),
  };
}

const parked: RunActivity = {
  execution_id: 'wex_parked',
  busy: false,
  steps: [{ step_id: 'pause', state: 'waiting', wake_at: NOW + 60_000 }],
};
const busy: RunActivity = {
  execution_id: 'wex_busy',
  busy: true,
  steps: [
    { step_id: 'call', state: 'running', wake_at: null },
    { step_id: 'later', state: 'retrying', wake_at: NOW + 1000 },
  ],
};
const delivery: DueTimer = {
  id: 'tmr_1',
  kind: 'webhook.delivery',
  owner: 'del_1',
  due_at: NOW,
  running: true,
};

test('settled at once when runs are only parked on a later time', async (t) => {
  // Resolving at all is the point: a run parked on a later time counted as pending would keep
  // settle waiting until its timeout (60 s, far past any load) and it would throw.
  const answer = await settle(deps([parked], []), 60_000);
  t.log(`settled after ${answer.waited_ms} ms`);
  t.deepEqual(pending(deps([parked], [])), { runs: [], timers: [] });
});

test('the timeout names runs with their steps, deliveries and timers', async (t) => {
  const wake: DueTimer = { ...delivery, id: 'tmr_2', kind: 'workflow.wake', owner: 'wex_busy' };
  const agent: DueTimer = {
    id: 'tmr_3',
    kind: 'agent.execution',
    owner: null,
    due_at: NOW - 5,
    running: false,
  };
  const error = await t.throwsAsync(settle(deps([busy, parked], [delivery, wake, agent]), 30));
  t.is((error as { code?: string }).code, 'wait_timeout');
  t.is(
    error.message.split('. A step')[0],
    'Not settled after 30ms; still pending: run wex_busy (step call running, step later retrying until 2026-01-05T09:00:01.000Z); delivery del_1 (attempt in flight); timer agent.execution (due at 2026-01-05T08:59:59.995Z)',
  );
});

test('a long list is cut with a count', (t) => {
  const timers = Array.from({ length: 15 }, (_, i) => ({ ...delivery, owner: `del_${i}` }));
  t.regex(describePending({ runs: [], timers }, NOW), /del_11 \(attempt in flight\); and 3 more$/);
});
