// What an unfinished run still has to do right now, read from its stored frontier and the steps
// in flight here: `svc settle` waits until no run is busy, and names the steps of those that are.
import type { InFlight } from './in-flight.js';
import type { RunRepository } from './run.repository.js';
import { readRunState } from '../store/run-state.js';

export interface PendingStep {
  step_id: string;
  /**
   * running: in flight (or about to start); held: in flight but waiting for a later time on the
   * daemon clock (an injected latency); the others as in the run's frontier.
   */
  state: 'running' | 'held' | 'waiting' | 'retrying' | 'awaiting_approval';
  /** When a waiting or retrying step wakes up (daemon clock, epoch ms). */
  wake_at: number | null;
}

export interface RunActivity {
  execution_id: string;
  /** A step runs, or one's wake-up is due: the run moves on without anyone moving the clock. */
  busy: boolean;
  steps: PendingStep[];
}

/** One unfinished run's activity (undefined once it has ended). */
export function runActivityOf(
  repo: Pick<RunRepository, 'get'>,
  inFlight: Pick<InFlight, 'heldOnClock'>,
  id: string,
  now: number,
): RunActivity | undefined {
  const row = repo.get(id);
  if (!row || (row.status !== 'running' && row.status !== 'awaiting_approval')) return undefined;
  return activityOfRow(inFlight, id, row.frontier, now);
}

export function runActivity(
  repo: Pick<RunRepository, 'unfinishedIds' | 'get'>,
  inFlight: Pick<InFlight, 'heldOnClock'>,
  now: number,
): RunActivity[] {
  const runs: RunActivity[] = [];
  for (const id of repo.unfinishedIds()) {
    const row = repo.get(id);
    if (!row) continue;
    runs.push(activityOfRow(inFlight, id, row.frontier, now));
  }
  return runs;
}

function activityOfRow(
  inFlight: Pick<InFlight, 'heldOnClock'>,
  id: string,
  frontier: string,
  now: number,
): RunActivity {
  let busy = false;
  const steps = readRunState(frontier, id).acts.map((act): PendingStep => {
    if (act.state === 'ready') {
      const held = inFlight.heldOnClock(id, act.key);
      busy ||= !held;
      return { step_id: act.step_id, state: held ? 'held' : 'running', wake_at: null };
    }
    const wakeAt = act.wake_at ?? null;
    if (act.state !== 'awaiting_approval' && wakeAt !== null && wakeAt <= now) busy = true;
    return { step_id: act.step_id, state: act.state, wake_at: wakeAt };
  });
  return { execution_id: id, busy, steps };
}
