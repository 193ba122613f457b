// Moves the sandbox clock (svc clock advance|set|reset) and persists its offset, then fires
// everything that became due before answering, so a script can rely on it having happened.
import { EventEmitter } from 'node:events';
import { ApiError } from '../domain/errors.js';
import type { Environment } from '../keys/key-material.js';
import type { SettingsRepository } from '../store/settings.repository.js';
import type { OffsetClock } from './clock.js';

const OFFSET_KEY = 'clock_offset_ms';

export interface ClockState {
  now: string;
  offset_ms: number;
  real_now: string;
}

/**
 * Emits `moved` after every move. Unlike other events, a move waits for its listeners (the
 * daemon fires due timers and housekeeping there): `svc clock advance` answers once done.
 */
export class ClockService extends EventEmitter<{ moved: [] }> {
  constructor(
    private readonly clock: OffsetClock,
    private readonly settings: SettingsRepository,
    private readonly environment: Environment,
  ) {
    super();
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
    this.requireSandbox();
    if (!Number.isFinite(ms) || ms < 0) {
      throw new ApiError(
        'invalid_parameter',
        'The clock only moves forward with advance; use set to go to an earlier time.',
        { param: 'by' },
      );
    }
    return this.apply(this.clock.offset + ms);
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

  private async apply(offset: number): Promise<ClockState> {
    this.clock.setOffset(Math.round(offset));
    this.settings.set(OFFSET_KEY, String(this.clock.offset));
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
