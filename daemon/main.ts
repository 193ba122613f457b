// Runs the daemon in this process until a stop (a signal, the foreground CLI, or the control
// channel): daemon/entry.ts (which `svc daemon start` spawns, with or without --foreground)
// calls it. The stop is graceful (server.ts: in-flight requests finish, timers stop, the store
// closes, "stopping" and "stopped" are logged) and ends with exit code 0; only a third signal or
// the drain timeout forces the exit (code 1), and the log says which.
import type { Logger } from 'pino';
import type { DaemonMessage } from '../shared/daemon-launch.js';
import type { DaemonConfig } from './config.js';
import { startDaemon } from './server.js';
import { FORCING_SIGNAL_COUNT, type StopSignals } from './stop-signals.js';

/** How long the forced exit waits for the log to reach its files. */
const FORCED_FLUSH_MS = 1_000;

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
  report({ type: 'ready', url: daemon.runtime.url, pid: process.pid });

  const force = (reason: string): void => {
    logger.fatal({ reason }, 'svc daemon forced to exit before the graceful stop finished');
    setTimeout(() => process.exit(1), FORCED_FLUSH_MS).unref();
    logger.flush(() => process.exit(1));
  };
  let drainTimer: NodeJS.Timeout | undefined;
  const stop = (reason: string): void => {
    drainTimer ??= setTimeout(
      () => force(`the drain timeout (${config.drainTimeoutMs} ms) passed`),
      config.drainTimeoutMs,
    );
    void daemon.shutdown(reason);
  };
  // A control-channel stop (svc daemon stop) goes through here too, so the drain timeout covers it.
  daemon.onShutdownRequest(stop);
  signals.attach({
    stop,
    force,
    again: (reason) =>
      logger.info(
        { reason },
        `svc daemon already stopping (signal ${FORCING_SIGNAL_COUNT} times to force the exit)`,
      ),
  });
  await daemon.stopped;
  clearTimeout(drainTimer);
  return 0;
}
