// `npm run bench`: how much slower is the svc daemon than a bare node:http server giving
// answers of the same size and shape, and how much slower is `svc --help` than `node -e 0`?
//
// HTTP: for each scenario below, autocannon (in this process) loads the real daemon (started with
// the real CLI in a temp data dir, default log level, so every request is logged to the data
// dir's log file as in normal use) and the matching path of bench/baseline-server.ts (a bare
// node:http server in a child process) with the same settings, alternating the two. Both servers
// are single Node processes, so on a 2-core machine each gets about one core and autocannon the
// other.
//
// Reading the ratios:
//   ratio = daemon req/s / baseline req/s. 1.0 means the daemon costs nothing over writing the
//   JSON by hand; 0.5 (the target) means each request costs twice the bare minimum. What the
//   difference buys: the access gate (key lookup, tenant, scope, three rate-limit buckets), SQLite
//   reads, validation, the request log line and Fastify itself. p99 is the daemon's 99th
//   percentile latency under that load (10 connections by default).
//   cpu µs/req is the server process's CPU time (all threads) per request and cpu ratio =
//   baseline µs / daemon µs: the same comparison as the req/s ratio when each server saturates
//   its core, but far less sensitive to other work on the machine (use it to judge a noisy run).
//   When autocannon cannot saturate the baseline (baseline req/s x cpu µs/req well under one
//   core-second per second), the req/s ratio flatters the daemon and the cpu ratio does not.
//   CLI start-up ratio = median wall time of `svc --help` / median of `node -e 0` (target < 3x):
//   what the CLI's own module loading costs on top of starting Node.
//
// The default workspace is enterprise tier, whose limits are business x
// SVC_ENTERPRISE_RATE_MULTIPLIER; the bench sets it to 1000000 so that no rate limit is reached
// (the limiter still runs on every request: only its ceilings are raised).
//
// Settings (environment): BENCH_SECONDS (measured seconds per run, default 8),
// BENCH_WARMUP_SECONDS (unmeasured run before each measured one, default 2), BENCH_CONNECTIONS
// (10), BENCH_PIPELINING (1), BENCH_ROUNDS (measured runs per target and scenario, default 2;
// rounds alternate which target goes first; req/s is the mean of the rounds, p99 the worst),
// BENCH_STARTUP_RUNS (15). Other work on the machine skews single figures far more than the
// ratios; the bench prints the load average before it starts.
//
// Exit code 0 whatever the verdicts; non-zero only when the bench could not run (a server did
// not start, a request failed or an answer was not 2xx, so the figures would mean nothing).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

const ROOT = resolve(import.meta.dirname, '..');
const SVC_BIN = join(ROOT, 'bin', 'svc.js');
const BASELINE_SERVER = join(import.meta.dirname, 'baseline-server.ts');
const ENTERPRISE_RATE_MULTIPLIER = '1000000';

function numberSetting(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number.`);
  return value;
}

const settings = {
  seconds: numberSetting('BENCH_SECONDS', 8),
  warmupSeconds: numberSetting('BENCH_WARMUP_SECONDS', 2),
  connections: Math.round(numberSetting('BENCH_CONNECTIONS', 10)),
  pipelining: Math.round(numberSetting('BENCH_PIPELINING', 1)),
  rounds: Math.round(numberSetting('BENCH_ROUNDS', 2)),
  startupRuns: Math.round(numberSetting('BENCH_STARTUP_RUNS', 15)),
};

/** What a scenario may use: the running daemon and a key in its default workspace. */
interface DaemonContext {
  url: string;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  /** An admin-scoped sk_test_ key in the default workspace. */
  key: string;
  /** The default (enterprise) workspace. */
  workspaceId: string;
  /** Calls a control-channel (tRPC) procedure as the operator. */
  control(procedure: string, input?: unknown, kind?: 'query' | 'mutation'): Promise<unknown>;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

interface Scenario {
  name: string;
  method: Method;
  /** Path (and query) on the daemon. */
  path: string;
  /** Matching path on bench/baseline-server.ts (add a route there for a new shape). */
  baselinePath: string;
  /** JSON body sent with every request, to both servers. */
  body?: unknown;
  /** Request headers (sent to both servers); default: the bench key and X-Tenant-ID. */
  headers?: (ctx: DaemonContext) => Record<string, string>;
  /** Runs once before the scenario's first load run (e.g. to seed data). */
  setup?: (ctx: DaemonContext) => Promise<void>;
  /** PASS when daemon req/s / baseline req/s is at least this. */
  targetRatio: number;
}

const apiHeaders = (ctx: DaemonContext): Record<string, string> => ({
  authorization: `Bearer ${ctx.key}`,
  'x-tenant-id': ctx.workspaceId,
});

const EVENTS_TO_SEED = 200;

/** Add scenarios here; each needs a baseline route of the same size and shape. */
const scenarios: Scenario[] = [
  {
    name: 'GET /v1/auth/me',
    method: 'GET',
    path: '/v1/auth/me',
    baselinePath: '/me',
    targetRatio: 0.5,
  },
  {
    name: 'GET /v1/events?limit=20',
    method: 'GET',
    path: '/v1/events?limit=20',
    baselinePath: '/events',
    targetRatio: 0.5,
    async setup(ctx) {
      // Publish sample events through the control channel (what `svc events trigger` does).
      let published = 0;
      const worker = async () => {
        while (published < EVENTS_TO_SEED) {
          published += 1;
          await ctx.control('events.trigger', { type: 'agent.created' }, 'mutation');
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
    },
  },
];

// ---------------------------------------------------------------------------------------------
// Processes

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function runCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [SVC_BIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', CI: 'true', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`svc ${args.join(' ')} timed out\n${stdout}${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code: code ?? -1, stdout, stderr });
    });
  });
}

async function cliJson<T>(args: string[], env: NodeJS.ProcessEnv): Promise<T> {
  const result = await runCli([...args, '--json'], env);
  if (result.code !== 0) {
    throw new Error(`svc ${args.join(' ')} failed (exit ${result.code}):\n${result.stderr}`);
  }
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`svc ${args.join(' ')} --json did not print JSON:\n${result.stdout}`);
  }
}

interface Baseline {
  url: string;
  child: ChildProcess;
}

function startBaseline(): Promise<Baseline> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', BASELINE_SERVER], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the baseline server did not start within 20 s'));
    }, 20_000);
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`the baseline server exited (${code})`)));
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      try {
        resolvePromise({ url: (JSON.parse(line) as { url: string }).url, child });
      } catch {
        reject(new Error(`the baseline server printed ${line}`));
      }
    });
  });
}

interface Daemon extends DaemonContext {
  pid: number;
}

async function startSvcDaemon(): Promise<Daemon> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const env: NodeJS.ProcessEnv = {
    SVC_DATA_DIR: dataDir,
    SVC_ENTERPRISE_RATE_MULTIPLIER: ENTERPRISE_RATE_MULTIPLIER,
  };
  // Measure with the default log level, whatever the caller's shell has.
  delete process.env.SVC_LOG_LEVEL;
  let started: { url: string; pid: number };
  try {
    started = await cliJson(['daemon', 'start', '--port', '0'], env);
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const daemon: Daemon = {
    url: started.url,
    pid: started.pid,
    dataDir,
    env,
    key: '',
    workspaceId: '',
    async control(procedure, input, kind = 'query') {
      const token = readFileSync(join(dataDir, 'control-token'), 'utf8').trim();
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const response =
        kind === 'mutation'
          ? await fetch(`${started.url}/trpc/${procedure}`, {
              method: 'POST',
              headers,
              body: JSON.stringify(input ?? {}),
            })
          : await fetch(
              `${started.url}/trpc/${procedure}` +
                (input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`),
              { headers },
            );
      const text = await response.text();
      if (!response.ok) throw new Error(`control ${procedure}: ${response.status} ${text}`);
      return (JSON.parse(text) as { result: { data: unknown } }).result.data;
    },
  };
  return daemon;
}

async function stopSvcDaemon(daemon: Daemon): Promise<void> {
  const stopped = await runCli(['daemon', 'stop'], daemon.env).catch(
    (error: unknown) => ({ code: -1, stdout: '', stderr: String(error) }) as CliResult,
  );
  if (stopped.code !== 0) {
    console.error(`svc daemon stop failed (${stopped.stderr.trim()}); killing pid ${daemon.pid}`);
    try {
      process.kill(daemon.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

function stopBaseline(baseline: Baseline): Promise<void> {
  return new Promise((resolvePromise) => {
    if (baseline.child.exitCode !== null || baseline.child.signalCode !== null) {
      resolvePromise();
      return;
    }
    baseline.child.removeAllListeners('exit');
    const timer = setTimeout(() => baseline.child.kill('SIGKILL'), 5_000);
    baseline.child.once('exit', () => {
      clearTimeout(timer);
      resolvePromise();
    });
    baseline.child.kill('SIGTERM');
  });
}

// ---------------------------------------------------------------------------------------------
// Measuring

interface Target {
  label: 'baseline' | 'daemon';
  url: string;
  /** The server process, whose CPU time is read around each run. */
  pid: number;
}

interface RunFigures {
  reqPerSec: number;
  p50: number;
  p99: number;
  requests: number;
  /** Server CPU time (user + system, all threads) per request, in µs; undefined off Linux. */
  cpuUsPerRequest: number | undefined;
}

const CLOCK_TICKS = (() => {
  const result = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const ticks = Number(result.stdout?.trim());
  return Number.isInteger(ticks) && ticks > 0 ? ticks : 100;
})();

/**
 * CPU seconds a process has used so far (Linux /proc), or undefined. Unlike req/s, CPU time per
 * request hardly moves when other work on the machine takes the cores away from the servers.
 */
function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat (utime, stime) are the 12th and 13th after "pid (comm)".
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

function requestOptions(scenario: Scenario, ctx: DaemonContext) {
  const headers = { ...(scenario.headers ?? apiHeaders)(ctx) };
  let body: string | undefined;
  if (scenario.body !== undefined) {
    body = JSON.stringify(scenario.body);
    headers['content-type'] = 'application/json';
  }
  return { method: scenario.method, headers, body };
}

/** One request before loading, so a wrong status shows up as an error and not as a figure. */
async function probe(target: Target, path: string, scenario: Scenario, ctx: DaemonContext) {
  const { method, headers, body } = requestOptions(scenario, ctx);
  const response = await fetch(`${target.url}${path}`, { method, headers, body: body ?? null });
  const text = await response.text();
  if (response.status < 200 || response.status > 299) {
    throw new Error(
      `${scenario.name}: the ${target.label} answered ${response.status} to ${method} ${path}: ${text.slice(0, 500)}`,
    );
  }
  if (!(response.headers.get('content-type') ?? '').startsWith('application/json')) {
    throw new Error(`${scenario.name}: the ${target.label} did not answer JSON`);
  }
  return Buffer.byteLength(text);
}

async function load(
  target: Target,
  path: string,
  scenario: Scenario,
  ctx: DaemonContext,
  seconds: number,
): Promise<RunFigures> {
  const { method, headers, body } = requestOptions(scenario, ctx);
  const cpuBefore = cpuSeconds(target.pid);
  const result = await autocannon({
    url: `${target.url}${path}`,
    method,
    headers,
    ...(body === undefined ? {} : { body }),
    connections: settings.connections,
    pipelining: settings.pipelining,
    duration: seconds,
  });
  const cpuAfter = cpuSeconds(target.pid);
  if (result.errors > 0 || result.timeouts > 0 || result.non2xx > 0 || result['2xx'] === 0) {
    const statuses = JSON.stringify(result.statusCodeStats ?? {});
    throw new Error(
      `${scenario.name}: the ${target.label} did not answer 2xx to every request ` +
        `(2xx ${result['2xx']}, non-2xx ${result.non2xx}, errors ${result.errors}, ` +
        `timeouts ${result.timeouts}, statuses ${statuses}); the figures would mean nothing.`,
    );
  }
  return {
    reqPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    cpuUsPerRequest:
      cpuBefore === undefined || cpuAfter === undefined
        ? undefined
        : ((cpuAfter - cpuBefore) * 1e6) / result.requests.total,
  };
}

interface ScenarioResult {
  scenario: Scenario;
  bytes: { baseline: number; daemon: number };
  baseline: RunFigures;
  daemon: RunFigures;
  ratio: number;
  /** baseline CPU µs per request / daemon CPU µs per request. */
  cpuRatio: number | undefined;
}

function combine(runs: RunFigures[]): RunFigures {
  const mean = (pick: (run: RunFigures) => number) =>
    runs.reduce((sum, run) => sum + pick(run), 0) / runs.length;
  return {
    reqPerSec: mean((run) => run.reqPerSec),
    p50: mean((run) => run.p50),
    // The worst round's p99: a tail figure should not be averaged away.
    p99: Math.max(...runs.map((run) => run.p99)),
    requests: runs.reduce((sum, run) => sum + run.requests, 0),
    cpuUsPerRequest: runs.some((run) => run.cpuUsPerRequest === undefined)
      ? undefined
      : mean((run) => run.cpuUsPerRequest!),
  };
}

async function runScenario(
  scenario: Scenario,
  baseline: Target,
  daemon: Target,
  ctx: DaemonContext,
): Promise<ScenarioResult> {
  if (scenario.setup) await scenario.setup(ctx);
  const pathOf = (target: Target) =>
    target.label === 'daemon' ? scenario.path : scenario.baselinePath;
  const bytes = {
    baseline: await probe(baseline, scenario.baselinePath, scenario, ctx),
    daemon: await probe(daemon, scenario.path, scenario, ctx),
  };
  const runs: Record<Target['label'], RunFigures[]> = { baseline: [], daemon: [] };
  for (let round = 0; round < settings.rounds; round += 1) {
    const order = round % 2 === 0 ? [baseline, daemon] : [daemon, baseline];
    for (const target of order) {
      process.stdout.write(
        `  ${scenario.name}: ${target.label} (round ${round + 1}/${settings.rounds}) ...`,
      );
      await load(target, pathOf(target), scenario, ctx, settings.warmupSeconds);
      const figures = await load(target, pathOf(target), scenario, ctx, settings.seconds);
      runs[target.label].push(figures);
      const cpu = figures.cpuUsPerRequest?.toFixed(0) ?? '-';
      process.stdout.write(
        ` ${figures.reqPerSec.toFixed(0)} req/s, p99 ${figures.p99} ms, ${cpu} CPU µs/req\n`,
      );
    }
  }
  const baselineFigures = combine(runs.baseline);
  const daemonFigures = combine(runs.daemon);
  return {
    scenario,
    bytes,
    baseline: baselineFigures,
    daemon: daemonFigures,
    ratio: daemonFigures.reqPerSec / baselineFigures.reqPerSec,
    cpuRatio:
      baselineFigures.cpuUsPerRequest && daemonFigures.cpuUsPerRequest
        ? baselineFigures.cpuUsPerRequest / daemonFigures.cpuUsPerRequest
        : undefined,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function timeOnce(args: string[]): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) {
    throw new Error(`node ${args.join(' ')} exited ${result.status}: ${String(result.stderr)}`);
  }
  return elapsed;
}

interface StartupResult {
  node: number;
  svc: number;
  ratio: number;
}

function measureStartup(): StartupResult {
  const nodeArgs = ['-e', '0'];
  const svcArgs = [SVC_BIN, '--help'];
  // One unmeasured run each (file cache), then interleaved measured runs.
  timeOnce(nodeArgs);
  timeOnce(svcArgs);
  const node: number[] = [];
  const svc: number[] = [];
  for (let run = 0; run < settings.startupRuns; run += 1) {
    node.push(timeOnce(nodeArgs));
    svc.push(timeOnce(svcArgs));
  }
  const result = { node: median(node), svc: median(svc), ratio: 0 };
  result.ratio = result.svc / result.node;
  return result;
}

// ---------------------------------------------------------------------------------------------
// Output

function table(header: string[], rows: string[][]): string {
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!),
      )
      .join('  ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)]
    .map((text) => `  ${text}`)
    .join('\n');
}

function printHttp(results: ScenarioResult[]) {
  console.log('\nHTTP throughput (daemon vs bare node:http baseline)\n');
  console.log(
    table(
      [
        'scenario',
        'baseline req/s',
        'daemon req/s',
        'ratio',
        'target',
        'daemon p99 ms',
        'baseline p99 ms',
        'body bytes d/b',
        'cpu µs/req d/b',
        'cpu ratio',
        'verdict',
      ],
      results.map((result) => [
        result.scenario.name,
        result.baseline.reqPerSec.toFixed(0),
        result.daemon.reqPerSec.toFixed(0),
        result.ratio.toFixed(2),
        `>= ${result.scenario.targetRatio}`,
        String(result.daemon.p99),
        String(result.baseline.p99),
        `${result.bytes.daemon}/${result.bytes.baseline}`,
        `${result.daemon.cpuUsPerRequest?.toFixed(0) ?? '-'}/${result.baseline.cpuUsPerRequest?.toFixed(0) ?? '-'}`,
        result.cpuRatio?.toFixed(2) ?? '-',
        result.ratio >= result.scenario.targetRatio ? 'PASS' : 'FAIL',
      ]),
    ),
  );
}

const STARTUP_TARGET = 3;

function printStartup(startup: StartupResult) {
  console.log(`\nCLI start-up (median of ${settings.startupRuns} runs each)\n`);
  console.log(
    table(
      ['command', 'median ms'],
      [
        ['node -e 0', startup.node.toFixed(1)],
        ['svc --help', startup.svc.toFixed(1)],
      ],
    ),
  );
  console.log(
    `\n  ratio ${startup.ratio.toFixed(2)}x (target < ${STARTUP_TARGET}x): ` +
      (startup.ratio < STARTUP_TARGET ? 'PASS' : 'FAIL'),
  );
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const cpu = cpus();
  console.log(
    `svc bench: node ${process.version}, ${cpu.length} cores (${cpu[0]?.model.trim() ?? '?'})`,
  );
  console.log(
    `  autocannon: ${settings.connections} connections, pipelining ${settings.pipelining}, ` +
      `${settings.warmupSeconds} s warm-up + ${settings.seconds} s measured per run, ` +
      `${settings.rounds} round(s), baseline and daemon alternating`,
  );
  console.log(
    `  daemon: default log level (info, one line per request to the data dir log), ` +
      `SVC_ENTERPRISE_RATE_MULTIPLIER=${ENTERPRISE_RATE_MULTIPLIER} so the enterprise default ` +
      `workspace never hits a rate limit (the limiter still runs)`,
  );
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

  const results: ScenarioResult[] = [];
  try {
    baseline = await startBaseline();
    daemon = await startSvcDaemon();
    const created = await cliJson<{ key: string }>(
      ['keys', 'create', '--name', 'bench', '--scopes', 'admin'],
      daemon.env,
    );
    const whoami = await cliJson<{ workspace_id: string }>(['whoami'], daemon.env);
    daemon.key = created.key;
    daemon.workspaceId = whoami.workspace_id;
    console.log(`  daemon ${daemon.url} (pid ${daemon.pid}), baseline ${baseline.url}\n`);
    const baselineTarget: Target = {
      label: 'baseline',
      url: baseline.url,
      pid: baseline.child.pid!,
    };
    const daemonTarget: Target = { label: 'daemon', url: daemon.url, pid: daemon.pid };
    for (const scenario of scenarios) {
      results.push(await runScenario(scenario, baselineTarget, daemonTarget, daemon));
    }
  } catch (error) {
    if (results.length) printHttp(results);
    console.error(`\nbench could not run: ${error instanceof Error ? error.message : error}`);
    await teardown();
    return 1;
  }
  await teardown();
  printHttp(results);

  let startup: StartupResult;
  try {
    startup = measureStartup();
  } catch (error) {
    console.error(`\nCLI start-up could not be measured: ${(error as Error).message}`);
    return 1;
  }
  printStartup(startup);

  const missed =
    results.filter((result) => result.ratio < result.scenario.targetRatio).length +
    (startup.ratio < STARTUP_TARGET ? 0 : 1);
  console.log(
    missed
      ? `\n${missed} target(s) missed (see FAIL above); the bench itself ran fine.`
      : '\nAll targets met.',
  );
  return 0;
}

process.exitCode = await main();
