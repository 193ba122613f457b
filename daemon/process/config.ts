// Daemon settings from flags and environment variables (flags win), with the documented defaults.
import { resolve } from 'node:path';
import type { DaemonFlags } from '../../shared/daemon-launch.js';
import { DEFAULT_HOST, DEFAULT_PORT, dataDirFiles, defaultDataDir } from '../../shared/paths.js';
import {
  resolveStoreSetting,
  StoreSettingError,
  type StoreSetting,
} from '../../shared/store-url.js';
import type { Environment } from '../domain/environment.js';
import type { LogLevel } from '../platform/logger.js';
import { DEFAULT_ENTERPRISE_MULTIPLIER } from '../ratelimit/plans.js';

export interface DaemonConfig {
  host: string;
  port: number;
  dataDir: string;
  environment: Environment;
  logLevel: LogLevel;
  enterpriseRateMultiplier: number;
  allowPrivateNetwork: boolean;
  /** Where the sandbox lives: the data dir's SQLite file, or a PostgreSQL schema (team mode). */
  store: StoreSetting;
  /** The key that seals the sandbox's secrets at rest (default <data dir>/secret.key). */
  secretKeyFile: string;
  /**
   * The daemon runs inside another program's process (svc/testing's createSandbox): what only
   * a daemon process of its own should do is left out (see startDaemon).
   */
  embedded?: boolean;
  /**
   * The SVC_* variables the services read (the agents' brain and timeouts, the cassette folder)
   * instead of the process's: a test sandbox's own (svc/testing).
   */
  settingsEnv?: NodeJS.ProcessEnv;
}

export class ConfigError extends Error {}

const LOG_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function resolveConfig(
  flags: DaemonFlags,
  env: NodeJS.ProcessEnv = process.env,
): DaemonConfig {
  const port = Number(flags.port ?? env.SVC_PORT ?? DEFAULT_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(
      `The port must be an integer from 0 to 65535 (got ${String(flags.port ?? env.SVC_PORT)}).`,
    );
  }
  const environment = flags.env ?? env.SVC_ENV ?? 'sandbox';
  if (environment !== 'sandbox' && environment !== 'production') {
    throw new ConfigError(`The environment must be sandbox or production (got ${environment}).`);
  }
  const logLevel = (flags.logLevel ?? env.SVC_LOG_LEVEL ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(
      `The log level must be one of ${LOG_LEVELS.join(', ')} (got ${logLevel}).`,
    );
  }
  const multiplier = Number(env.SVC_ENTERPRISE_RATE_MULTIPLIER ?? DEFAULT_ENTERPRISE_MULTIPLIER);
  if (!Number.isFinite(multiplier) || multiplier < 1) {
    throw new ConfigError('SVC_ENTERPRISE_RATE_MULTIPLIER must be a number >= 1.');
  }
  const dataDir = flags.dataDir ? resolve(flags.dataDir) : defaultDataDir(env);
  let store: StoreSetting;
  try {
    store = resolveStoreSetting(
      { store: flags.store ?? env.SVC_STORE_URL, sandbox: flags.sandbox ?? env.SVC_SANDBOX },
      dataDir,
    );
  } catch (error) {
    if (error instanceof StoreSettingError) throw new ConfigError(error.message);
    throw error;
  }
  const keyFile = flags.secretKeyFile ?? env.SVC_SECRET_KEY_FILE;
  return {
    host: flags.host ?? env.SVC_HOST ?? DEFAULT_HOST,
    port,
    dataDir,
    store,
    secretKeyFile: keyFile ? resolve(keyFile) : dataDirFiles(dataDir).secretKey,
    environment,
    logLevel,
    enterpriseRateMultiplier: multiplier,
    allowPrivateNetwork: flags.allowPrivateNetwork ?? env.SVC_ALLOW_PRIVATE_NETWORK === '1',
  };
}
