// The process `svc daemon start` spawns: settings come in SVC_* variables, logs go to the data
// dir (and with --foreground to stdout too), and readiness (or the reason it could not start)
// goes back to the CLI over IPC. In the foreground the daemon lives as long as its CLI: when
// the IPC channel closes (the CLI was killed, its terminal closed) it stops as on SIGTERM, and
// the CLI's stop requests come over IPC (see stop-signals.ts).
// Signals are answered from the first line: the daemon's modules load only afterwards (dynamic
// imports), so a SIGTERM during start-up is a graceful stop once it runs, not the default kill.
import { FOREGROUND_ARG, type ForegroundRequest } from '../shared/daemon-launch.js';
import { StopSignals } from './stop-signals.js';

/** How long the exit waits for the last log lines to be written. */
const LOG_FLUSH_WAIT_MS = 2_000;

const signals = new StopSignals().install();
const foreground = process.argv.includes(FOREGROUND_ARG);
const orphaned = () => signals.request('the foreground CLI went away');
const fromCli = (message: ForegroundRequest) => {
  if (message?.type === 'stop') signals.request(`${message.signal} to the foreground CLI`);
  else if (message?.type === 'force') signals.force(message.reason);
};
if (foreground) {
  process.once('disconnect', orphaned);
  process.on('message', fromCli);
}

const [{ dataDirFiles }, { resolveConfig }, { restrictNewFiles }, { createLogger }, { runDaemon }] =
  await Promise.all([
    import('../shared/paths.js'),
    import('./config.js'),
    import('./data-dir.js'),
    import('./logger.js'),
    import('./main.js'),
  ]);
// Before the logger opens logs/daemon.log: files the daemon creates are private (0600).
restrictNewFiles();
const config = resolveConfig({});
const logger = createLogger(config.logLevel, dataDirFiles(config.dataDir).log, {
  stdout: foreground,
});
const code = await runDaemon(config, logger, signals, (message) => {
  if (process.send) process.send(message);
});
process.off('disconnect', orphaned);
process.off('message', fromCli);
if (process.connected) process.disconnect();
await new Promise<void>((resolve) => {
  setTimeout(resolve, LOG_FLUSH_WAIT_MS).unref();
  logger.flush(() => resolve());
});
// Exit now rather than when the event loop drains: Node takes its signal handlers down while it
// drains, and a signal landing then (a supervisor's second SIGTERM) would kill the process after
// its graceful stop, without its exit code.
process.exit(code);
