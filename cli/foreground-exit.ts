// What `svc daemon start --foreground` exits with, once its daemon process has ended.

export interface ForegroundEnd {
  /** The daemon's exit code, or null when a signal ended it. */
  code: number | null;
  /** The signal that ended the daemon, if one did. */
  signal: NodeJS.Signals | null;
  /** The code the daemon reported when its graceful stop was done, if it got that far. */
  stoppedCode: number | undefined;
  /** Whether the daemon had said that it handles SIGTERM and SIGINT itself. */
  handlesSignals: boolean;
  /** How many SIGINT or SIGTERM this CLI received. */
  signalsReceived: number;
}

/** The CLI's exit code, and what it writes on stderr first (if anything). */
export function foregroundExit(end: ForegroundEnd): { code: number; message?: string } {
  // It finished its graceful stop: a signal that met it on its way out changes nothing.
  if (end.stoppedCode !== undefined) return { code: end.stoppedCode };
  if (end.signal && !end.handlesSignals && end.signalsReceived > 0 && isStopSignal(end.signal)) {
    // The supervisor's signal to this CLI's process group reached the daemon process between
    // its fork and the setsid() that puts it in a group of its own: libuv holds it blocked
    // there and it takes its default action as the child unblocks, before exec, so none of the
    // daemon's code ran (once it runs, its first line handles signals: daemon/process/entry.ts). It was
    // stopped before it started, with nothing opened and nothing accepted: the clean stop this
    // CLI was asked for.
    return { code: 0 };
  }
  if (end.signal) return { code: 1, message: `the daemon was ended by ${end.signal}` };
  if (end.code !== 0)
    return { code: end.code ?? 1, message: `the daemon exited with code ${end.code}` };
  return { code: 0 };
}

function isStopSignal(signal: NodeJS.Signals): boolean {
  return signal === 'SIGTERM' || signal === 'SIGINT';
}
