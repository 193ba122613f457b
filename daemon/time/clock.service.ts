// Moves the sandbox clock (svc clock advance|set|reset|freeze|resume) and persists it (the
// offset, or the instant it is frozen at), then fires everything that became due before
// answering, so a script can rely on it having happened. A move the store refuses (a full disk)
// is undone: the clock stays where it was, and nothing falls due by it.
import { ApiError } from '../domain/errors.js';
import type { Environment } from '../domain/environment.js';
import type { SettingsRepository } from '../store/settings.repository.js';
import { ALONE, type TeamNotices } from '../store/team-notices.js';
import type { OffsetClock } from './clock.js';
import type { ClockState } from '../../shared/schemas/control-output.js';
import type { Hooks } from '../domain/hooks.js';

const OFFSET_KEY = 'clock_offset_ms';
/** Set while the clock is frozen: the instant it stands at (epoch ms). */
const FROZEN_KEY = 'clock_frozen_at_ms';

export type { ClockState };

/** What falls due on the daemon clock, for advance to move through in order. */
export interface Agenda {
  /** The earliest due time (timers, alarms) later than `time`. */
  nextDueAfter(time: number): number | undefined;
  /** Fires what is due now and waits for the work it started (steps of runs) to settle. */
  runDue(): Promise<void>;
}

/** A guard against an agenda that keeps adding due times: past it, advance jumps to the end. */
const MAX_STEPS = 100_000;

/** What ClockService is built from (app/services.ts passes them by name). */
export interface ClockServiceDeps {
  clock: OffsetClock;
  settings: SettingsRepository;
  environment: Environment;
  /** What falls due on the daemon clock (time/time-keeper.ts timeAgenda). */
  agenda?: Agenda | undefined;
  /** clockMoved, after every move (domain/hooks.ts). */
  hooks?: Pick<Hooks, 'runAwaited'> | undefined;
  /** Team mode: a move is told to the other daemons, and theirs heard here. */
  notices?: TeamNotices | undefined;
}

/**
 * Fires clockMoved after every move. Unlike other hooks, a move waits for its listeners (the
 * daemon fires due timers and housekeeping there): `svc clock advance` answers once done.
 */
export class ClockService {
  private readonly clock: OffsetClock;
  private readonly settings: SettingsRepository;
  private readonly environment: Environment;
  private readonly agenda: Agenda | undefined;
  private readonly hooks: Pick<Hooks, 'runAwaited'> | undefined;
  private readonly notices: TeamNotices;

  constructor(deps: ClockServiceDeps) {
    this.clock = deps.clock;
    this.settings = deps.settings;
    this.environment = deps.environment;
    this.agenda = deps.agenda;
    this.hooks = deps.hooks;
    this.notices = deps.notices ?? ALONE;
    this.notices.on('clock', () => this.heardMove());
    // Moves told while this daemon was not listening are missed: read the clock again.
    this.notices.onResync(() => this.heardMove());
  }

  /** Restores the persisted offset (sandbox only: production always runs on real time). */
  load(): void {
    loadClock(this.clock, this.settings, this.environment);
  }

  show(): ClockState {
    const now = this.clock.now();
    const offset = this.clock.offset;
    return {
      now: new Date(now).toISOString(),
      offset_ms: offset,
      real_now: new Date(now - offset).toISOString(),
      frozen: this.clock.frozen,
    };
  }

  async advance(ms: number): Promise<ClockState> {
    return (await this.move(ms, MAX_STEPS, 'jump')).state;
  }

  /**
   * advance for work that must stay bounded (a fixture's `then`, from a file someone else wrote):
   * through at most `dueTimes` due times. With more due before the end, the clock stays at the
   * last one reached and `done` is false; `used` is how many were gone through.
   */
  async advanceBounded(
    ms: number,
    dueTimes: number,
  ): Promise<{ state: ClockState; used: number; done: boolean }> {
    return this.move(ms, dueTimes, 'stop');
  }

  private async move(
    ms: number,
    maxSteps: number,
    atLimit: 'jump' | 'stop',
  ): Promise<{ state: ClockState; used: number; done: boolean }> {
    this.requireSandbox();
    if (!Number.isFinite(ms) || ms < 0) {
      throw new ApiError(
        'invalid_parameter',
        'The clock only moves forward with advance; use set to go to an earlier time.',
        { param: 'by' },
      );
    }
    // What is left to move; real time that passes meanwhile is not counted (a ticking clock
    // moves with it as well, a frozen one does not).
    let left = ms;
    // Through every due time on the way, in order, each one's work settled before the next:
    // a run whose wait ends before its deadline goes on (and may finish) before the deadline
    // is reached, as it would have in real time.
    let used = 0;
    // The instant up to which what fell due has been fired. A ticking clock goes on while due
    // work runs: what fell due meanwhile is fired before the next jump, not with it (a wait that
    // ended during the last step's work goes on before a deadline further on is reached).
    let fired = this.clock.now();
    for (; this.agenda; used++) {
      const next = this.agenda.nextDueAfter(fired);
      if (next === undefined) break;
      const now = this.clock.now();
      const jump = Math.max(0, next - now);
      if (jump >= left) break;
      if (used >= maxSteps) {
        if (atLimit === 'stop') return { state: await this.apply(() => {}), used, done: false };
        break;
      }
      if (jump > 0) {
        // Stored first: refused, the move ends here (507), the clock where the last step left it.
        this.change(() => this.clock.shift(Math.round(jump)));
        left -= jump;
      }
      fired = this.clock.now();
      await this.agenda.runDue();
    }
    return {
      state: await this.apply(() => this.clock.shift(Math.round(left))),
      used,
      done: true,
    };
  }

  /** Jumps to `epochMs`; `frozen` true freezes the clock there, false lets it tick from there. */
  async set(epochMs: number, frozen?: boolean): Promise<ClockState> {
    this.requireSandbox();
    if (!Number.isFinite(epochMs)) {
      throw new ApiError(
        'invalid_parameter',
        'Give the time as ISO 8601, e.g. 2030-01-01T00:00:00Z.',
        { param: 'to' },
      );
    }
    return this.apply(() => {
      if (frozen === false) this.clock.resume();
      if (frozen === true || this.clock.frozen) this.clock.freeze(Math.round(epochMs));
      else this.clock.setOffset(Math.round(epochMs - Date.now()));
    });
  }

  /** Back to real time, ticking (a frozen clock is resumed). */
  async reset(): Promise<ClockState> {
    this.requireSandbox();
    return this.apply(() => {
      this.clock.resume();
      this.clock.setOffset(0);
    });
  }

  /**
   * Stops the clock where it is: from now on only advance and set move it, and what falls due
   * fires only on such a move. Nothing moves, so nothing fires here.
   */
  freeze(): ClockState {
    this.requireSandbox();
    this.change(() => this.clock.freeze());
    return this.show();
  }

  /** A frozen clock ticks again from the instant it stood at (a ticking one is left as is). */
  async resume(): Promise<ClockState> {
    this.requireSandbox();
    // Moved listeners run: the real-time wake-ups of timers and alarms are set again.
    return this.apply(() => this.clock.resume());
  }

  /**
   * Changes the clock and stores it, or neither: if the store refuses (a full disk answers 507),
   * the clock goes back to where it was before the error is thrown, so no due time is reached by
   * a move that was refused (nothing would fire it: the move's listeners do not run).
   */
  private change(how: () => void): void {
    const before = this.clock.reading();
    how();
    try {
      this.persist();
    } catch (error) {
      this.clock.restore(before);
      throw error;
    }
  }

  /**
   * The clock as it stands, in one transaction (the offset, or the instant it is frozen at),
   * told in it to the other daemons of the sandbox (team mode), who hear it once committed.
   */
  private persist(): void {
    const tell = () => this.notices.notify('clock');
    if (this.clock.frozen) {
      this.settings.write({ [FROZEN_KEY]: String(this.clock.now()) }, tell);
    } else {
      this.settings.write({ [OFFSET_KEY]: String(this.clock.offset), [FROZEN_KEY]: null }, tell);
    }
  }

  /** A move in flight (heardMove), and whether another was heard meanwhile. */
  private reloading: Promise<void> | undefined;
  private heardAgain = false;

  /**
   * Another daemon moved the clock: read it from the store, and fire here what is due by it (as
   * the move's own listeners do), once at a time; moves heard meanwhile make one more round.
   */
  private async heardMove(): Promise<void> {
    if (this.reloading) {
      this.heardAgain = true;
      return this.reloading;
    }
    this.reloading = (async () => {
      do {
        this.heardAgain = false;
        this.load();
        await this.hooks?.runAwaited('clockMoved');
      } while (this.heardAgain);
    })().finally(() => (this.reloading = undefined));
    return this.reloading;
  }

  private async apply(how: () => void): Promise<ClockState> {
    this.change(how);
    await this.hooks?.runAwaited('clockMoved');
    return this.show();
  }

  private requireSandbox(): void {
    if (this.environment !== 'sandbox') {
      throw new ApiError(
        'conflict',
        'The clock can only be moved in the sandbox environment (svc daemon start --env sandbox).',
      );
    }
  }
}

/**
 * Sets `clock` to the persisted offset, or the instant it is frozen at (sandbox only: production
 * always runs on real time). At start-up, before anything reads the clock.
 */
export function loadClock(
  clock: OffsetClock,
  settings: SettingsRepository,
  environment: Environment,
): void {
  const sandbox = environment === 'sandbox';
  const stored = Number(settings.get(OFFSET_KEY) ?? 0);
  clock.resume();
  clock.setOffset(sandbox && Number.isFinite(stored) ? stored : 0);
  const frozenAt = Number(settings.get(FROZEN_KEY) ?? Number.NaN);
  if (sandbox && Number.isFinite(frozenAt)) clock.freeze(frozenAt);
}
