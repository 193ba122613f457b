// The daemon process's entry point. `svc daemon start` spawns it in the background (settings
// come in SVC_* variables, readiness goes back over IPC); --foreground runs runForeground().
import type { Logger } from 'pino';
import { dataDirFiles } from '../shared/paths.js';
import { resolveConfig, type DaemonConfig, type DaemonFlags } from './config.js';
import { createLogger } from './logger.js';
import { startDaemon } from './server.js';

export type DaemonMessage =
  { type: 'ready'; url: string; pid: number } | { type: 'error'; message: string };

export async function runDaemon(
  config: DaemonConfig,
  logger: Logger,
  report: (message: DaemonMessage) => void,
): Promise<number> {
  let daemon;
  try {
    daemon = await startDaemon(config, logger);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    logger.fatal({ err: message }, 'svc daemon could not start');
    logger.flush();
    report({ type: 'error', message });
    return 1;
  }
  const onSignal = (signal: NodeJS.Signals) => void daemon.shutdown(signal);
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  process.on('unhandledRejection', (reason) =>
    logger.error({ err: reason }, 'unhandled rejection'),
  );
  report({ type: 'ready', url: daemon.runtime.url, pid: process.pid });
  await daemon.stopped;
  return 0;
}

/**
 * Runs in this process, until a signal or a control-channel stop, with logs on stdout and in the
 * data dir's log file (where `svc daemon logs` reads them).
 */
export async function runForeground(flags: DaemonFlags): Promise<number> {
  const config = resolveConfig(flags);
  const logger = createLogger(config.logLevel, dataDirFiles(config.dataDir).log, { stdout: true });
  return runDaemon(config, logger, (message) => {
    if (message.type === 'error') process.stderr.write(`svc: ${message.message}\n`);
  });
}
