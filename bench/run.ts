// `npm run bench`: how much slower is the svc daemon than a bare node:http server giving
// answers of the same size and shape, how fast does it deliver webhooks, and how much slower is
// `svc --help` than `node -e 0`?
//
// The default workspace is enterprise tier, whose limits are business x
// SVC_ENTERPRISE_RATE_MULTIPLIER; the bench sets it to 1000000 so that no rate limit is reached
// (the limiter still runs on every request: only its ceilings are raised; this also lifts the
// per-agent execute limit).
//
// Settings (environment): BENCH_SECONDS (measured seconds per run, default 8),
// BENCH_WARMUP_SECONDS (unmeasured run before each measured one, default 2), BENCH_CONNECTIONS
// (10), BENCH_PIPELINING (1), BENCH_ROUNDS (measured runs per target and scenario, default 2;
// rounds alternate which target goes first; req/s is the mean of the rounds, p99 the worst),
// BENCH_DELIVERY_EVENTS (events published in the delivery scenario, default 10000),
// BENCH_DELIVERY_CONCURRENCY (publish requests in flight, default 32),
// BENCH_DELIVERY_PACED_ROUNDS and BENCH_DELIVERY_PACED_SECONDS (rounds published at 3000/s,
// default 3 of 5 s), BENCH_STARTUP_RUNS (15),
// BENCH_CASES (comma-separated file names of bench/cases to run, e.g. `workflows,triggers`;
// default all).
// Other work on the machine skews single figures far more than the ratios; the bench prints the
// load average before it starts.
//
// Exit code 0 whatever the verdicts; non-zero only when the bench could not run (a server did
// not start, a request failed or an answer did not have the expected 2xx status, so the figures
// would mean nothing).
//
// The cases are the files of bench/cases/ (one per case, default export BenchCase, see
// bench/harness.ts): add a file there to add a case.
import { readdirSync, rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import {
  ENTERPRISE_RATE_MULTIPLIER,
  startBaseline,
  startBenchDaemon,
  stopBaseline,
  stopSvcDaemon,
  type Baseline,
  type BenchCase,
  type CaseReport,
  type Daemon,
  type Servers,
} from './harness.js';

async function loadCases(): Promise<BenchCase[]> {
  const dir = join(import.meta.dirname, 'cases');
  const only = process.env.BENCH_CASES?.split(',').map((name) => name.trim());
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.ts'))
    .filter((name) => !only || only.includes(name.replace(/\.ts$/, '')))
    .sort();
  const cases: BenchCase[] = [];
  for (const file of files) {
    cases.push(((await import(join(dir, file))) as { default: BenchCase }).default);
  }
  return cases.sort((a, b) => a.order - b.order);
}

async function main(): Promise<number> {
  const cases = await loadCases();
  const cpu = cpus();
  console.log(
    `svc bench: node ${process.version}, ${cpu.length} cores (${cpu[0]?.model.trim() ?? '?'})`,
  );
  console.log(
    `  daemon: default log level (info: up to 1,000 request lines a second to the data dir log), ` +
      `SVC_ENTERPRISE_RATE_MULTIPLIER=${ENTERPRISE_RATE_MULTIPLIER} so the enterprise default ` +
      `workspace never hits a rate limit (the limiter still runs)`,
  );
  for (const benchCase of cases) console.log(`  ${benchCase.describe()}`);
  const [load1] = loadavg();
  console.log(
    `  load average (1 min) before the run: ${load1?.toFixed(2)}` +
      ((load1 ?? 0) > cpu.length / 2
        ? ' -- the machine is busy with other work: expect noisy figures'
        : '') +
      '\n',
  );

  let baseline: Baseline | undefined;
  let daemon: Daemon | undefined;
  const teardown = async () => {
    const stops: Promise<void>[] = [];
    if (daemon) stops.push(stopSvcDaemon(daemon));
    if (baseline) stops.push(stopBaseline(baseline));
    await Promise.all(stops);
    if (daemon) rmSync(daemon.dataDir, { recursive: true, force: true });
    daemon = undefined;
    baseline = undefined;
  };
  const onSignal = () => {
    void teardown().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const reports: CaseReport[] = [];
  const serverCases = cases.filter((c) => c.needs === 'servers');
  // Cases that bring their own daemons (BENCH_CASES=scaling, say) need neither server.
  if (serverCases.length > 0) {
    try {
      baseline = await startBaseline();
      daemon = await startBenchDaemon();
      console.log(`  daemon ${daemon.url} (pid ${daemon.pid}), baseline ${baseline.url}\n`);
      const servers: Servers = {
        daemon,
        baseline,
        baselineTarget: { label: 'baseline', url: baseline.url, pid: baseline.child.pid! },
        daemonTarget: { label: 'daemon', url: daemon.url, pid: daemon.pid },
      };
      for (const benchCase of serverCases) reports.push(await benchCase.run(servers));
    } catch (error) {
      for (const report of reports) report.print();
      console.error(`\nbench could not run: ${error instanceof Error ? error.message : error}`);
      await teardown();
      return 1;
    }
    await teardown();
    for (const report of reports) report.print();
  }

  for (const benchCase of cases.filter((c) => c.needs === 'standalone')) {
    let report: CaseReport;
    try {
      report = await benchCase.run(undefined);
    } catch (error) {
      console.error(`\n${benchCase.describe()}: could not run: ${(error as Error).message}`);
      return 1;
    }
    report.print();
    reports.push(report);
  }

  const missed = reports.reduce((sum, report) => sum + report.missed, 0);
  console.log(
    missed
      ? `\n${missed} target(s) missed (see FAIL above); the bench itself ran fine.`
      : '\nAll targets met.',
  );
  return 0;
}

process.exitCode = await main();
