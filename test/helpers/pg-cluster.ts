// A throwaway PostgreSQL for a test file (scripts/pg-cluster.mjs, run as a process: the same
// script the e2e pass on PostgreSQL uses), removed when the file's process exits.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './daemon.js';

const SCRIPT = join(ROOT, 'scripts', 'pg-cluster.mjs');

export interface PgCluster {
  /** postgres://postgres@127.0.0.1:PORT/svc */
  url: string;
  dir: string;
  /** Stops the server, keeping its data (an outage under a running daemon). */
  halt(): void;
  /** Starts it again on the same port and data. */
  resume(): void;
  /** Runs SQL over psql; answers its output (unaligned, tuples only). */
  sql(text: string): string;
}

const started: PgCluster[] = [];

function run(...args: string[]): string {
  return execFileSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8', timeout: 120_000 });
}

export function startPgCluster(): PgCluster {
  const [url, dir] = run('start').trim().split(' ') as [string, string];
  if (started.length === 0) {
    process.once('exit', () => {
      for (const cluster of started) {
        try {
          run('stop', cluster.dir);
        } catch {
          // Gone already.
        }
      }
    });
  }
  const cluster: PgCluster = {
    url,
    dir,
    halt: () => void run('halt', dir),
    resume: () => void run('resume', dir),
    sql: (text) =>
      execFileSync('psql', [url, '-XAtq', '-v', 'ON_ERROR_STOP=1', '-c', text], {
        encoding: 'utf8',
      }),
  };
  started.push(cluster);
  return cluster;
}
