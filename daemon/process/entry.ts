// The process `svc daemon start` spawns: settings come in SVC_* variables, logs go to the data
// dir (and with --foreground to stdout too), and readiness (or the reason it could not start)
// goes back to the CLI over IPC. In the foreground the daemon lives as long as its CLI: when
// the IPC channel closes (the CLI was killed, its terminal closed) it stops as on SIGTERM.
// SIGTERM and SIGINT are taken before anything else loads (stop-signals.ts), so a signal during
// start-up also ends in the graceful stop; the rest of the daemon is imported after that.
import { StopSignals } from './stop-signals.js';

const signals = new StopSignals().install();
process.send?.({ type: 'signals' });
const [{ FOREGROUND_ARG }, { dataDirFiles }, { resolveConfig }, { restrictNewFiles }] =
  await Promise.all([
    import('../../shared/daemon-launch.js'),
    import('../../shared/paths.js'),
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
const logger = createLogger(config.logLevel, dataDirFiles(config.dataDir).log, {
  stdout: foreground,
});
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
