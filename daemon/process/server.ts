// Runs the daemon: locks the data dir, builds the app, listens, records where it listens for
// the CLI, and shuts down gracefully on SIGTERM/SIGINT (in-flight requests finish, timers stop
// between jobs, the store closes cleanly).
import { randomBytes } from 'node:crypto';
import { chmodSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { VERSION } from '../../shared/package-info.js';
import { newDaemonId } from '../../shared/daemon-identity.js';
import { dataDirFiles, type RuntimeInfo } from '../../shared/paths.js';
import { recordedStore } from '../../shared/store-url.js';
import type { SvcApp } from '../app/app.js';
import { AppHost } from './app-host.js';
import { storeSwap } from './store-swap.js';
import type { DaemonConfig } from './config.js';
import { serverUrls } from '../domain/urls.js';
import { acquireLock } from './lock.js';
import { prepareDataDir } from './data-dir.js';
import { join } from 'node:path';

function listen(host: AppHost, address: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    host.server.once('error', reject);
    host.server.listen({ host: address, port }, () => {
      host.server.off('error', reject);
      resolve();
    });
  });
}

export class PortInUseError extends Error {
  constructor(host: string, port: number) {
    super(
      `Port ${port} on ${host} is already in use. Pick another with --port (or SVC_PORT), or stop what listens there.`,
    );
  }
}

export interface RunningDaemon {
  svc: SvcApp;
  runtime: RuntimeInfo;
  /** Resolves when the daemon has shut down. */
  stopped: Promise<void>;
  shutdown(reason: string): Promise<void>;
}

export async function startDaemon(config: DaemonConfig, logger: Logger): Promise<RunningDaemon> {
  const files = dataDirFiles(config.dataDir);
  prepareDataDir(config.dataDir, files.logDir, logger);
  const releaseLock = acquireLock(files.lock, config.dataDir, logger);

  let svc: SvcApp | undefined;
  try {
    const controlToken = randomBytes(32).toString('base64url');
    writeFileSync(files.controlToken, controlToken, { mode: 0o600 });
    chmodSync(files.controlToken, 0o600);
    // Recorded in daemon.json with the address: the CLI sends the control token only to the
    // daemon that proves it (shared/daemon-identity.ts).
    const daemonId = newDaemonId();

    const onShutdownRequest: { handler?: () => void } = {};
    const databaseFile = join(config.dataDir, 'svc.db');
    const swap: { host?: AppHost } = {};
    // The host keeps one listening server and can rebuild the app on another store (state import).
    const host = new AppHost(
      {
        dataDir: config.dataDir,
        environment: config.environment,
        controlToken,
        daemonId,
        logger,
        enterpriseRateMultiplier: config.enterpriseRateMultiplier,
        allowPrivateNetwork: config.allowPrivateNetwork,
        secretKeyFile: config.secretKeyFile,
        store: config.store,
        // Embedded (a test sandbox): no worker threads (services.ts says why).
        ...(config.embedded ? { workerThreads: false } : {}),
        ...(config.settingsEnv ? { env: config.settingsEnv } : {}),
        urls: serverUrls(config.host, config.port),
        onShutdownRequest: () => onShutdownRequest.handler?.(),
        storeSwap: storeSwap(
          {
            dataDir: config.dataDir,
            databaseFile,
            secretKeyFile: config.secretKeyFile,
            store: config.store,
          },
          () => swap.host!,
          logger,
        ),
      },
      databaseFile,
      logger,
    );
    swap.host = host;
    svc = await host.build();
    try {
      await listen(host, config.host, config.port);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
        throw new PortInUseError(config.host, config.port);
      throw error;
    }
    const address = host.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    Object.assign(svc.urls, serverUrls(config.host, port));

    const runtime: RuntimeInfo = {
      pid: process.pid,
      url: svc.urls.app,
      host: config.host,
      port,
      environment: config.environment,
      version: VERSION,
      started_at: new Date().toISOString(),
      daemon_id: daemonId,
      ...(config.store.kind === 'postgres' ? { store: recordedStore(config.store) } : {}),
      secret_key_file: config.secretKeyFile,
    };
    // Written whole or not at all (a file beside it, renamed over): the CLI, scripts and tests
    // read it as soon as it exists, and a half-written record read as no daemon at all.
    const written = `${files.runtime}.${process.pid}.tmp`;
    writeFileSync(written, JSON.stringify(runtime, null, 2) + '\n', { mode: 0o600 });
    renameSync(written, files.runtime);
    svc.start();
    logger.info(
      { url: runtime.url, environment: config.environment, data_dir: config.dataDir },
      'svc daemon listening',
    );

    const running = host;
    let resolveStopped!: () => void;
    const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
    let stopping: Promise<void> | undefined;
    const shutdown = (reason: string): Promise<void> =>
      (stopping ??= (async () => {
        logger.info({ reason }, 'svc daemon stopping');
        rmSync(files.runtime, { force: true });
        await running.close();
        rmSync(files.controlToken, { force: true });
        releaseLock();
        logger.info('svc daemon stopped');
        logger.flush();
        resolveStopped();
      })());
    // A control-channel shutdown answers first, then stops.
    onShutdownRequest.handler = () => setImmediate(() => void shutdown('control channel'));
    return {
      get svc() {
        return host.svc;
      },
      runtime,
      stopped,
      shutdown,
    };
  } catch (error) {
    await svc?.close().catch(() => undefined);
    rmSync(files.controlToken, { force: true });
    releaseLock();
    throw error;
  }
}
