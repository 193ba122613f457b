// What one statement costs through the store port on each adapter, measured in one run:
// `node --import tsx bench/store-statements.ts`. SQLite is a file in WAL mode as the daemon
// opens it (synchronous=NORMAL); PostgreSQL a throwaway cluster on this machine (loopback TCP)
// with fsync on, as a real one, or the server SVC_TEST_PG_URL names. Prints µs per operation
// (median of BENCH_STORE_ROUNDS rounds) and the ratio PostgreSQL / SQLite.
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../daemon/store/database.js';
import type { Db } from '../daemon/store/db.js';
import { openPostgresDatabase } from '../daemon/store/postgres/open.js';
import { freshSchema } from '../test/helpers/postgres.js';
import { tempDir } from '../test/helpers/temp-dir.js';

const ROUNDS = Number(process.env.BENCH_STORE_ROUNDS ?? 5);
const N = Number(process.env.BENCH_STORE_N ?? 500);

interface Cluster {
  url: string;
  sql(text: string): string;
  stop(): void;
}

async function postgresUrl(): Promise<{ url: string; stop: () => void }> {
  if (process.env.SVC_TEST_PG_URL) return { url: process.env.SVC_TEST_PG_URL, stop: () => {} };
  const module = (await import(new URL('../scripts/pg-cluster.mjs', import.meta.url).href)) as {
    startCluster(): Promise<Cluster>;
  };
  const cluster = await module.startCluster();
  // The test cluster starts with fsync off; a store that keeps what it acknowledged has it on.
  cluster.sql('ALTER SYSTEM SET fsync = on');
  cluster.sql('SELECT pg_reload_conf()');
  return { url: cluster.url, stop: () => cluster.stop() };
}

let serial = 0;

/** µs per call of `op`, the median of ROUNDS rounds of N calls. */
function measure(op: () => void): number {
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const start = process.hrtime.bigint();
    for (let index = 0; index < N; index += 1) op();
    rounds.push(Number(process.hrtime.bigint() - start) / 1000 / N);
  }
  rounds.sort((a, b) => a - b);
  return rounds[Math.floor(rounds.length / 2)]!;
}

function operations(db: Db): Record<string, number> {
  db.prepare("INSERT INTO settings (key, value) VALUES ('bench', 'x')").run();
  const read = db.prepare('SELECT value FROM settings WHERE key = ?');
  const insert = db.prepare(
    'INSERT INTO events (id, workspace_id, type, created_at, envelope) VALUES (?, ?, ?, ?, ?)',
  );
  const envelope = JSON.stringify({ data: { n: 1, text: 'x'.repeat(200) } });
  const row = () => {
    serial += 1;
    insert.run(`evt_${serial}`, 'ws_bench', 'bench.event', serial, envelope);
  };
  const figures: Record<string, number> = {};
  figures['point read (get by primary key)'] = measure(() => read.get('bench'));
  let inTransaction = 0;
  db.transaction(() => {
    inTransaction = measure(row);
  })();
  figures['insert inside a transaction'] = inTransaction;
  figures['transaction of one insert (begin, insert, commit)'] = measure(() =>
    db.transaction(row)(),
  );
  figures['transaction of 20 inserts, per insert'] =
    measure(() =>
      db.transaction(() => {
        for (let index = 0; index < 20; index += 1) row();
      })(),
    ) / 20;
  return figures;
}

const dir = tempDir('svc-bench-store-');
const sqlite = openDatabase(join(dir, 'svc.db'));
const postgres = await postgresUrl();
const pg = openPostgresDatabase({ url: postgres.url, schema: freshSchema() });
try {
  console.log(
    `load average ${loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')}; ${ROUNDS} x ${N}`,
  );
  const onSqlite = operations(sqlite);
  const onPostgres = operations(pg);
  console.log('µs per operation          SQLite   PostgreSQL   ratio');
  for (const name of Object.keys(onSqlite)) {
    const a = onSqlite[name]!;
    const b = onPostgres[name]!;
    console.log(
      `${name.padEnd(52)} ${a.toFixed(1).padStart(8)} ${b.toFixed(1).padStart(10)} ${(b / a).toFixed(1).padStart(7)}x`,
    );
  }
} finally {
  pg.close();
  sqlite.close();
  postgres.stop();
  rmSync(dir, { recursive: true, force: true });
}
