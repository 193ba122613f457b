// SIGTERM and SIGINT that come while the CLI is still loading, before any command could handle
// them. bin/svc.js holds them first thing; a command then either passes them on (the default
// action, as if they had come just now: passEarlySignals) or takes them itself
// (takeEarlySignals: `svc daemon start --foreground` stops cleanly, exit 0, before it starts
// the daemon), so a supervisor's early signal is never lost and never kills a half-started
// foreground daemon.
const held: NodeJS.Signals[] = [];
const hold = (signal: NodeJS.Signals) => void held.push(signal);

export function holdEarlySignals(): void {
  process.on('SIGTERM', hold);
  process.on('SIGINT', hold);
}

/** Stops holding; answers the signals that came meanwhile, for the caller to act on. */
export function takeEarlySignals(): NodeJS.Signals[] {
  process.off('SIGTERM', hold);
  process.off('SIGINT', hold);
  return held.splice(0);
}

/** Stops holding and lets a signal that came meanwhile take its default action now. */
export function passEarlySignals(): void {
  const [first] = takeEarlySignals();
  if (first && process.listenerCount(first) === 0) process.kill(process.pid, first);
}
