// PostgreSQL for unit tests: the one given by SVC_TEST_PG_URL (CI, a developer's own), or a
// throwaway cluster from the machine's binaries (scripts/pg-cluster.mjs: initdb into a temp
// dir, a free port, fsync off), started once per test file's process and removed when it exits.
// Each store a test opens is a schema of its own, so tests never see each other's rows.
import { execFileSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { MessagePort } from 'node:worker_threads';
import type { Db, StoreKind } from '../../daemon/store/db.js';
import { openDatabase } from '../../daemon/store/database.js';
import type { MigrationContext } from '../../daemon/store/migrations.js';
import { openPostgresDatabase } from '../../daemon/store/postgres/open.js';
import { startDaemon, type TestDaemon } from './daemon.js';
import { tempDir } from './temp-dir.js';

export interface TestPostgres {
  url: string;
  /** Stops and starts the server (undefined for a server this process did not start). */
  restart?: () => void;
  halt?: () => void;
  start?: () => void;
}

interface Cluster {
  url: string;
  restart(): void;
  halt(): void;
  start(): void;
  stop(): void;
}

let started: Promise<TestPostgres> | undefined;

/** The PostgreSQL of this test file (SVC_TEST_PG_URL, or a throwaway cluster). */
export function testPostgres(): Promise<TestPostgres> {
  started ??= start();
  return started;
}

async function start(): Promise<TestPostgres> {
  const given = process.env.SVC_TEST_PG_URL;
  if (given) return { url: given };
  return throwawayPostgres();
}

/**
 * A throwaway cluster of this process's own, removed when it exits: for tests that stop and
 * start the server under a daemon (an outage), which a shared server must not see.
 */
export async function throwawayPostgres(): Promise<Required<TestPostgres>> {
  const module = (await import(new URL('../../scripts/pg-cluster.mjs', import.meta.url).href)) as {
    startCluster(): Promise<Cluster>;
  };
  const cluster = await module.startCluster();
  process.once('exit', () => cluster.stop());
  return {
    url: cluster.url,
    restart: () => cluster.restart(),
    halt: () => cluster.halt(),
    start: () => cluster.start(),
  };
}

/** Runs SQL over psql; answers its output (unaligned, tuples only). */
export function psql(url: string, text: string): string {
  return execFileSync('psql', [url, '-XAtq', '-v', 'ON_ERROR_STOP=1', '-c', text], {
    encoding: 'utf8',
  });
}

/** A schema name no other test uses. */
export function freshSchema(): string {
  return `t_${randomBytes(6).toString('hex')}`;
}

/** Both stores, for tests that run the same assertions on each. */
export const STORE_KINDS: readonly StoreKind[] = ['sqlite', 'postgres'];

/** A new, empty, migrated store of `kind`: SQLite in memory, or a fresh PostgreSQL schema. */
export async function openTestStore(kind: StoreKind, context: MigrationContext = {}): Promise<Db> {
  if (kind === 'sqlite') return openDatabase(':memory:', undefined, context);
  return (await storeOpener(kind, { context }))();
}

/**
 * Opens one new store of `kind` again and again (a restart of the daemon, for tests of what
 * survives one): a SQLite file in a temp dir, or one PostgreSQL schema. `migrations: false`
 * opens it without svc's schema (tests that make their own tables).
 */
export async function storeOpener(
  kind: StoreKind,
  options: { migrations?: boolean; context?: MigrationContext } = {},
): Promise<() => Db> {
  const migrations = options.migrations === false ? [] : undefined;
  if (kind === 'sqlite') {
    const file = join(tempDir(), 'svc.db');
    return () => openDatabase(file, migrations, options.context);
  }
  const { url } = await testPostgres();
  const schema = freshSchema();
  return () =>
    openPostgresDatabase({
      url,
      schema,
      context: options.context,
      ...(migrations ? { migrations } : {}),
    });
}

/**
 * Two daemons, each with a data dir of its own, serving one sandbox of the server at `url` (the
 * second given the first's key file): team mode's two members. Each is pushed to `started` as
 * soon as it runs, so a test's teardown stops it even when the other fails to start. `moreEnv`:
 * more SVC_* settings, the same for both.
 */
export async function twoDaemonsOn(
  url: string,
  sandbox: string,
  started: TestDaemon[],
  moreEnv: NodeJS.ProcessEnv = {},
): Promise<[TestDaemon, TestDaemon]> {
  const env = { ...moreEnv, SVC_STORE_URL: url };
  const a = await startDaemon({ env, args: ['--sandbox', sandbox] });
  started.push(a);
  const key = join(tempDir('svc-sandbox-key-'), 'sandbox.key');
  copyFileSync(join(a.dataDir, 'secret.key'), key);
  const b = await startDaemon({ env, args: ['--sandbox', sandbox, '--secret-key-file', key] });
  started.push(b);
  return [a, b];
}

/**
 * Counts the messages a PostgreSQL store's thread posts to its worker from now on: each is one
 * round trip to PostgreSQL, what the adapter's batching is meant to save. `reset()` starts over.
 */
export function countWorkerMessages(db: Db): { count(): number; reset(): void } {
  const port = (db as unknown as { port: MessagePort }).port;
  const post = port.postMessage.bind(port);
  let messages = 0;
  port.postMessage = (message: unknown) => {
    messages += 1;
    post(message);
  };
  return { count: () => messages, reset: () => (messages = 0) };
}
