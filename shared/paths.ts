// Where a daemon keeps its state. The CLI and the daemon agree on these names.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { RecordedStore } from './store-url.js';

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SVC_DATA_DIR) return resolve(env.SVC_DATA_DIR);
  const base = env.XDG_DATA_HOME ? env.XDG_DATA_HOME : join(homedir(), '.local', 'share');
  return join(base, 'svc');
}

export function dataDirFiles(dataDir: string) {
  return {
    database: join(dataDir, 'svc.db'),
    /** Written once the daemon listens: its pid, address and daemon id, for the CLI to find it. */
    runtime: join(dataDir, 'daemon.json'),
    lock: join(dataDir, 'daemon.lock'),
    controlToken: join(dataDir, 'control-token'),
    /** The AES-256-GCM key of secrets at rest (daemon/platform/secret-box.ts), mode 0600. */
    secretKey: join(dataDir, 'secret.key'),
    logDir: join(dataDir, 'logs'),
    log: join(dataDir, 'logs', 'daemon.log'),
    /** Anything the daemon process printed outside its logger (a crash before logging started). */
    stderr: join(dataDir, 'logs', 'daemon.stderr.log'),
  };
}

export interface RuntimeInfo {
  pid: number;
  url: string;
  host: string;
  port: number;
  environment: 'sandbox' | 'production';
  version: string;
  started_at: string;
  /** Random at each start; the daemon proves it before the CLI sends the control token. */
  daemon_id?: string;
  /** The PostgreSQL store it serves (absent on SQLite), for `svc daemon restart`. */
  store?: RecordedStore;
  /** The file of the key that seals the sandbox's secrets, for `svc daemon restart`. */
  secret_key_file?: string;
}

export const DEFAULT_PORT = 7717;
export const DEFAULT_HOST = '127.0.0.1';
