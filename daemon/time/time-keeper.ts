// Where the daemon's time drives its work, in one place: what falls due on the daemon clock
// (durable timers, then in-memory alarms) fires on a real-time wake-up or when the sandbox clock
// is moved; a move goes through every due time on its way, one after the other, and then runs
// housekeeping (retention), so `svc clock advance 31d` purges at once.
import type { Alarms } from './alarms.js';
import type { Agenda } from './clock.service.js';
import type { TimerService } from './timer.service.js';

export interface TimeKeeping {
  timers: TimerService;
  alarms: Alarms;
  /** Waits for the work that due times set going to settle (the engine's runs). */
  settle(): Promise<void>;
}

/**
 * What falls due on the daemon clock, for a clock move to go through (ClockService's agenda),
 * and the one way to fire it. A move then runs housekeeping (app/reactions.ts, clockMoved).
 */
export function timeAgenda({ timers, alarms, settle }: TimeKeeping): Agenda {
  return {
    nextDueAfter: (time) => {
      const dueTimes = [timers.nextDueAfter(time), alarms.nextDueAfter(time)];
      const known = dueTimes.filter((due): due is number => due !== undefined);
      return known.length ? Math.min(...known) : undefined;
    },
    /** Fires what is due now, then lets the work it resumed go as far as it can. */
    runDue: async () => {
      await timers.runDue();
      // After the timers: a run whose timeout fell due answers its waiting request first.
      alarms.check();
      // An alarm may have resumed a timer handler parked on the daemon clock (an injected
      // latency): once its continuation has run, wait for it as for any due timer.
      await new Promise<void>((resolve) => setImmediate(resolve));
      await timers.runDue();
      await settle();
    },
  };
}
