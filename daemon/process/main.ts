// Runs the daemon in this process until a signal or a control-channel stop: daemon/process/entry.ts
// (which `svc daemon start` spawns, with or without --foreground) calls it.
import type { Logger } from 'pino';
import type { DaemonMessage } from '../../shared/daemon-launch.js';
import type { DaemonConfig } from './config.js';
import { startDaemon } from './server.js';
import type { StopSignals } from './stop-signals.js';

export async function runDaemon(
  config: DaemonConfig,
  logger: Logger,
  signals: StopSignals,
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
  process.on('unhandledRejection', (reason) =>
    logger.error({ err: reason }, 'unhandled rejection'),
  );
  // A signal that came while starting stops it now, before it reports ready.
  const stopRequested = signals.requested;
  const running = daemon;
  signals.onStop(logger, (signal) => void running.shutdown(signal));
  if (!stopRequested) report({ type: 'ready', url: daemon.runtime.url, pid: process.pid });
  await daemon.stopped;
  return 0;
}
