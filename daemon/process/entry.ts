// The process `svc daemon start` spawns in the background: settings come in SVC_* variables,
// logs go to the data dir, and readiness (or the reason it could not start) goes back to the CLI
// over IPC. (`--foreground` runs the same daemon-process.ts inside the CLI's own process.)
// SIGTERM and SIGINT are taken before anything else loads (stop-signals.ts), so a signal during
// start-up also ends in the graceful stop; the rest of the daemon is imported after that.
import { StopSignals } from './stop-signals.js';

const signals = new StopSignals().install();
const { runDaemonProcess } = await import('./daemon-process.js');
const code = await runDaemonProcess(signals, {
  foreground: false,
  // The CLI that spawned it may have stopped listening (it gave up waiting, or was interrupted):
  // a message it cannot take is dropped, never an unhandled 'error' that ends a started daemon.
  send: (message) => {
    if (process.connected) process.send!(message, undefined, undefined, () => undefined);
  },
});
// Exits at once rather than when the event loop has drained: a natural exit first closes the
// signal handlers, and a supervisor's late signal would then kill a daemon already stopped.
const exit = () => process.exit(code);
if (process.connected) process.send!({ type: 'stopped', code }, exit);
else exit();
