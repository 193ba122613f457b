// What a delivery and a five-step run cost in PostgreSQL statements and round trips, counted
// from PostgreSQL's own log (issue 53's Speed point: "say where the time goes"):
// `node --import tsx bench/store-trips.ts` (after `npm run build`).
//
// A throwaway cluster (scripts/pg-cluster.mjs) is started with log_statement = 'all', a daemon
// on it with the real CLI. After a warm-up, BENCH_TRIPS_EVENTS (200) agent.created events are
// published to one webhook and delivered, then BENCH_TRIPS_RUNS (50) five-step runs are made
// (bench/cases/workflows.ts's workflow), then BENCH_TRIPS_READS (100) of each of the stores
// case's two reads (GET /v1/agents/{id}, GET /v1/events?limit=20), and the log lines and the
// worker's requests of each phase are counted:
//   - statements: the SQL statements in PostgreSQL's log (a simple query's split at `;`), each
//     counted by its verb and table (`INSERT deliveries`, `BEGIN`, ...);
//   - round trips: the requests the daemon's thread sent its PostgreSQL worker and waited for
//     (Atomics.wait), from the worker's trace (SVC_STORE_TRACE, one line per request); the
//     worker pipelines what a request carries, so each is also one round trip to PostgreSQL.
// Per operation. The team-mode heartbeat (`daemons`) is in the round trips (a few
// per 2 s) but left out of the statements: it runs on a timer, not per operation.
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, benchAgent, numberSetting, startBenchDaemon, stopSvcDaemon } from './harness.js';
import { publishEvents, waitForDeliveries } from './cases/delivery.js';
import { probe } from './cases/workflows.js';
import {
  setUpWorkload,
  startBenchCluster,
  stopWorkload,
  workflowTarget,
} from './postgres-bench.js';

const EVENTS = Math.round(numberSetting('BENCH_TRIPS_EVENTS', 200));
const RUNS = Math.round(numberSetting('BENCH_TRIPS_RUNS', 50));
const READS = Math.round(numberSetting('BENCH_TRIPS_READS', 100));

interface Entry {
  kind: 'statement' | 'execute';
  sql: string;
}

/** The log's entries from byte `from` on (continuation lines joined to their entry). */
function entriesSince(logFile: string, from: number): Entry[] {
  const text = readFileSync(logFile).subarray(from).toString('utf8');
  const entries: Entry[] = [];
  let current: Entry | undefined;
  for (const line of text.split('\n')) {
    const head = /^\S+ \S+ \S+ \[\d+\] (\w+):\s+(.*)$/.exec(line);
    if (head) {
      current = undefined;
      if (head[1] !== 'LOG') continue;
      const body = /^(statement|execute [^:]+): (.*)$/.exec(head[2]!);
      if (!body) continue;
      current = { kind: body[1] === 'statement' ? 'statement' : 'execute', sql: body[2]! };
      entries.push(current);
    } else if (current && /^\s/.test(line)) {
      current.sql += ` ${line.trim()}`;
    }
  }
  return entries;
}

const TRANSACTION_CONTROL = /^(BEGIN|SAVEPOINT|RELEASE|COMMIT|ROLLBACK)\b/i;

/** A statement's verb and table: `INSERT deliveries`, `UPDATE webhooks`, `BEGIN`, ... */
function label(statement: string): string {
  const sql = statement.replace(/\s+/g, ' ').trim();
  const verb = (/^\w+/.exec(sql)?.[0] ?? '?').toUpperCase();
  if (TRANSACTION_CONTROL.test(sql)) return verb;
  if (/pg_notify/i.test(sql)) return 'NOTIFY';
  const table =
    verb === 'INSERT'
      ? /^INSERT INTO (\w+)/i.exec(sql)?.[1]
      : verb === 'UPDATE'
        ? /^UPDATE (\w+)/i.exec(sql)?.[1]
        : /\bFROM (\w+)/i.exec(sql)?.[1];
  return `${verb} ${table ?? '?'}`;
}

interface Count {
  roundTrips: Map<string, number>;
  statements: Map<string, number>;
}

function count(entries: Entry[], roundTrips: Map<string, number>): Count {
  const result: Count = { roundTrips, statements: new Map() };
  for (const entry of entries) {
    const statements = entry.sql
      .split(/;\s*/)
      .map((part) => part.trim())
      .filter(Boolean);
    if (statements.some((statement) => /\bdaemons\b/.test(statement))) continue;
    for (const statement of statements) {
      const name = label(statement);
      result.statements.set(name, (result.statements.get(name) ?? 0) + 1);
    }
  }
  return result;
}

function print(title: string, figures: Count, per: number): void {
  const sum = (counts: Map<string, number>) => [...counts.values()].reduce((a, n) => a + n, 0);
  const f = (n: number) => (n / per).toFixed(2);
  console.log(
    `\n${title}: ${f(sum(figures.statements))} statements in ${f(sum(figures.roundTrips))} ` +
      `round trips (daemon thread -> worker -> PostgreSQL and back)`,
  );
  const names = [...new Set([...figures.roundTrips.keys(), ...figures.statements.keys()])];
  const rows = names
    .map(
      (name) =>
        [name, figures.roundTrips.get(name) ?? 0, figures.statements.get(name) ?? 0] as const,
    )
    .sort((a, b) => b[1] - a[1] || b[2] - a[2]);
  console.log('  round trips  statements');
  for (const [name, trips, statements] of rows) {
    console.log(`  ${f(trips).padStart(11)}  ${f(statements).padStart(10)}  ${name}`);
  }
}

/** Waits until the log has not grown for `quietMs` (the last commits are in). */
async function quiet(logFile: string, quietMs = 1500): Promise<void> {
  let size = statSync(logFile).size;
  for (;;) {
    await sleep(quietMs);
    const now = statSync(logFile).size;
    if (now === size) return;
    size = now;
  }
}

const cluster = await startBenchCluster();
const logFile = join(cluster.dir, 'postgres.log');
const traceFile = join(cluster.dir, 'worker-trace');
/** The worker's requests traced so far: one line each, `statements <tab> its last statement`. */
const traceLines = () =>
  existsSync(traceFile) ? readFileSync(traceFile, 'utf8').split('\n').slice(0, -1) : [];
const traced = () => traceLines().length;
/** The round trips since line `from`, by the statement each waited for (verb and table). */
const tripsSince = (from: number): Map<string, number> => {
  const trips = new Map<string, number>();
  for (const line of traceLines().slice(from)) {
    const name = label(line.slice(line.indexOf('\t') + 1));
    trips.set(name, (trips.get(name) ?? 0) + 1);
  }
  return trips;
};
const cleanups: (() => Promise<void> | void)[] = [() => cluster.stop()];
try {
  cluster.sql("ALTER SYSTEM SET log_statement = 'all'");
  cluster.sql('SELECT pg_reload_conf()');
  const daemon = await startBenchDaemon({
    SVC_STORE_URL: cluster.url,
    SVC_STORE_TRACE: traceFile,
  });
  cleanups.unshift(async () => {
    await stopSvcDaemon(daemon);
    rmSync(daemon.dataDir, { recursive: true, force: true });
  });
  await benchAgent(daemon);
  const workload = await setUpWorkload(daemon);
  cleanups.unshift(() => stopWorkload(workload));
  const deliveries = workload.deliveryReceiver;
  const target = workflowTarget(daemon);
  const runPath = workload.runsPath;
  // Warm-up: every statement prepared once, the caches filled.
  await publishEvents(daemon, 20, 0, 4);
  await waitForDeliveries(deliveries, 20);
  for (let index = 0; index < 5; index += 1) await probe(target, runPath);
  await quiet(logFile);

  let from = statSync(logFile).size;
  let fromTrace = traced();
  await publishEvents(daemon, EVENTS, 20);
  await waitForDeliveries(deliveries, 20 + EVENTS);
  await quiet(logFile);
  const delivered = count(entriesSince(logFile, from), tripsSince(fromTrace));

  from = statSync(logFile).size;
  fromTrace = traced();
  // Four at a time, as requests arrive together under load (the group commit shares them).
  for (let index = 0; index < RUNS; index += 4) {
    await Promise.all(
      Array.from({ length: Math.min(4, RUNS - index) }, () => probe(target, runPath)),
    );
  }
  await quiet(logFile);
  const ran = count(entriesSince(logFile, from), tripsSince(fromTrace));

  // The two reads of the stores case, one request at a time.
  const reads: [string, Count][] = [];
  for (const path of [`/v1/agents/${daemon.agentId}`, '/v1/events?limit=20']) {
    from = statSync(logFile).size;
    fromTrace = traced();
    for (let index = 0; index < READS; index += 1) await api(daemon, 'GET', path);
    await quiet(logFile);
    reads.push([path, count(entriesSince(logFile, from), tripsSince(fromTrace))]);
  }

  print(`Per delivery (${EVENTS} events published, each delivered once)`, delivered, EVENTS);
  print(`Per five-step run (${RUNS} runs, 4 at a time)`, ran, RUNS);
  for (const [path, figures] of reads)
    print(`Per GET ${path} (${READS}, one at a time)`, figures, READS);
} finally {
  for (const cleanup of cleanups) await cleanup();
}
