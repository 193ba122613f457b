// Daemon settings from flags and environment variables (flags win), with the documented defaults.
import { resolve } from 'node:path';
import type { DaemonFlags } from '../../shared/daemon-launch.js';
import { DEFAULT_HOST, DEFAULT_PORT, defaultDataDir } from '../../shared/paths.js';
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
  return {
    host: flags.host ?? env.SVC_HOST ?? DEFAULT_HOST,
    port,
    dataDir: flags.dataDir ? resolve(flags.dataDir) : defaultDataDir(env),
    environment,
    logLevel,
    enterpriseRateMultiplier: multiplier,
    allowPrivateNetwork: flags.allowPrivateNetwork ?? env.SVC_ALLOW_PRIVATE_NETWORK === '1',
  };
}
