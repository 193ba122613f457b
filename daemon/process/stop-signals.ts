// How SIGTERM and SIGINT stop the daemon. A supervisor that signals the whole process group
// (docker stop, systemd, CI runners, `timeout`) and the foreground CLI that passes the signal on
// can deliver the same stop twice, so: the first signal starts the graceful stop, the second is
// logged and changes nothing, a third forces the exit, and so does a drain that outlasts its
// timeout. Installed first thing at start, so a signal that comes while the daemon is still
// loading stops it as soon as it can (never the default action, which kills at once).
import type { Logger } from 'pino';

export const FORCE_AFTER_SIGNALS = 3;
export const DEFAULT_DRAIN_TIMEOUT_MS = 15_000;
export const FORCED_EXIT_CODE = 1;

export class StopSignals {
  private received = 0;
  private stop: ((signal: NodeJS.Signals) => void) | undefined;
  private pending: NodeJS.Signals | undefined;
  private logger: Logger | undefined;
  private readonly handler = (signal: NodeJS.Signals) => this.onSignal(signal);

  constructor(private readonly drainTimeoutMs = DEFAULT_DRAIN_TIMEOUT_MS) {}

  install(): this {
    process.on('SIGTERM', this.handler);
    process.on('SIGINT', this.handler);
    return this;
  }

  uninstall(): void {
    process.off('SIGTERM', this.handler);
    process.off('SIGINT', this.handler);
  }

  /** Where the graceful stop starts; a signal that came before is acted on now. */
  onStop(logger: Logger, stop: (signal: NodeJS.Signals) => void): void {
    this.logger = logger;
    this.stop = stop;
    if (this.pending) this.begin(this.pending);
  }

  /** Whether a signal came before onStop(): a daemon still starting should not serve. */
  get requested(): boolean {
    return this.received > 0;
  }

  private onSignal(signal: NodeJS.Signals): void {
    this.received += 1;
    if (this.received === 1) {
      if (this.stop) this.begin(signal);
      else this.pending = signal;
      return;
    }
    if (this.received < FORCE_AFTER_SIGNALS) {
      this.logger?.info({ signal }, 'svc daemon already stopping; a third signal forces the exit');
      return;
    }
    this.force(`signal ${signal} received ${this.received} times`);
  }

  private begin(signal: NodeJS.Signals): void {
    this.pending = undefined;
    // Unreferenced: a stop that finishes in time lets the process end without waiting for it.
    setTimeout(
      () => this.force(`the graceful stop took longer than ${this.drainTimeoutMs / 1000} s`),
      this.drainTimeoutMs,
    ).unref();
    this.stop?.(signal);
  }

  private force(reason: string): void {
    this.logger?.warn({ reason }, 'svc daemon forced to exit before its graceful stop ended');
    this.logger?.flush();
    process.exit(FORCED_EXIT_CODE);
  }
}
