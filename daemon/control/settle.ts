// svc settle (and the testing kit's sb.settle()): waits until the daemon has nothing left to do
// at the current sandbox time: no step in flight, no delivery attempt in flight, no timer due.
// Work parked on a later time (a wait, a retry's backoff, an injected latency) does not count:
// only a clock move ends it. On timeout, the error names what was still pending.
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { formatDuration } from '../../shared/duration.js';
import { ApiError } from '../domain/errors.js';
import type { RunActivity } from '../engine/engine.js';
import { toIso, type Clock } from '../time/clock.js';
import type { DueTimer } from '../time/timer.service.js';
import { DELIVERY_TIMER } from '../webhooks/deliveries/delivery.service.js';

export interface SettleDeps {
  engine: { activity(now: number): RunActivity[] };
  timers: { dueNow(limit: number): DueTimer[] };
  clock: Clock;
}

/** What is still to be done now: busy runs (with all their pending steps) and due timers. */
export interface Pending {
  runs: RunActivity[];
  timers: DueTimer[];
}

/** Real time between two looks: settling is a wait on work in flight, not on the clock. */
const LOOK_EVERY_MS = 10;
/** Quiet looks in a row that count as settled (a commit may be about to start a step). */
const QUIET_LOOKS = 2;
/** Due timers read per look (a message names a few; more would only cost). */
const TIMERS_READ = 50;
/** Items a timeout message names before "and N more". */
const NAMED = 12;

export function pending({ engine, timers, clock }: SettleDeps): Pending {
  const now = clock.now();
  return {
    runs: engine.activity(now).filter((run) => run.busy),
    timers: timers.dueNow(TIMERS_READ),
  };
}

/** Resolves once settled; rejects with wait_timeout after `timeoutMs` of real time. */
export async function settle(deps: SettleDeps, timeoutMs: number): Promise<{ waited_ms: number }> {
  const started = performance.now();
  let quiet = 0;
  for (;;) {
    // What a commit just made ready starts in a microtask or an immediate: let it.
    await new Promise((resolve) => setImmediate(resolve));
    const left = pending(deps);
    const waited = performance.now() - started;
    if (left.runs.length === 0 && left.timers.length === 0) {
      if (++quiet >= QUIET_LOOKS) return { waited_ms: Math.round(waited) };
    } else {
      quiet = 0;
      if (waited >= timeoutMs) {
        throw new ApiError(
          'wait_timeout',
          `Not settled after ${formatDuration(timeoutMs)}; still pending: ${describePending(left, deps.clock.now())}. A step or delivery in flight waits for its receiver (at most the step's or webhook's timeout); wait longer (a larger timeout) or look at what is named.`,
        );
      }
    }
    await delay(Math.min(LOOK_EVERY_MS, Math.max(1, timeoutMs - waited)));
  }
}

/** One line naming what is pending: runs with their steps, deliveries, other due timers. */
export function describePending({ runs, timers }: Pending, now: number): string {
  const named = new Set(runs.map((run) => run.execution_id));
  const items = [
    ...runs.map(
      (run) =>
        `run ${run.execution_id} (${run.steps.map((step) => `step ${step.step_id} ${stepState(step, now)}`).join(', ')})`,
    ),
    ...timers
      // A due wake-up of a run named above is one of its steps already.
      .filter((timer) => !(timer.owner !== null && named.has(timer.owner)))
      .map((timer) =>
        timer.kind === DELIVERY_TIMER
          ? `delivery ${timer.owner} (attempt ${timer.running ? 'in flight' : `due at ${toIso(timer.due_at)}`})`
          : `timer ${timer.kind}${timer.owner ? ` of ${timer.owner}` : ''} (${timer.running ? 'running' : `due at ${toIso(timer.due_at)}`})`,
      ),
  ];
  const more = items.length - NAMED;
  return items.slice(0, NAMED).join('; ') + (more > 0 ? `; and ${more} more` : '');
}

function stepState(step: RunActivity['steps'][number], now: number): string {
  if (step.state === 'running') return 'running';
  if (step.state === 'held') return 'held by an injected latency until a clock move';
  if (step.state === 'awaiting_approval') return 'awaiting approval';
  if (step.wake_at === null) return step.state;
  return step.wake_at <= now
    ? `${step.state}, wake-up due at ${toIso(step.wake_at)}`
    : `${step.state} until ${toIso(step.wake_at)}`;
}
