// `npm run bench`: how much slower is the svc daemon than a bare node:http server giving
// answers of the same size and shape, how fast does it deliver webhooks, and how much slower is
// `svc --help` than `node -e 0`?
//
// HTTP: for each scenario below, autocannon (in this process) loads the real daemon (started with
// the real CLI in a temp data dir, default log level, so every request is logged to the data
// dir's log file as in normal use) and the matching path of bench/baseline-server.ts (a bare
// node:http server in a child process) with the same settings, alternating the two. Both servers
// are single Node processes, so on a 2-core machine each gets about one core and autocannon the
// other. Scenarios: GET /v1/auth/me, GET /v1/events?limit=20 (200 events seeded), GET
// /v1/agents/{id} and POST /v1/agents/{id}/execute {"input":"where is my order?",
// "wait_for_completion":true} on one active L3 agent (created and deployed through the REST API;
// the simulated brain answers, so every execution completes and answers 200; the bench checks
// that every answer has the scenario's status).
//
// Reading the ratios:
//   ratio = daemon req/s / baseline req/s. 1.0 means the daemon costs nothing over writing the
//   JSON by hand; 0.5 (the target of the reads) means each request costs twice the bare minimum.
//   What the difference buys: the access gate (key lookup, tenant, scope, three rate-limit
//   buckets), SQLite reads, validation, the request log line and Fastify itself; for execute
//   (target 0.25) also the brain's answer, the per-agent rate limit and one transaction that
//   stores the execution, two events and the agent's stats. p99 is the daemon's 99th
//   percentile latency under that load (10 connections by default).
//   cpu µs/req is the server process's CPU time (all threads) per request and cpu ratio =
//   baseline µs / daemon µs: the same comparison as the req/s ratio when each server saturates
//   its core, but far less sensitive to other work on the machine (use it to judge a noisy run).
//   When autocannon cannot saturate the baseline (baseline req/s x cpu µs/req well under one
//   core-second per second), the req/s ratio flatters the daemon and the cpu ratio does not.
//
// Webhook delivery (after the HTTP scenarios, on the same daemon): a receiver in a child process
// (bench/webhook-receiver.ts, so that its arrival times do not wait on this process's event
// loop) is subscribed to agent.created through POST /v1/webhooks. This process publishes
// BENCH_DELIVERY_EVENTS events through the control channel (POST /trpc/events.trigger, as `svc
// events trigger` does, BENCH_DELIVERY_CONCURRENCY requests in flight) and records when each
// publish was acknowledged; the receiver records when each delivery arrived (per X-Svc-Event-Id).
// Both clocks are performance.timeOrigin + performance.now() (wall-clock ms). A warm-up of up to
// 500 events, delivered and then forgotten, comes first. Figures:
//   events published/s = events / (last acknowledgement - first publish request).
//   deliveries/s (sustained) = deliveries / (last arrival - first arrival); target >= 1000.
//   latency = first arrival of an event - its publish acknowledgement; p50, p99 (target < 50 ms),
//   max and min. It can be negative: the daemon may send the delivery before this process has
//   read the acknowledgement (which waits its turn on this process's event loop), so it is a
//   lower bound. latency from the publish request (sent -> first arrival) adds the publish round
//   trip: an upper bound. The true delivery latency lies between the two.
//   delivery: exactly once (every event arrived, none twice), at least once (duplicates, which
//   the contract allows) or missing (FAIL: events not arrived after 30 s without any arrival).
//   last arrival - last ack: how far delivery trailed publishing at the end (a growing backlog
//   shows here). daemon cpu ms/event: the daemon's CPU time over the measured run (publishing
//   and delivering) per event; 1000 events/s on one core needs it under 1 ms.
//   backlog drain (informational, no target): delivery capacity when the daemon is not also
//   taking publishes. The same number of events again, whose first attempts the receiver
//   refuses (503) so that each waits for its retry a minute later; then the sandbox clock is
//   moved past all the retries (clock.advance, which fires what became due) and the receiver
//   times the arrivals: deliveries / (last arrival - first arrival), and how long after the
//   clock moved the last one came. The daemon clock stays moved; nothing runs after it.
//
// CLI start-up ratio = median wall time of `svc --help` / median of `node -e 0` (target < 3x):
// what the CLI's own module loading costs on top of starting Node.
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
// BENCH_DELIVERY_CONCURRENCY (publish requests in flight, default 32), BENCH_STARTUP_RUNS (15).
// Other work on the machine skews single figures far more than the ratios; the bench prints the
// load average before it starts.
//
// Exit code 0 whatever the verdicts; non-zero only when the bench could not run (a server did
// not start, a request failed or an answer did not have the expected 2xx status, so the figures
// would mean nothing).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import type { ReceiverMessage, ReceiverRequest } from './webhook-receiver.js';
import { printUploadHealth, runUploadHealth, type UploadHealthResult } from './upload-health.js';

const ROOT = resolve(import.meta.dirname, '..');
const SVC_BIN = join(ROOT, 'bin', 'svc.js');
const BASELINE_SERVER = join(import.meta.dirname, 'baseline-server.ts');
const WEBHOOK_RECEIVER = join(import.meta.dirname, 'webhook-receiver.ts');
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
  deliveryEvents: Math.round(numberSetting('BENCH_DELIVERY_EVENTS', 10_000)),
  deliveryConcurrency: Math.round(numberSetting('BENCH_DELIVERY_CONCURRENCY', 32)),
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
  /** The active L3 agent of the agents scenarios ('' until benchAgent() made it). */
  agentId: string;
  /** The contents of <data dir>/control-token. */
  controlToken(): string;
  /** Calls a control-channel (tRPC) procedure as the operator. */
  control(procedure: string, input?: unknown, kind?: 'query' | 'mutation'): Promise<unknown>;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

interface Scenario {
  name: string;
  method: Method;
  /** Path (and query) on the daemon (a function when it names an object made by setup). */
  path: string | ((ctx: DaemonContext) => string);
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
  /** The status every answer (of both servers) must have (default: any 2xx). */
  status?: number;
}

const apiHeaders = (ctx: DaemonContext): Record<string, string> => ({
  authorization: `Bearer ${ctx.key}`,
  'x-tenant-id': ctx.workspaceId,
});

const EVENTS_TO_SEED = 200;

/** A REST call with the bench key that must succeed; answers the `data` of the answer. */
async function api<T>(ctx: DaemonContext, method: Method, path: string, body?: unknown) {
  const headers: Record<string, string> = apiHeaders(ctx);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${ctx.url}${path}`, {
    method,
    headers,
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
  return (JSON.parse(text) as { data: T }).data;
}

/** Creates and deploys the agents scenarios' agent once (L3, so executions complete). */
async function benchAgent(ctx: DaemonContext): Promise<string> {
  if (ctx.agentId) return ctx.agentId;
  const agent = await api<{ id: string }>(ctx, 'POST', '/v1/agents', {
    name: 'Bench',
    ontology: 'retail-v1',
    type: 'customer-service',
    autonomy_level: 'L3',
  });
  const deployed = await api<{ status: string }>(ctx, 'POST', '/v1/agents/deploy', {
    agent_id: agent.id,
  });
  if (deployed.status !== 'active') {
    throw new Error(`POST /v1/agents/deploy left agent ${agent.id} ${deployed.status}`);
  }
  ctx.agentId = agent.id;
  return agent.id;
}

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
  {
    name: 'GET /v1/agents/{id}',
    method: 'GET',
    path: (ctx) => `/v1/agents/${ctx.agentId}`,
    baselinePath: '/agent',
    targetRatio: 0.5,
    status: 200,
    setup: async (ctx) => void (await benchAgent(ctx)),
  },
  {
    name: 'POST /v1/agents/{id}/execute',
    method: 'POST',
    path: (ctx) => `/v1/agents/${ctx.agentId}/execute`,
    baselinePath: '/execute',
    body: { input: 'where is my order?', wait_for_completion: true },
    targetRatio: 0.25,
    // 200 = completed (202 would be waiting for approval, an error status a failure).
    status: 200,
    setup: async (ctx) => void (await benchAgent(ctx)),
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
  let controlToken: string | undefined;
  const daemon: Daemon = {
    url: started.url,
    pid: started.pid,
    dataDir,
    env,
    key: '',
    workspaceId: '',
    agentId: '',
    controlToken() {
      controlToken ??= readFileSync(join(dataDir, 'control-token'), 'utf8').trim();
      return controlToken;
    },
    async control(procedure, input, kind = 'query') {
      const token = daemon.controlToken();
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

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolvePromise) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolvePromise();
      return;
    }
    child.removeAllListeners('exit');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolvePromise();
    });
    child.kill('SIGTERM');
  });
}

function stopBaseline(baseline: Baseline): Promise<void> {
  return stopChild(baseline.child);
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
  if (
    response.status < 200 ||
    response.status > 299 ||
    (scenario.status !== undefined && response.status !== scenario.status)
  ) {
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
  const codes = Object.entries(result.statusCodeStats ?? {})
    .filter(([, stats]) => (stats.count ?? 0) > 0)
    .map(([code]) => code);
  if (
    result.errors > 0 ||
    result.timeouts > 0 ||
    result.non2xx > 0 ||
    result['2xx'] === 0 ||
    (scenario.status !== undefined && codes.some((code) => code !== String(scenario.status)))
  ) {
    const statuses = JSON.stringify(result.statusCodeStats ?? {});
    const expected = scenario.status ?? '2xx';
    throw new Error(
      `${scenario.name}: the ${target.label} did not answer ${expected} to every request ` +
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
  const daemonPath = typeof scenario.path === 'string' ? scenario.path : scenario.path(ctx);
  const pathOf = (target: Target) =>
    target.label === 'daemon' ? daemonPath : scenario.baselinePath;
  const bytes = {
    baseline: await probe(baseline, scenario.baselinePath, scenario, ctx),
    daemon: await probe(daemon, daemonPath, scenario, ctx),
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
// Webhook delivery

/** Wall-clock ms with sub-ms resolution; the receiver uses the same expression. */
const wallNow = () => performance.timeOrigin + performance.now();

/** Events published, delivered and forgotten before the measured run (JIT, connections). */
const DELIVERY_WARMUP_EVENTS = 500;
/** The wait for outstanding deliveries ends after this long without a new arrival. */
const DELIVERY_IDLE_MS = 30_000;
/** After the last expected arrival, how long to keep listening for duplicates. */
const DELIVERY_GRACE_MS = 500;
const DELIVERY_TARGET_PER_SECOND = 1000;
const DELIVERY_TARGET_P99_MS = 50;

type ReceiverAnswer<T extends ReceiverRequest['type']> = Extract<ReceiverMessage, { type: T }>;

interface ReceiverProcess {
  /** Where the webhook points. */
  url: string;
  child: ChildProcess;
  /** Sends a request to the receiver and resolves with its answer. */
  ask<T extends ReceiverRequest['type']>(type: T): Promise<ReceiverAnswer<T>>;
}

function startReceiver(): Promise<ReceiverProcess> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WEBHOOK_RECEIVER], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    // Answers come in the order of the requests.
    const waiting: {
      type: ReceiverRequest['type'];
      resolve(message: ReceiverMessage): void;
      reject(error: Error): void;
    }[] = [];
    const ask = <T extends ReceiverRequest['type']>(type: T) =>
      new Promise<ReceiverAnswer<T>>((resolveAnswer, rejectAnswer) => {
        waiting.push({
          type,
          resolve: (message) => resolveAnswer(message as ReceiverAnswer<T>),
          reject: rejectAnswer,
        });
        child.send({ type } satisfies ReceiverRequest);
      });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the webhook receiver did not start within 20 s'));
    }, 20_000);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      const error = new Error(`the webhook receiver exited (${code ?? signal})`);
      reject(error);
      for (const waiter of waiting.splice(0)) waiter.reject(error);
    });
    child.on('message', (message: ReceiverMessage) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolvePromise({ url: message.url, child, ask });
        return;
      }
      const waiter = waiting.shift();
      if (waiter?.type === message.type) waiter.resolve(message);
      else waiter?.reject(new Error(`the webhook receiver answered ${message.type}`));
    });
  });
}

interface Published {
  /** Event id -> when its publish was acknowledged (wall-clock ms). */
  acks: Map<string, number>;
  /** Event id -> when its publish request was sent (wall-clock ms). */
  sends: Map<string, number>;
  firstSent: number;
  lastAck: number;
}

/** Keep-alive connections for the publisher: fetch costs this process more CPU per request
 * than the daemon spends publishing, and the publisher shares the machine with the daemon. */
const publishAgent = new http.Agent({ keepAlive: true, maxSockets: 256 });

function postKeepAlive(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent: publishAgent,
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * Publishes `count` agent.created events through the control channel (what `svc events trigger`
 * does), settings.deliveryConcurrency requests in flight, recording each acknowledgement.
 */
async function publishEvents(ctx: DaemonContext, count: number, offset: number) {
  const url = `${ctx.url}/trpc/events.trigger`;
  const headers = {
    authorization: `Bearer ${ctx.controlToken()}`,
    'content-type': 'application/json',
  };
  const acks = new Map<string, number>();
  const sends = new Map<string, number>();
  let next = 0;
  let failure: unknown;
  let lastAck = 0;
  const worker = async () => {
    while (next < count && failure === undefined) {
      const n = offset + next;
      next += 1;
      try {
        const sentAt = wallNow();
        const { status, text } = await postKeepAlive(
          url,
          headers,
          JSON.stringify({ type: 'agent.created', data: { n } }),
        );
        const at = wallNow();
        if (status !== 200) {
          throw new Error(`events.trigger answered ${status}: ${text.slice(0, 300)}`);
        }
        const { id } = (JSON.parse(text) as { result: { data: { id: string } } }).result.data;
        acks.set(id, at);
        sends.set(id, sentAt);
        lastAck = Math.max(lastAck, at);
      } catch (error) {
        failure ??= error;
      }
    }
  };
  const firstSent = wallNow();
  await Promise.all(
    Array.from({ length: Math.min(settings.deliveryConcurrency, count) }, () => worker()),
  );
  if (failure !== undefined) {
    throw new Error(
      `publishing events failed: ${failure instanceof Error ? failure.message : String(failure)}`,
    );
  }
  if (acks.size !== count) {
    throw new Error(`publishing ${count} events gave ${acks.size} distinct event ids`);
  }
  return { acks, sends, firstSent, lastAck } satisfies Published;
}

/**
 * Waits until the receiver's count (by default: distinct events arrived) reaches `expected`,
 * or DELIVERY_IDLE_MS passed without it moving.
 */
async function waitForDeliveries(
  receiver: ReceiverProcess,
  expected: number,
  count: (status: ReceiverAnswer<'status'>) => number = (status) => status.unique,
): Promise<void> {
  let last = -1;
  let changedAt = Date.now();
  for (;;) {
    const reached = count(await receiver.ask('status'));
    if (reached >= expected) return;
    if (reached !== last) {
      last = reached;
      changedAt = Date.now();
    } else if (Date.now() - changedAt > DELIVERY_IDLE_MS) {
      return;
    }
    await sleep(50);
  }
}

interface DeliveryResult {
  events: number;
  publishedPerSecond: number;
  /** Arrivals of published events, duplicates included. */
  arrivals: number;
  duplicates: number;
  missing: number;
  /** Arrivals naming an event this run did not publish, or no event at all. */
  unexpected: number;
  /** undefined when fewer than two arrivals. */
  deliveriesPerSecond: number | undefined;
  /** Publish acknowledgement -> first arrival, ms; undefined when nothing arrived. */
  latency: { p50: number; p99: number; max: number; min: number } | undefined;
  /**
   * Publish request sent -> first arrival, ms: an upper bound of the delivery latency (it adds
   * the publish request), where the figure above can be a lower one (the acknowledgement may
   * be read after the delivery arrived).
   */
  fromSend: { p50: number; p99: number } | undefined;
  /** Last arrival - last acknowledgement, ms: how far delivery trailed publishing. */
  trailMs: number | undefined;
  daemonCpuMsPerEvent: number | undefined;
  drain: DrainResult;
}

/** The backlog drain: `events` retries made due at once by moving the sandbox clock. */
interface DrainResult {
  /** Distinct backlog events delivered. */
  delivered: number;
  /** Arrivals / (last arrival - first arrival); undefined when fewer than two arrivals. */
  deliveriesPerSecond: number | undefined;
  /** Clock moved -> last arrival, ms. */
  allInMs: number | undefined;
}

/** The delivery schedule's first retry comes this long after a failed first attempt. */
const FIRST_RETRY_MS = 60_000;
const DRAIN_SETTLE_MS = 1_000;

/**
 * Delivery capacity without publishing alongside: publishes `events` more events whose first
 * attempts the receiver refuses (503), so that each waits for its retry a minute later, then
 * moves the sandbox clock past all the retries (clock.advance, which fires what became due)
 * and times the arrivals.
 */
async function runDrain(
  ctx: Daemon,
  receiver: ReceiverProcess,
  events: number,
  offset: number,
): Promise<DrainResult> {
  await receiver.ask('reset');
  await receiver.ask('refuse');
  const backlog = await publishEvents(ctx, events, offset);
  await waitForDeliveries(receiver, events, (status) => status.refused);
  // The daemon stores each retry (due a minute after the attempt, on its clock) only once it
  // has read the refusal: give the last ones time to be stored before the clock moves.
  await sleep(DRAIN_SETTLE_MS);
  await receiver.ask('reset');
  await receiver.ask('accept');
  const advanceMs = FIRST_RETRY_MS + Math.ceil(wallNow() - backlog.firstSent) + 5_000;
  const movedAt = wallNow();
  // Handled at once, so that a failure is reported here and not as an unhandled rejection.
  const advanced = ctx.control('clock.advance', { ms: advanceMs }, 'mutation').then(
    () => undefined,
    (error: unknown) => error,
  );
  await waitForDeliveries(receiver, events);
  const advanceError = await advanced;
  if (advanceError !== undefined) {
    throw new Error(
      `clock.advance failed: ${advanceError instanceof Error ? advanceError.message : String(advanceError)}`,
    );
  }
  const report = await receiver.ask('report');
  const delivered = new Set<string>();
  let arrivals = 0;
  let firstAt = Infinity;
  let lastAt = -Infinity;
  report.ids.forEach((id, index) => {
    if (!backlog.acks.has(id)) return;
    const at = report.times[index]!;
    arrivals += 1;
    delivered.add(id);
    firstAt = Math.min(firstAt, at);
    lastAt = Math.max(lastAt, at);
  });
  return {
    delivered: delivered.size,
    deliveriesPerSecond: arrivals > 1 ? (arrivals * 1000) / (lastAt - firstAt) : undefined,
    allInMs: arrivals ? lastAt - movedAt : undefined,
  };
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
  return sorted[
    Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  ]!;
}

async function runDelivery(ctx: Daemon): Promise<DeliveryResult> {
  const receiver = await startReceiver();
  try {
    await api(ctx, 'POST', '/v1/webhooks', { url: receiver.url, events: ['agent.created'] });
    const warmup = Math.min(DELIVERY_WARMUP_EVENTS, settings.deliveryEvents);
    process.stdout.write(`  webhook delivery: warm-up, ${warmup} events ...`);
    await publishEvents(ctx, warmup, 0);
    await waitForDeliveries(receiver, warmup);
    const warm = await receiver.ask('status');
    await receiver.ask('reset');
    process.stdout.write(` ${warm.unique} delivered\n`);

    const events = settings.deliveryEvents;
    process.stdout.write(`  webhook delivery: ${events} events ...`);
    const cpuBefore = cpuSeconds(ctx.pid);
    const published = await publishEvents(ctx, events, warmup);
    await waitForDeliveries(receiver, events);
    await sleep(DELIVERY_GRACE_MS);
    const cpuAfter = cpuSeconds(ctx.pid);
    const report = await receiver.ask('report');

    const firstArrival = new Map<string, number>();
    let duplicates = 0;
    let unexpected = report.withoutId;
    let arrivals = 0;
    let firstAt = Infinity;
    let lastAt = -Infinity;
    report.ids.forEach((id, index) => {
      const at = report.times[index]!;
      if (!published.acks.has(id)) {
        unexpected += 1;
        return;
      }
      arrivals += 1;
      firstAt = Math.min(firstAt, at);
      lastAt = Math.max(lastAt, at);
      if (firstArrival.has(id)) duplicates += 1;
      else firstArrival.set(id, at);
    });
    const latencies = [...firstArrival].map(([id, at]) => at - published.acks.get(id)!);
    latencies.sort((a, b) => a - b);
    const fromSend = [...firstArrival].map(([id, at]) => at - published.sends.get(id)!);
    fromSend.sort((a, b) => a - b);
    const result: Omit<DeliveryResult, 'drain'> = {
      events,
      publishedPerSecond: (events * 1000) / (published.lastAck - published.firstSent),
      arrivals,
      duplicates,
      missing: events - firstArrival.size,
      unexpected,
      deliveriesPerSecond: arrivals > 1 ? (arrivals * 1000) / (lastAt - firstAt) : undefined,
      latency: latencies.length
        ? {
            p50: percentile(latencies, 50),
            p99: percentile(latencies, 99),
            max: latencies[latencies.length - 1]!,
            min: latencies[0]!,
          }
        : undefined,
      fromSend: fromSend.length
        ? { p50: percentile(fromSend, 50), p99: percentile(fromSend, 99) }
        : undefined,
      trailMs: arrivals ? lastAt - published.lastAck : undefined,
      daemonCpuMsPerEvent:
        cpuBefore === undefined || cpuAfter === undefined
          ? undefined
          : ((cpuAfter - cpuBefore) * 1000) / events,
    };
    process.stdout.write(
      ` ${result.publishedPerSecond.toFixed(0)} published/s, ` +
        `${result.deliveriesPerSecond?.toFixed(0) ?? '-'} deliveries/s, ` +
        `p99 ${result.latency?.p99.toFixed(1) ?? '-'} ms\n`,
    );

    process.stdout.write(`  webhook delivery: backlog drain, ${events} events ...`);
    const drain = await runDrain(ctx, receiver, events, warmup + events);
    process.stdout.write(
      ` ${drain.delivered} delivered, ${drain.deliveriesPerSecond?.toFixed(0) ?? '-'} deliveries/s\n`,
    );
    return { ...result, drain };
  } finally {
    await stopChild(receiver.child);
  }
}

function deliveryGuarantee(result: DeliveryResult): { text: string; ok: boolean } {
  const extra = result.unexpected ? `, ${result.unexpected} unexpected request(s)` : '';
  if (result.missing > 0) {
    return {
      text: `${result.missing} of ${result.events} missing, ${result.duplicates} duplicate(s)${extra}`,
      ok: false,
    };
  }
  if (result.duplicates > 0) {
    return { text: `at least once (${result.duplicates} duplicate(s))${extra}`, ok: true };
  }
  return { text: `exactly once (${result.events}/${result.events})${extra}`, ok: true };
}

function deliveryVerdicts(result: DeliveryResult) {
  return {
    rate: (result.deliveriesPerSecond ?? 0) >= DELIVERY_TARGET_PER_SECOND,
    p99: result.latency !== undefined && result.latency.p99 < DELIVERY_TARGET_P99_MS,
    guarantee: deliveryGuarantee(result).ok,
  };
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

function printDelivery(result: DeliveryResult) {
  console.log(
    `\nWebhook delivery (${result.events} agent.created events published through the control ` +
      `channel, ${settings.deliveryConcurrency} in flight; one webhook; receiver in a child process)\n`,
  );
  const verdicts = deliveryVerdicts(result);
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
  const ms = (value: number | undefined) => (value === undefined ? '-' : value.toFixed(1));
  const guarantee = deliveryGuarantee(result);
  console.log(
    table(
      ['figure', 'value', 'target', 'verdict'],
      [
        ['events published/s', result.publishedPerSecond.toFixed(0), '', ''],
        [
          'deliveries/s (sustained)',
          result.deliveriesPerSecond?.toFixed(0) ?? '-',
          `>= ${DELIVERY_TARGET_PER_SECOND}`,
          verdict(verdicts.rate),
        ],
        ['latency p50 ms (publish ack -> receipt)', ms(result.latency?.p50), '', ''],
        [
          'latency p99 ms (publish ack -> receipt)',
          ms(result.latency?.p99),
          `< ${DELIVERY_TARGET_P99_MS}`,
          verdict(verdicts.p99),
        ],
        ['latency max ms', ms(result.latency?.max), '', ''],
        ['latency min ms', ms(result.latency?.min), '', ''],
        ['latency p50 ms (publish request -> receipt)', ms(result.fromSend?.p50), '', ''],
        ['latency p99 ms (publish request -> receipt)', ms(result.fromSend?.p99), '', ''],
        ['last arrival - last ack ms', ms(result.trailMs), '', ''],
        ['daemon cpu ms/event', result.daemonCpuMsPerEvent?.toFixed(2) ?? '-', '', ''],
        [
          'backlog drain deliveries/s (informational)',
          result.drain.deliveriesPerSecond?.toFixed(0) ?? '-',
          '',
          '',
        ],
        [
          'backlog drain: delivered, clock moved -> last ms',
          `${result.drain.delivered}/${result.events}, ${ms(result.drain.allInMs)}`,
          '',
          '',
        ],
        ['delivery', guarantee.text, 'at least once', verdict(verdicts.guarantee)],
      ],
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
  console.log(
    `  webhook delivery: ${settings.deliveryEvents} events after a warm-up of ` +
      `${Math.min(DELIVERY_WARMUP_EVENTS, settings.deliveryEvents)}, ` +
      `${settings.deliveryConcurrency} publish requests in flight`,
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
  let delivery: DeliveryResult;
  let uploadHealth: UploadHealthResult;
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
    delivery = await runDelivery(daemon);
    uploadHealth = await runUploadHealth(daemon);
  } catch (error) {
    if (results.length) printHttp(results);
    console.error(`\nbench could not run: ${error instanceof Error ? error.message : error}`);
    await teardown();
    return 1;
  }
  await teardown();
  printHttp(results);
  printDelivery(delivery);
  printUploadHealth(uploadHealth);

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
    Object.values(deliveryVerdicts(delivery)).filter((ok) => !ok).length +
    (startup.ratio < STARTUP_TARGET ? 0 : 1);
  console.log(
    missed
      ? `\n${missed} target(s) missed (see FAIL above); the bench itself ran fine.`
      : '\nAll targets met.',
  );
  return 0;
}

process.exitCode = await main();
