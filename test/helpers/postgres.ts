// PostgreSQL for unit tests: the one given by SVC_TEST_PG_URL (CI, a developer's own), or a
// throwaway cluster from the machine's binaries (scripts/pg-cluster.mjs: initdb into a temp
// dir, a free port, fsync off), started once per test file's process and removed when it exits.
// Each store a test opens is a schema of its own, so tests never see each other's rows.
import { randomBytes } from 'node:crypto';
import type { Db, StoreKind } from '../../daemon/store/db.js';
import { openDatabase } from '../../daemon/store/database.js';
import type { MigrationContext } from '../../daemon/store/migrations.js';
import { openPostgresDatabase } from '../../daemon/store/postgres/open.js';

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

/** A schema name no other test uses. */
export function freshSchema(): string {
  return `t_${randomBytes(6).toString('hex')}`;
}

/** Both stores, for tests that run the same assertions on each. */
export const STORE_KINDS: readonly StoreKind[] = ['sqlite', 'postgres'];

/** A new, empty, migrated store of `kind`: SQLite in memory, or a fresh PostgreSQL schema. */
export async function openTestStore(kind: StoreKind, context: MigrationContext = {}): Promise<Db> {
  if (kind === 'sqlite') return openDatabase(':memory:', undefined, context);
  const { url } = await testPostgres();
  return openPostgresDatabase({ url, schema: freshSchema(), context });
}
