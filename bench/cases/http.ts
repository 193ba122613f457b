// HTTP throughput: the daemon against the bare baseline server, one scenario at a time.
//
// HTTP: for each scenario below, autocannon (in this process) loads the real daemon (started with
// the real CLI in a temp data dir, default log level: request lines go to the data dir's log file
// as in normal use, up to 1,000 a second) and the matching path of bench/baseline-server.ts (a bare
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
//   JSON by hand; 0.6 (the floor of /me and the events list, bench/floors.ts) means each request costs 1.67 times the bare
//   minimum (bench/cases/floor.ts shows how much of that bare Fastify spends).
//   What the difference buys: the access gate (key lookup, tenant, scope, three rate-limit
//   buckets), SQLite reads, validation, the request log line and Fastify itself; for execute
//   (floor 0.25) also the brain's answer, the per-agent rate limit and one transaction that
//   stores the execution, two events and the agent's stats. p99 is the daemon's 99th
//   percentile latency under that load (10 connections by default).
//   cpu µs/req is the server process's CPU time (all threads) per request and cpu ratio =
//   baseline µs / daemon µs: the same comparison as the req/s ratio when each server saturates
//   its core, but far less sensitive to other work on the machine (use it to judge a noisy run).
//   When autocannon cannot saturate the baseline (baseline req/s x cpu µs/req well under one
//   core-second per second), the req/s ratio flatters the daemon and the cpu ratio does not.
//
import {
  apiHeaders,
  benchAgent,
  settings,
  table,
  type BenchCase,
  type DaemonContext,
  type Method,
  type Target,
  compareRounds,
  type RunFigures,
  roundOrder,
} from '../harness.js';
import { describeFloor, FLOORS, holds, type Floor } from '../floors.js';
import { loadWithCpu } from '../load.js';

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
  floor: Floor;
  /** The status every answer (of both servers) must have (default: any 2xx). */
  status?: number;
}

const EVENTS_TO_SEED = 200;

/** Add scenarios here; each needs a baseline route of the same size and shape. */
const scenarios: Scenario[] = [
  {
    name: 'GET /v1/auth/me',
    method: 'GET',
    path: '/v1/auth/me',
    baselinePath: '/me',
    floor: FLOORS.authMeRatio,
  },
  {
    name: 'GET /v1/events?limit=20',
    method: 'GET',
    path: '/v1/events?limit=20',
    baselinePath: '/events',
    floor: FLOORS.eventsRatio,
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
    floor: FLOORS.agentReadRatio,
    status: 200,
    setup: async (ctx) => void (await benchAgent(ctx)),
  },
  {
    name: 'POST /v1/agents/{id}/execute',
    method: 'POST',
    path: (ctx) => `/v1/agents/${ctx.agentId}/execute`,
    baselinePath: '/execute',
    body: { input: 'where is my order?', wait_for_completion: true },
    floor: FLOORS.agentExecuteRatio,
    // 200 = completed (202 would be waiting for approval, an error status a failure).
    status: 200,
    setup: async (ctx) => void (await benchAgent(ctx)),
  },
];

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
  const { result, figures } = await loadWithCpu(target.pid, {
    url: `${target.url}${path}`,
    method,
    headers,
    ...(body === undefined ? {} : { body }),
    connections: settings.connections,
    pipelining: settings.pipelining,
    duration: seconds,
  });
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
  return figures;
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
    const order = roundOrder([baseline, daemon], round);
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
  return { scenario, bytes, ...compareRounds(runs.daemon, runs.baseline) };
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
        'floor',
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
        describeFloor(result.scenario.floor),
        String(result.daemon.p99),
        String(result.baseline.p99),
        `${result.bytes.daemon}/${result.bytes.baseline}`,
        `${result.daemon.cpuUsPerRequest?.toFixed(0) ?? '-'}/${result.baseline.cpuUsPerRequest?.toFixed(0) ?? '-'}`,
        result.cpuRatio?.toFixed(2) ?? '-',
        holds(result.scenario.floor, result.ratio) ? 'PASS' : 'FAIL',
      ]),
    ),
  );
}

const httpCase: BenchCase = {
  order: 10,
  needs: 'servers',
  describe: () =>
    `autocannon: ${settings.connections} connections, pipelining ${settings.pipelining}, ` +
    `${settings.warmupSeconds} s warm-up + ${settings.seconds} s measured per run, ` +
    `${settings.rounds} round(s), baseline and daemon alternating`,
  async run(servers) {
    const { daemon, baselineTarget, daemonTarget } = servers!;
    const results: ScenarioResult[] = [];
    for (const scenario of scenarios) {
      try {
        results.push(await runScenario(scenario, baselineTarget, daemonTarget, daemon));
      } catch (error) {
        if (results.length) printHttp(results);
        throw error;
      }
    }
    return {
      print: () => printHttp(results),
      missed: results.filter((result) => !holds(result.scenario.floor, result.ratio)).length,
    };
  },
};

export default httpCase;
