// A run's durable timers (rows on the daemon clock, owned by the run, so they survive a
// restart): the wake-up of a wait or of a retry's backoff, and the run's timeout, stored once the
// run first parks. They only wake work up: the frontier stays the run's state.
import type { TimerService } from '../time/timer.service.js';
import type { Transition } from './transition.js';
import type { Activation } from './views.js';

const WAKE_TIMER = 'workflow.wake';
const TIMEOUT_TIMER = 'workflow.timeout';

/** What the timers set going: the engine's transitions. */
export interface RunTimerHandlers {
  /** A wait ended, or a retry is due. */
  wake(executionId: string, key: string): Promise<void>;
  /** The run's deadline has come. */
  timeOut(executionId: string): Promise<void>;
}

export class RunTimers {
  constructor(private readonly timers: TimerService) {}

  register(handlers: RunTimerHandlers): void {
    this.timers.register(WAKE_TIMER, (payload) => {
      const { execution_id, key } = payload as { execution_id: string; key: string };
      return handlers.wake(execution_id, key);
    });
    this.timers.register(TIMEOUT_TIMER, (payload) =>
      handlers.timeOut((payload as { execution_id: string }).execution_id),
    );
  }

  /** A waiting or retrying activation gets a durable timer; the run, its timeout timer. */
  park(t: Transition, act: Activation): void {
    this.timers.schedule(
      WAKE_TIMER,
      act.wake_at!,
      { execution_id: t.row.id, key: act.key },
      t.row.id,
    );
    this.armTimeout(t);
  }

  /** The run's timeout timer, stored once (a run that never parks has an alarm instead). */
  armTimeout(t: Transition): void {
    if (t.state.armed) return;
    t.state.armed = true;
    this.timers.schedule(TIMEOUT_TIMER, t.row.deadline_at, { execution_id: t.row.id }, t.row.id);
  }

  /** The run ended: its timers go. Only a run that parked (a wait, a retry, an approval) had any. */
  cancel(t: Transition): void {
    if (t.state.armed) this.timers.cancelOwned(t.row.id);
  }
}
