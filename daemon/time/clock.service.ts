// Moves the sandbox clock (svc clock advance|set|reset) and persists its offset, then fires
// everything that became due before answering, so a script can rely on it having happened.
import { EventEmitter } from 'node:events';
import { ApiError } from '../domain/errors.js';
import type { Environment } from '../domain/environment.js';
import type { SettingsRepository } from '../store/settings.repository.js';
import type { OffsetClock } from './clock.js';
import type { ClockState } from '../../shared/schemas/control-output.js';

const OFFSET_KEY = 'clock_offset_ms';

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

/**
 * Emits `moved` after every move. Unlike other events, a move waits for its listeners (the
 * daemon fires due timers and housekeeping there): `svc clock advance` answers once done.
 */
export class ClockService extends EventEmitter<{ moved: [] }> {
  private agenda: Agenda | undefined;

  constructor(
    private readonly clock: OffsetClock,
    private readonly settings: SettingsRepository,
    private readonly environment: Environment,
  ) {
    super();
  }

  /** Set once the services that keep due times exist (the composition root). */
  useAgenda(agenda: Agenda): void {
    this.agenda = agenda;
  }

  /** Restores the persisted offset (sandbox only: production always runs on real time). */
  load(): void {
    const stored = Number(this.settings.get(OFFSET_KEY) ?? 0);
    this.clock.setOffset(this.environment === 'sandbox' && Number.isFinite(stored) ? stored : 0);
  }

  show(): ClockState {
    const now = this.clock.now();
    return {
      now: new Date(now).toISOString(),
      offset_ms: this.clock.offset,
      real_now: new Date(now - this.clock.offset).toISOString(),
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
    const target = this.clock.offset + ms;
    // Through every due time on the way, in order, each one's work settled before the next:
    // a run whose wait ends before its deadline goes on (and may finish) before the deadline
    // is reached, as it would have in real time.
    let used = 0;
    for (; this.agenda; used++) {
      const now = this.clock.now();
      const next = this.agenda.nextDueAfter(now);
      if (next === undefined || this.clock.offset + (next - now) >= target) break;
      if (used >= maxSteps) {
        if (atLimit === 'stop')
          return { state: await this.apply(this.clock.offset), used, done: false };
        break;
      }
      this.moveTo(this.clock.offset + (next - now));
      await this.agenda.runDue();
    }
    return { state: await this.apply(target), used, done: true };
  }

  async set(epochMs: number): Promise<ClockState> {
    this.requireSandbox();
    if (!Number.isFinite(epochMs)) {
      throw new ApiError(
        'invalid_parameter',
        'Give the time as ISO 8601, e.g. 2030-01-01T00:00:00Z.',
        { param: 'to' },
      );
    }
    return this.apply(epochMs - Date.now());
  }

  async reset(): Promise<ClockState> {
    this.requireSandbox();
    return this.apply(0);
  }

  private moveTo(offset: number): void {
    this.clock.setOffset(Math.round(offset));
    this.settings.set(OFFSET_KEY, String(this.clock.offset));
  }

  private async apply(offset: number): Promise<ClockState> {
    this.moveTo(offset);
    for (const listener of this.listeners('moved'))
      await (listener as () => Promise<void> | void)();
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
