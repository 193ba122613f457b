// The daemon as a process: its settings from SVC_* variables, its data dir and log opened, then
// the daemon run until it stops. Two ways in: entry.ts, the process `svc daemon start` spawns in
// the background, and `svc daemon start --foreground`, which runs it inside the CLI's own process
// (one process attached to the terminal, no second one waiting beside it).
import type { DaemonMessage } from '../../shared/daemon-launch.js';
import { dataDirFiles } from '../../shared/paths.js';
import { makeWritableDir, unwritableDataDir } from '../../shared/writable-dir.js';
import { createLogger } from '../platform/logger.js';
import { ConfigError, resolveConfig, type DaemonConfig } from './config.js';
import { restrictNewFiles } from './data-dir.js';
import { runDaemon } from './main.js';
import type { StopSignals } from './stop-signals.js';

export interface DaemonProcessOptions {
  /** Logs go to stdout as well as to the data dir's log. */
  foreground: boolean;
  /** Where readiness (or why it could not start) is told: the spawning CLI over IPC. */
  send?: ((message: DaemonMessage) => void) | undefined;
}

/** Runs the daemon until it stops; answers its exit code. `signals` must be installed already. */
export async function runDaemonProcess(
  signals: StopSignals,
  { foreground, send }: DaemonProcessOptions,
): Promise<number> {
  // Before the logger opens logs/daemon.log: files the daemon creates are private (0600).
  restrictNewFiles();
  let config: DaemonConfig;
  try {
    config = resolveConfig({});
  } catch (error) {
    // A setting out of range (SVC_PORT, SVC_STORE_URL...): its one-line reason, exit 1.
    if (!(error instanceof ConfigError)) throw error;
    await tell(error.message, send);
    return 1;
  }
  const files = dataDirFiles(config.dataDir);
  let logger;
  try {
    makeWritableDir(config.dataDir);
    makeWritableDir(files.logDir);
    logger = createLogger(config.logLevel, files.log, { stdout: foreground });
  } catch (error) {
    // A data dir it cannot write (read-only, not its owner's, under a file): one line naming the
    // path and the cause, and exit 1. There is no log to write it to.
    const message = unwritableDataDir(config.dataDir, error);
    if (message === undefined) throw error;
    await tell(message, send);
    return 1;
  }
  return runDaemon(config, logger, signals, (message) => send?.(message));
}

/** Why the daemon cannot start, before it has a log: to the spawning CLI, else on stderr. */
async function tell(message: string, send: DaemonProcessOptions['send']): Promise<void> {
  if (process.send && send) {
    await new Promise<void>((resolve) =>
      process.send!({ type: 'error', message }, () => resolve()),
    );
  } else process.stderr.write(`svc daemon: ${message}\n`);
}
