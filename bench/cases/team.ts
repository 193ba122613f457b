// The team case of `npm run bench` (issue 54, "Scale, measured"): one, two and three daemons
// serving one PostgreSQL sandbox, side by side in one run, requests spread over the daemons.
//
// A throwaway PostgreSQL cluster is started from the machine's binaries (scripts/pg-cluster.mjs,
// fsync off, as the stores case), and daemons are started with the real CLI on one sandbox
// (`--sandbox bench_team` through SVC_SANDBOX, the first one's key file given to the others).
// Daemons are added and removed between measures, so that each configuration has exactly its
// daemons (an idle third daemon would still claim due timers): round 1 measures one, then two,
// then three daemons; round 2 three, two, one (BENCH_ROUNDS; who goes first alternates as in
// every case, so the machine's drift falls on both ends).
//   five-step runs/s: the workflows case's durable five-step run with wait_for_completion
//     (bench/cases/workflows.ts), BENCH_WORKFLOW_CONNECTIONS (50, rounded up to a multiple of
//     the daemons) connections, autocannon's round robin over the daemons' URLs; every answer
//     200 with a completed run, and at the end one webhook call per run;
//   deliveries/s: BENCH_TEAM_EVENTS (1000) agent.created events published through the control
//     channels, the daemons in turn (each gets its share, BENCH_DELIVERY_CONCURRENCY requests
//     in flight in all), sustained deliveries per second at one receiver; every event exactly
//     once or the case fails.
// Where the time goes: CPU seconds from /proc over each measured window, per daemon, of
// PostgreSQL (the postmaster and its backends), of this process (the load generator) and of the
// receivers; printed as CPU µs per operation and as cores busy (CPU seconds / wall seconds), so
// the ceiling shows: the machine's cores all busy, or one process at one core.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import autocannon from 'autocannon';
import {
  api,
  apiHeaders,
  CLOCK_TICKS,
  cpuSeconds,
  numberSetting,
  settings,
  startBenchDaemon,
  startSvcDaemon,
  stopChild,
  stopSvcDaemon,
  table,
  wallNow,
  type BenchCase,
  type Daemon,
} from '../harness.js';
import { arrivalsOf, publishEvents, waitForDeliveries } from './delivery.js';
import {
  serverPid,
  setUpWorkload,
  startBenchCluster,
  treeCpuSeconds,
  workflowTarget,
  type Cluster,
  type Workload,
} from '../postgres-bench.js';
import { settle as settleRuns } from './workflows.js';

const EVENTS = Math.round(numberSetting('BENCH_TEAM_EVENTS', 1000));
const RUN_CONNECTIONS = Math.round(numberSetting('BENCH_WORKFLOW_CONNECTIONS', 50));
const MAX_DAEMONS = 3;
/** Seconds a five-step run may take to answer before it counts as a failure. */
const RUN_TIMEOUT_S = 120;
const SANDBOX = 'bench_team';
const RUN_BODY = JSON.stringify({
  input: { text: 'Where is my order 1234?', amount: 120 },
  wait_for_completion: true,
});

/**
 * CPU seconds of a daemon's threads by kind: its main thread (requests, the engine), the
 * PostgreSQL adapter's worker (node-postgres, one hop per statement) and the rest (V8's GC and
 * compiler threads, libuv's pool, other workers). The adapter's thread is named `svc-postgres`
 * (daemon/store/postgres/postgres-db.ts), which /proc shows.
 */
function threadCpuSeconds(pid: number): { main: number; worker: number; other: number } {
  const split = { main: 0, worker: 0, other: 0 };
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return split;
  }
  for (const task of tasks) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const seconds = taskSeconds(stat);
      if (Number(task) === pid) split.main += seconds;
      else if (name === 'svc-postgres') split.worker += seconds;
      else split.other += seconds;
    } catch {
      // Gone meanwhile.
    }
  }
  return split;
}

function taskSeconds(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** Everything the measures need: the cluster, the first daemon's sandbox, the receivers. */
interface Team extends Workload {
  cluster: Cluster;
  serverPid: number;
  daemons: Daemon[];
}

/** One more daemon on the team's sandbox, with the first one's key file and bench key. */
async function join_(team: Team): Promise<Daemon> {
  const first = team.daemons[0]!;
  const daemon = await startSvcDaemon({
    SVC_STORE_URL: team.cluster.url,
    SVC_SANDBOX: SANDBOX,
    SVC_SECRET_KEY_FILE: join(first.dataDir, 'secret.key'),
  });
  daemon.key = first.key;
  daemon.workspaceId = first.workspaceId;
  daemon.agentId = first.agentId;
  team.daemons.push(daemon);
  return daemon;
}

async function leave(team: Team): Promise<void> {
  const daemon = team.daemons.pop()!;
  await stopSvcDaemon(daemon);
  // BENCH_KEEP_DIRS=1 keeps the daemons' data dirs (their logs) for a look after the run.
  if (!process.env.BENCH_KEEP_DIRS) rmSync(daemon.dataDir, { recursive: true, force: true });
  else console.log(`  kept ${daemon.dataDir}`);
}

/** Starts or stops daemons (the last ones joined) until `count` serve the sandbox. */
async function resize(team: Team, count: number): Promise<void> {
  while (team.daemons.length < count) await join_(team);
  while (team.daemons.length > count) await leave(team);
}

/** CPU seconds so far of each part, read together. */
interface CpuReading {
  at: number;
  daemons: { main: number; worker: number; other: number }[];
  postgres: number;
  bench: number;
  receivers: number;
}

function readCpu(team: Team): CpuReading {
  const usage = process.cpuUsage();
  return {
    at: wallNow(),
    daemons: team.daemons.map((daemon) => threadCpuSeconds(daemon.pid)),
    postgres: treeCpuSeconds(team.serverPid) ?? 0,
    bench: (usage.user + usage.system) / 1e6,
    receivers:
      (cpuSeconds(team.runsReceiver.child.pid!) ?? 0) +
      (cpuSeconds(team.deliveryReceiver.child.pid!) ?? 0),
  };
}

/** One measure of one configuration: its rate and where the CPU went meanwhile. */
interface Figures {
  daemons: number;
  perSecond: number;
  p99: number | undefined;
  operations: number;
  /** Runs answered 500 step_failed (five-step runs only). */
  failed: number;
  /** Runs answered 202: still running after 60 s of sandbox time (five-step runs only). */
  unfinished: number;
  seconds: number;
  /** CPU seconds over the window: each daemon's main thread, PG worker, rest; PG; bench; receivers. */
  cpu: {
    daemons: { main: number; worker: number; other: number }[];
    postgres: number;
    bench: number;
    receivers: number;
  };
}

function spent(before: CpuReading, after: CpuReading): Figures['cpu'] & { seconds: number } {
  return {
    seconds: (after.at - before.at) / 1000,
    daemons: after.daemons.map((daemon, index) => ({
      main: daemon.main - before.daemons[index]!.main,
      worker: daemon.worker - before.daemons[index]!.worker,
      other: daemon.other - before.daemons[index]!.other,
    })),
    postgres: after.postgres - before.postgres,
    bench: after.bench - before.bench,
    receivers: after.receivers - before.receivers,
  };
}

/**
 * The daemons' logged errors and 5xx answers (their logs go with their data dirs): why a run
 * failed. Logs are written in batches every 200 ms: call it after that.
 */
function loggedErrors(team: Team): string {
  const lines = team.daemons.flatMap((daemon, index) => {
    try {
      return readFileSync(join(daemon.dataDir, 'logs', 'daemon.log'), 'utf8')
        .split('\n')
        .filter((line) => /"level":(50|60)|"status":5\d\d/.test(line))
        .slice(0, 4)
        .map((line) => `\n  daemon ${index + 1}: ${line.slice(0, 1500)}`);
    } catch {
      return [];
    }
  });
  return lines.join('');
}

/**
 * Five-step runs over every daemon (autocannon's round robin over their URLs). A warm-up may
 * end before any run did on a loaded machine; a measured load must have runs, all 200.
 */
async function loadRuns(team: Team, seconds: number, warmUp = false) {
  const count = team.daemons.length;
  const connections = Math.ceil(RUN_CONNECTIONS / count) * count;
  const result = await autocannon({
    // autocannon takes several URLs and spreads its connections over them in turn (its README:
    // "More than one URL is allowed"); its types say string only.
    url: team.daemons.map((daemon) => `${daemon.url}${team.runsPath}`) as unknown as string,
    method: 'POST',
    headers: { ...apiHeaders(team.daemons[0]!), 'content-type': 'application/json' },
    body: RUN_BODY,
    connections,
    duration: seconds,
    // A run answers once completed; on a loaded machine that can take over autocannon's 10 s.
    timeout: RUN_TIMEOUT_S,
  });
  // A run that failed (500 step_failed) is counted and reported with its stored error
  // (failedRuns), one still running after 60 s of sandbox time (202, a loaded machine) counted
  // as such; anything else is a bench that cannot be read.
  const other = Object.entries(result.statusCodeStats ?? {})
    .filter(([code, stats]) => !['200', '202', '500'].includes(code) && (stats.count ?? 0) > 0)
    .map(([code, stats]) => `${code} x${stats.count}`);
  if (
    result.errors > 0 ||
    result.timeouts > 0 ||
    other.length ||
    (!warmUp && result['2xx'] === 0)
  ) {
    await sleep(500);
    throw new Error(
      `${count} daemon(s) did not answer 200 to every run (errors ${result.errors}, timeouts ` +
        `${result.timeouts}, other statuses ${other.join(', ') || 'none'}); the figures would mean nothing.` +
        loggedErrors(team),
    );
  }
  return result;
}

async function measureRuns(team: Team): Promise<Figures> {
  await loadRuns(team, settings.engineWarmupSeconds, true);
  const before = readCpu(team);
  const result = await loadRuns(team, settings.seconds);
  const { seconds, ...cpu } = spent(before, readCpu(team));
  return {
    daemons: team.daemons.length,
    perSecond: result.requests.average,
    p99: result.latency.p99,
    operations: result.requests.total,
    failed: result.statusCodeStats?.['500']?.count ?? 0,
    unfinished: result.statusCodeStats?.['202']?.count ?? 0,
    seconds,
    cpu,
  };
}

/** The stored errors of failed runs (at most 5): which step, which error. */
async function failedRuns(team: Team): Promise<string[]> {
  const path = `${team.runsPath.replace(/\/execute$/, '')}/executions?status=failed&limit=5`;
  const runs = await api<
    {
      execution_id: string;
      failed_step: string | null;
      error: { code: string; message: string } | null;
      step_results: { step_id: string; error: { code: string; message: string } | null }[];
    }[]
  >(team.daemons[0]!, 'GET', path);
  return runs.map((run) => {
    const step = run.step_results.find((result) => result.step_id === run.failed_step);
    return (
      `${run.execution_id}: step ${run.failed_step ?? '-'}: ${run.error?.code ?? '-'} ` +
      `(${(step?.error ?? run.error)?.message ?? ''})`
    );
  });
}

/** EVENTS events published through the daemons in turn; sustained deliveries/s at the receiver. */
async function measureDeliveries(team: Team, offset: number): Promise<Figures> {
  const receiver = team.deliveryReceiver;
  await receiver.ask('reset');
  const count = team.daemons.length;
  const before = readCpu(team);
  const shares = team.daemons.map(
    (daemon, index) =>
      [daemon, Math.floor(EVENTS / count) + (index < EVENTS % count ? 1 : 0)] as const,
  );
  let start = offset;
  const published = await Promise.all(
    shares.map(([daemon, share]) => {
      const from = start;
      start += share;
      return publishEvents(daemon, share, from, Math.ceil(settings.deliveryConcurrency / count));
    }),
  );
  const acks = new Map(published.flatMap((part) => [...part.acks]));
  await waitForDeliveries(receiver, EVENTS);
  const after = readCpu(team);
  const { firstArrival, duplicates, arrivals, firstAt, lastAt } = arrivalsOf(
    await receiver.ask('report'),
    { acks },
  );
  if (firstArrival.size !== EVENTS || duplicates > 0) {
    throw new Error(
      `${count} daemon(s) delivered ${firstArrival.size} of ${EVENTS} events (${duplicates} twice)`,
    );
  }
  const { seconds, ...cpu } = spent(before, after);
  return {
    daemons: count,
    perSecond: arrivals > 1 ? (arrivals * 1000) / (lastAt - firstAt) : 0,
    p99: undefined,
    operations: arrivals,
    failed: 0,
    unfinished: 0,
    seconds,
    cpu,
  };
}

async function prepare(cluster: Cluster): Promise<Team> {
  const first = await startBenchDaemon({ SVC_STORE_URL: cluster.url, SVC_SANDBOX: SANDBOX });
  const team: Partial<Team> & { daemons: Daemon[] } = { cluster, daemons: [first] };
  try {
    Object.assign(team, await setUpWorkload(first));
    team.serverPid = serverPid(cluster);
    return team as Team;
  } catch (error) {
    await release(team);
    throw error;
  }
}

async function release(team: Partial<Team> & { daemons: Daemon[] }): Promise<void> {
  if (team.runsReceiver) await stopChild(team.runsReceiver.child);
  if (team.deliveryReceiver) await stopChild(team.deliveryReceiver.child);
  while (team.daemons.length > 0) await leave(team as Team);
}

interface TeamResult {
  runs: Figures[];
  deliveries: Figures[];
  settled: { runs: number; calls: number } | undefined;
  /** Stored errors of runs that failed, when some did. */
  failures: string[];
  load: number[];
}

/** 1, 2, 3 daemons in round 1; 3, 2, 1 in round 2; and so on. */
function sizes(round: number): number[] {
  const up = Array.from({ length: MAX_DAEMONS }, (_, index) => index + 1);
  return round % 2 === 0 ? up : up.reverse();
}

async function benchTeam(cluster: Cluster): Promise<TeamResult> {
  const team = await prepare(cluster);
  try {
    const result: TeamResult = {
      runs: [],
      deliveries: [],
      settled: undefined,
      failures: [],
      load: [],
    };
    // A first delivery round on one daemon, forgotten: JIT, connections.
    await measureDeliveries(team, 0);
    let offset = EVENTS;
    for (let round = 0; round < settings.rounds; round += 1) {
      for (const count of sizes(round)) {
        await resize(team, count);
        result.load.push(loadavg()[0]!);
        const label = `  team: ${count} daemon(s) (round ${round + 1}/${settings.rounds})`;
        process.stdout.write(`${label}: five-step runs/s ...`);
        const runs = await measureRuns(team);
        result.runs.push(runs);
        process.stdout.write(` ${runs.perSecond.toFixed(0)}; deliveries/s ...`);
        const deliveries = await measureDeliveries(team, offset);
        offset += EVENTS;
        result.deliveries.push(deliveries);
        process.stdout.write(` ${deliveries.perSecond.toFixed(0)}\n`);
      }
    }
    if (result.runs.some((figures) => figures.failed + figures.unfinished > 0)) {
      result.failures = await failedRuns(team);
      return result;
    }
    const first = team.daemons[0]!;
    result.settled = await settleRuns(workflowTarget(first), team.runsPath, team.runsReceiver);
    if (result.settled.calls !== result.settled.runs) {
      throw new Error(
        `${result.settled.runs} runs completed but the receiver got ${result.settled.calls} webhook calls`,
      );
    }
    return result;
  } finally {
    await release(team);
  }
}

const fixed = (value: number | undefined, digits = 0) =>
  value === undefined || !Number.isFinite(value) ? '-' : value.toFixed(digits);

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** The rows of one measure, one per number of daemons, its rounds combined. */
function rowsOf(figures: Figures[], withP99: boolean): string[][] {
  const rows: string[][] = [];
  for (let count = 1; count <= MAX_DAEMONS; count += 1) {
    const mine = figures.filter((figure) => figure.daemons === count);
    if (mine.length === 0) continue;
    const rate = mean(mine.map((figure) => figure.perSecond));
    const operations = mine.reduce((sum, figure) => sum + figure.operations, 0);
    const seconds = mine.reduce((sum, figure) => sum + figure.seconds, 0);
    const total = (pick: (cpu: Figures['cpu']) => number) =>
      mine.reduce((sum, figure) => sum + pick(figure.cpu), 0);
    const daemonPart = (part: 'main' | 'worker' | 'other') =>
      total((cpu) => cpu.daemons.reduce((sum, daemon) => sum + daemon[part], 0));
    const main = daemonPart('main');
    const worker = daemonPart('worker');
    const other = daemonPart('other');
    const postgres = total((cpu) => cpu.postgres);
    const bench = total((cpu) => cpu.bench);
    const receivers = total((cpu) => cpu.receivers);
    const perOp = (cpuSeconds: number) => fixed((cpuSeconds * 1e6) / operations);
    const cores = (cpuSeconds: number) => fixed(cpuSeconds / seconds, 2);
    // Each daemon's share of the cores, to show whether one of them is the ceiling.
    const each = Array.from({ length: count }, (_, index) =>
      cores(
        mine.reduce((sum, figure) => {
          const daemon = figure.cpu.daemons[index]!;
          return sum + daemon.main + daemon.worker + daemon.other;
        }, 0),
      ),
    ).join('+');
    rows.push([
      String(count),
      fixed(rate),
      ...(withP99
        ? [
            fixed(Math.max(...mine.map((figure) => figure.p99 ?? Number.NaN)), 0),
            `${mine.reduce((sum, figure) => sum + figure.failed, 0)} / ${mine.reduce(
              (sum, figure) => sum + figure.unfinished,
              0,
            )}`,
          ]
        : []),
      `${perOp(main)} / ${perOp(worker)} / ${perOp(other)}`,
      perOp(postgres),
      each,
      cores(postgres),
      cores(bench + receivers),
      cores(main + worker + other + postgres + bench + receivers),
    ]);
  }
  return rows;
}

function printTeam(result: TeamResult): void {
  const header = (measure: string, withP99: boolean) => [
    'daemons',
    measure,
    ...(withP99 ? ['p99 ms', 'failed / 202'] : []),
    'daemon CPU µs/op: main / PG worker / GC+rest',
    'PG CPU µs/op',
    'cores: each daemon',
    'PG',
    'bench+receivers',
    'all',
  ];
  console.log(table(header('five-step runs/s', true), rowsOf(result.runs, true)));
  console.log();
  console.log(table(header('deliveries/s', false), rowsOf(result.deliveries, false)));
  console.log(
    `  ${cpus().length} cores; load average (1 min) at each configuration: ` +
      `${result.load.map((value) => value.toFixed(1)).join(', ')}; ` +
      (result.settled
        ? `runs completed / webhook calls: ${result.settled.runs} / ${result.settled.calls}; `
        : '') +
      `every event delivered exactly once`,
  );
  for (const failure of result.failures) console.log(`  FAILED run ${failure}`);
}

const teamCase: BenchCase = {
  order: 96,
  needs: 'standalone',
  describe: () =>
    `team: 1, 2 and 3 daemons on one PostgreSQL sandbox (a throwaway local cluster), requests ` +
    `spread over them: five-step runs/s and deliveries/s (${EVENTS} events), ` +
    `${settings.seconds} s x ${settings.rounds} round(s)`,
  async run() {
    const heading =
      '\nTeam: 1, 2 and 3 daemons serving one PostgreSQL sandbox (a throwaway local cluster, fsync off), requests round robin';
    let cluster: Cluster;
    try {
      cluster = await startBenchCluster();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return { print: () => console.log(`${heading}\n  skipped: ${reason}`), missed: 0 };
    }
    try {
      const result = await benchTeam(cluster);
      return {
        print: () => {
          console.log(heading);
          printTeam(result);
        },
        missed: 0,
      };
    } finally {
      cluster.stop();
    }
  },
};

export default teamCase;
