// What `svc daemon start` and the daemon process it spawns (daemon/process/entry.ts) agree on: the
// settings, passed as SVC_* variables, and the message that says whether the daemon is ready.

/** Settings given on the command line; each wins over its SVC_* variable. */
export interface DaemonFlags {
  host?: string | undefined;
  port?: string | number | undefined;
  dataDir?: string | undefined;
  env?: string | undefined;
  logLevel?: string | undefined;
  allowPrivateNetwork?: boolean | undefined;
  /** A PostgreSQL URL (team mode); none: the data dir's SQLite file. */
  store?: string | undefined;
  /** The sandbox (schema) of that PostgreSQL store; default the data dir's own. */
  sandbox?: string | undefined;
  /** The key that seals the sandbox's secrets; default <data dir>/secret.key. */
  secretKeyFile?: string | undefined;
}

/** Sent once over IPC: ready to serve, or why the daemon could not start. */
export type DaemonMessage =
  | { type: 'ready'; url: string; pid: number }
  | { type: 'error'; message: string }
  /** Sent last: the graceful stop is done (a signal during the exit that follows is moot). */
  | { type: 'stopped'; code: number };

/**
 * Node's flags for the daemon process: --expose-gc lets it give memory back once a burst of work
 * is over (daemon/platform/memory-trim.ts).
 */
export const DAEMON_NODE_FLAGS: readonly string[] = ['--expose-gc'];

/** The environment of the daemon process: the flags as the SVC_* variables they override. */
export function daemonEnv(flags: DaemonFlags, base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  if (flags.dataDir !== undefined) env.SVC_DATA_DIR = flags.dataDir;
  if (flags.port !== undefined) env.SVC_PORT = String(flags.port);
  if (flags.host !== undefined) env.SVC_HOST = flags.host;
  if (flags.env !== undefined) env.SVC_ENV = flags.env;
  if (flags.logLevel !== undefined) env.SVC_LOG_LEVEL = flags.logLevel;
  if (flags.allowPrivateNetwork) env.SVC_ALLOW_PRIVATE_NETWORK = '1';
  if (flags.store !== undefined) env.SVC_STORE_URL = flags.store;
  if (flags.sandbox !== undefined) env.SVC_SANDBOX = flags.sandbox;
  if (flags.secretKeyFile !== undefined) env.SVC_SECRET_KEY_FILE = flags.secretKeyFile;
  return env;
}
