// Runs the daemon in this process until a signal or a control-channel stop: daemon/entry.ts
// (which `svc daemon start` spawns, with or without --foreground) calls it.
import type { Logger } from 'pino';
import type { DaemonMessage } from '../shared/daemon-launch.js';
import type { DaemonConfig } from './config.js';
import { startDaemon } from './server.js';

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
