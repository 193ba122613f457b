// How the daemon process answers SIGTERM and SIGINT. A supervisor that signals a whole process
// group (docker stop, systemd's default KillMode, CI runners, `timeout`) reaches both
// `svc daemon start --foreground` and the daemon, and the CLI passes the stop on as well, so
// one stop can arrive twice. The first and the second signal ask for the graceful stop (the
// second is only logged); a third forces the exit, as does the drain timeout (main.ts), and the
// log says so. Stops that are no signal (the foreground CLI's request over IPC, the CLI going
// away) do not count towards the three. entry.ts installs this before the daemon's modules
// load, so a signal during start-up is remembered and answered once the daemon runs, not the
// default kill. Node built-ins only: it must load fast.

/** What answers a stop: set once the daemon runs (main.ts). */
export interface StopHandlers {
  /** Starts the graceful stop (idempotent). */
  stop(reason: string): void;
  /** Logs why and exits now, with code 1. */
  force(reason: string): void;
  /** Logs a stop that arrived while the daemon was already stopping. */
  again(reason: string): void;
}

export const FORCING_SIGNAL_COUNT = 3;

export class StopSignals {
  private signals = 0;
  private requested: string | undefined;
  private handlers: StopHandlers | undefined;

  /** Listens for SIGTERM and SIGINT from now on (for the life of the process). */
  install(): this {
    process.on('SIGTERM', this.onSignal);
    process.on('SIGINT', this.onSignal);
    return this;
  }

  /** A stop that is not a signal (the CLI asked over IPC, or went away): never forces. */
  request(reason: string): void {
    if (this.requested !== undefined) {
      this.handlers?.again(reason);
      return;
    }
    this.requested = reason;
    this.handlers?.stop(reason);
  }

  /** Exits now (the foreground CLI was signalled a third time). */
  force(reason: string): void {
    if (this.handlers) this.handlers.force(reason);
    else forceWithoutLogger(reason);
  }

  /**
   * The daemon runs: stops from now on go to `handlers`, and a stop that arrived while it
   * started is answered at once.
   */
  attach(handlers: StopHandlers): void {
    this.handlers = handlers;
    if (this.requested !== undefined) handlers.stop(this.requested);
  }

  /** Whether a stop was asked for (the daemon then need not finish starting). */
  get stopRequested(): boolean {
    return this.requested !== undefined;
  }

  private readonly onSignal = (signal: NodeJS.Signals): void => {
    this.signals += 1;
    if (this.signals >= FORCING_SIGNAL_COUNT) {
      this.force(`${signal} received ${this.signals} times`);
      return;
    }
    this.request(signal);
  };
}

/** Before the logger exists there is only stderr (the log file's stream is not open yet). */
function forceWithoutLogger(reason: string): void {
  process.stderr.write(`svc daemon: forced exit (${reason}) before it finished starting\n`);
  process.exit(1);
}
