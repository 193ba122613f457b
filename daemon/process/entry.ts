// The process `svc daemon start` spawns: settings come in SVC_* variables, logs go to the data
// dir (and with --foreground to stdout too), and readiness (or the reason it could not start)
// goes back to the CLI over IPC. In the foreground the daemon lives as long as its CLI: when
// the IPC channel closes (the CLI was killed, its terminal closed) it stops as on SIGTERM.
// SIGTERM and SIGINT are taken before anything else loads (stop-signals.ts), so a signal during
// start-up also ends in the graceful stop; the rest of the daemon is imported after that.
import { StopSignals } from './stop-signals.js';

const signals = new StopSignals().install();
process.send?.({ type: 'signals' });
const [
  { FOREGROUND_ARG },
  { dataDirFiles },
  { makeWritableDir, unwritableDataDir },
  { resolveConfig },
  { restrictNewFiles },
] = await Promise.all([
  import('../../shared/daemon-launch.js'),
  import('../../shared/paths.js'),
  import('../../shared/writable-dir.js'),
  import('./config.js'),
  import('./data-dir.js'),
]);
const [{ createLogger }, { runDaemon }] = await Promise.all([
  import('../platform/logger.js'),
  import('./main.js'),
]);

const foreground = process.argv.includes(FOREGROUND_ARG);
// Before the logger opens logs/daemon.log: files the daemon creates are private (0600).
restrictNewFiles();
const config = resolveConfig({});
const files = dataDirFiles(config.dataDir);
let logger;
try {
  makeWritableDir(config.dataDir);
  makeWritableDir(files.logDir);
  logger = createLogger(config.logLevel, files.log, { stdout: foreground });
} catch (error) {
  // A data dir it cannot write (read-only, not its owner's, under a file): one line naming the
  // path and the cause, which the CLI prints, and exit 1. There is no log to write it to.
  const message = unwritableDataDir(config.dataDir, error);
  if (message === undefined) throw error;
  await new Promise<void>((resolve) => {
    if (process.send) process.send({ type: 'error', message }, () => resolve());
    else {
      process.stderr.write(`svc daemon: ${message}\n`);
      resolve();
    }
  });
  process.exit(1);
}
const orphaned = () => process.kill(process.pid, 'SIGTERM');
if (foreground) process.once('disconnect', orphaned);
const code = await runDaemon(config, logger, signals, (message) => {
  if (process.send) process.send(message);
});
process.off('disconnect', orphaned);
// Exits at once rather than when the event loop has drained: a natural exit first closes the
// signal handlers, and a supervisor's late signal would then kill a daemon already stopped.
const exit = () => process.exit(code);
if (process.connected) process.send!({ type: 'stopped', code }, exit);
else exit();
