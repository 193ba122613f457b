// The stores case of `npm run bench`: the same daemon on SQLite and on PostgreSQL, side by side
// in one run (issue 53: PostgreSQL mode gets its own rows, aiming at a third of SQLite's).
//
// A throwaway PostgreSQL cluster is started from the machine's binaries (scripts/pg-cluster.mjs:
// initdb into a temp dir, loopback TCP, fsync off as for tests: SQLite in WAL mode with
// synchronous=NORMAL does not wait for the disk at a commit either), and two daemons are
// started with the real CLI: one on its data dir's SQLite file, one with SVC_STORE_URL on that
// cluster (its own schema). No binaries: the case prints a line saying so and measures nothing.
// Each measure loads the two daemons one after the other, alternating which goes first per
// round (BENCH_ROUNDS), so that both see the same machine:
//   five-step runs/s: the workflows case's durable five-step run, wait_for_completion, 50
//     connections (bench/cases/workflows.ts), every run completed, one webhook call each;
//   deliveries/s: the delivery case's closed loop (bench/cases/delivery.ts), BENCH_STORE_EVENTS
//     (2000) agent.created events published through the control channel, sustained deliveries
//     per second at the receiver, every event exactly once or the case fails;
//   GET /v1/agents/{id} and GET /v1/events?limit=20 (200 events seeded): req/s under autocannon
//     (BENCH_CONNECTIONS), every answer 200.
// Beside req/s: the daemon's CPU µs per request and, for PostgreSQL, the server's (the
// postmaster and its backends), so the time a request waits on its statements' round trips
// shows as latency that is neither (docs/performance.md reads these figures).
import { rmSync } from 'node:fs';
import {
  apiHeaders,
  benchAgent,
  cpuSeconds,
  median,
  numberSetting,
  roundOrder,
  settings,
  startBenchDaemon,
  stopChild,
  stopSvcDaemon,
  table,
  type BenchCase,
  type Daemon,
} from '../harness.js';
import { loadWithCpu } from '../load.js';
import {
  serverPid,
  setUpWorkload,
  startBenchCluster,
  treeCpuSeconds,
  workflowTarget,
  type Cluster,
  type Workload,
} from '../postgres-bench.js';
import { publishEvents, runClosedLoop, waitForDeliveries } from './delivery.js';
import { load as loadRuns, settle as settleRuns } from './workflows.js';

const EVENTS = Math.round(numberSetting('BENCH_STORE_EVENTS', 2000));
const RUN_CONNECTIONS = Math.round(numberSetting('BENCH_WORKFLOW_CONNECTIONS', 50));
const EVENTS_TO_SEED = 200;

type Kind = 'SQLite' | 'PostgreSQL';

/** One store's daemon and what the measures need on it. */
interface Subject extends Workload {
  kind: Kind;
  daemon: Daemon;
  /** PostgreSQL's server processes (the postmaster's pid), for their CPU time. */
  serverPid: number | undefined;
}

/** One measure of one store: rate, latency and CPU per operation (daemon, database server). */
interface Figures {
  perSecond: number;
  p99: number | undefined;
  daemonCpuUs: number | undefined;
  serverCpuUs: number | undefined;
}

/** Runs `work` and answers its figures, CPU per operation of the ones it reports. */
async function measured(
  subject: Subject,
  work: () => Promise<{ perSecond: number; p99?: number; operations: number }>,
): Promise<Figures> {
  const daemonBefore = cpuSeconds(subject.daemon.pid);
  const serverBefore = subject.serverPid ? treeCpuSeconds(subject.serverPid) : undefined;
  const { perSecond, p99, operations } = await work();
  const daemonAfter = cpuSeconds(subject.daemon.pid);
  const serverAfter = subject.serverPid ? treeCpuSeconds(subject.serverPid) : undefined;
  const per = (before: number | undefined, after: number | undefined) =>
    before === undefined || after === undefined || operations === 0
      ? undefined
      : ((after - before) * 1e6) / operations;
  return {
    perSecond,
    p99,
    daemonCpuUs: per(daemonBefore, daemonAfter),
    serverCpuUs: per(serverBefore, serverAfter),
  };
}

/** A GET every answer of which must be 200; autocannon with the bench's settings. */
async function loadGet(subject: Subject, path: string, seconds: number) {
  const { result, figures } = await loadWithCpu(subject.daemon.pid, {
    url: `${subject.daemon.url}${path}`,
    headers: apiHeaders(subject.daemon),
    connections: settings.connections,
    pipelining: settings.pipelining,
    duration: seconds,
  });
  const total = result.requests.total;
  if (result.errors > 0 || result.timeouts > 0 || result['2xx'] !== total || total === 0) {
    throw new Error(
      `the ${subject.kind} daemon did not answer 200 to every GET ${path} (errors ` +
        `${result.errors}, timeouts ${result.timeouts}, 2xx ${result['2xx']} of ${total})`,
    );
  }
  return { perSecond: figures.reqPerSec, p99: figures.p99, operations: total };
}

interface Measure {
  name: string;
  unit: string;
  run(subject: Subject, round: number): Promise<Figures>;
}

const measures: Measure[] = [
  {
    name: 'five-step runs/s',
    unit: 'run',
    async run(subject) {
      const target = workflowTarget(subject.daemon);
      await loadRuns(target, subject.runsPath, settings.engineWarmupSeconds, RUN_CONNECTIONS);
      return measured(subject, async () => {
        const figures = await loadRuns(target, subject.runsPath, settings.seconds, RUN_CONNECTIONS);
        return { perSecond: figures.reqPerSec, p99: figures.p99, operations: figures.requests };
      });
    },
  },
  {
    name: 'deliveries/s',
    unit: 'delivery',
    async run(subject, round) {
      return measured(subject, async () => {
        const figures = await runClosedLoop(
          subject.daemon,
          subject.deliveryReceiver,
          EVENTS,
          EVENTS_TO_SEED + round * EVENTS,
        );
        if (figures.missing > 0 || figures.deliveriesPerSecond === undefined) {
          throw new Error(
            `the ${subject.kind} daemon delivered ${EVENTS - figures.missing} of ${EVENTS} events`,
          );
        }
        return {
          perSecond: figures.deliveriesPerSecond,
          p99: figures.latency?.p99,
          operations: figures.arrivals,
        };
      });
    },
  },
  {
    name: 'GET /v1/agents/{id} req/s',
    unit: 'request',
    async run(subject) {
      const path = `/v1/agents/${subject.daemon.agentId}`;
      await loadGet(subject, path, settings.warmupSeconds);
      return measured(subject, () => loadGet(subject, path, settings.seconds));
    },
  },
  {
    name: 'GET /v1/events?limit=20 req/s',
    unit: 'request',
    async run(subject) {
      const path = '/v1/events?limit=20';
      await loadGet(subject, path, settings.warmupSeconds);
      return measured(subject, () => loadGet(subject, path, settings.seconds));
    },
  },
];

/** A daemon on `kind` with the agent, the five-step workflow, a webhook and seeded events. */
async function prepare(kind: Kind, cluster: Cluster): Promise<Subject> {
  const daemon = await startBenchDaemon({ SVC_STORE_URL: kind === 'SQLite' ? '' : cluster.url });
  let workload: Workload | undefined;
  try {
    await benchAgent(daemon);
    workload = await setUpWorkload(daemon);
    // The events list's rows and the delivery warm-up in one: the webhook hears them all.
    await publishEvents(daemon, EVENTS_TO_SEED, 0);
    await waitForDeliveries(workload.deliveryReceiver, EVENTS_TO_SEED);
    return {
      kind,
      daemon,
      ...workload,
      serverPid: kind === 'PostgreSQL' ? serverPid(cluster) : undefined,
    };
  } catch (error) {
    await release({ daemon, ...workload });
    throw error;
  }
}

async function release(subject: Partial<Subject>): Promise<void> {
  if (subject.runsReceiver) await stopChild(subject.runsReceiver.child);
  if (subject.deliveryReceiver) await stopChild(subject.deliveryReceiver.child);
  if (subject.daemon) {
    await stopSvcDaemon(subject.daemon);
    rmSync(subject.daemon.dataDir, { recursive: true, force: true });
  }
}

interface StoresResult {
  rows: { measure: Measure; figures: Record<Kind, Figures[]> }[];
  /** Runs completed and webhook calls received, per store: equal, or the case fails. */
  runs: Record<Kind, { runs: number; calls: number }>;
}

async function benchStores(cluster: Cluster): Promise<StoresResult> {
  const subjects: Subject[] = [];
  try {
    for (const kind of ['SQLite', 'PostgreSQL'] as const) {
      subjects.push(await prepare(kind, cluster));
    }
    const rows: StoresResult['rows'] = [];
    for (const measure of measures) {
      const figures: Record<Kind, Figures[]> = { SQLite: [], PostgreSQL: [] };
      for (let round = 0; round < settings.rounds; round += 1) {
        for (const subject of roundOrder(subjects, round)) {
          process.stdout.write(
            `  stores: ${measure.name}, ${subject.kind} (round ${round + 1}/${settings.rounds}) ...`,
          );
          const result = await measure.run(subject, round);
          figures[subject.kind].push(result);
          process.stdout.write(` ${result.perSecond.toFixed(0)}\n`);
        }
      }
      rows.push({ measure, figures });
    }
    const runs = {} as StoresResult['runs'];
    for (const subject of subjects) {
      const settled = await settleRuns(
        workflowTarget(subject.daemon),
        subject.runsPath,
        subject.runsReceiver,
      );
      if (settled.calls !== settled.runs) {
        throw new Error(
          `${subject.kind}: ${settled.runs} runs completed but the receiver got ${settled.calls} webhook calls`,
        );
      }
      runs[subject.kind] = settled;
    }
    return { rows, runs };
  } finally {
    for (const subject of subjects) await release(subject);
  }
}

const fixed = (value: number | undefined, digits = 0) =>
  value === undefined ? '-' : value.toFixed(digits);

function meanOf(figures: Figures[], pick: (figures: Figures) => number | undefined) {
  const values = figures.map(pick);
  return values.every((value) => value !== undefined)
    ? values.reduce((sum, value) => sum + value!, 0) / values.length
    : undefined;
}

function printStores(result: StoresResult): void {
  const rows = result.rows.map(({ measure, figures }) => {
    const sqlite = meanOf(figures.SQLite, (f) => f.perSecond)!;
    const postgres = meanOf(figures.PostgreSQL, (f) => f.perSecond)!;
    const p99 = (kind: Kind) => median(figures[kind].map((f) => f.p99 ?? Number.NaN));
    return [
      measure.name,
      fixed(sqlite),
      fixed(postgres),
      `${fixed(postgres / sqlite, 2)}${postgres / sqlite < 1 / 3 ? ' (under 1/3)' : ''}`,
      `${fixed(p99('SQLite'), 1)} / ${fixed(p99('PostgreSQL'), 1)}`,
      `${fixed(meanOf(figures.SQLite, (f) => f.daemonCpuUs))} / ${fixed(
        meanOf(figures.PostgreSQL, (f) => f.daemonCpuUs),
      )} + ${fixed(meanOf(figures.PostgreSQL, (f) => f.serverCpuUs))}`,
      measure.unit,
    ];
  });
  console.log(
    table(
      [
        'measure',
        'SQLite',
        'PostgreSQL',
        'PG / SQLite (aim 1/3)',
        'p99 ms SQLite / PG',
        'CPU µs: SQLite / PG daemon + PG server',
        'per',
      ],
      rows,
    ),
  );
  console.log(
    `  runs completed / webhook calls: SQLite ${result.runs.SQLite.runs} / ${result.runs.SQLite.calls}, ` +
      `PostgreSQL ${result.runs.PostgreSQL.runs} / ${result.runs.PostgreSQL.calls}; deliveries exactly once on both`,
  );
}

const storesCase: BenchCase = {
  order: 95,
  needs: 'standalone',
  describe: () =>
    `stores: the daemon on SQLite and on PostgreSQL (a throwaway local cluster): five-step runs/s, ` +
    `deliveries/s (${EVENTS} events), GET /v1/agents/{id} and GET /v1/events?limit=20, ` +
    `${settings.seconds} s x ${settings.rounds} round(s) each`,
  async run() {
    const heading =
      '\nStores: the same daemon on SQLite (its data dir) and on PostgreSQL (a throwaway local cluster, fsync off)';
    let cluster: Cluster;
    try {
      cluster = await startBenchCluster();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return {
        print: () => console.log(`${heading}\n  PostgreSQL rows skipped: ${reason}`),
        missed: 0,
      };
    }
    try {
      const result = await benchStores(cluster);
      return {
        print: () => {
          console.log(heading);
          printStores(result);
        },
        missed: 0,
      };
    } finally {
      cluster.stop();
    }
  },
};

export default storesCase;
