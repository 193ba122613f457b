// What Fastify itself costs (informational, no target): GET /me of bench/baseline-server.ts, the
// same answer as the http case's baseline for GET /v1/auth/me, served by the bare node:http
// baseline and by a bare Fastify 5 app (one async route with a response schema; no logger,
// hooks or plugins), alternating as the http case does. The read targets are ratios to bare
// node:http; this shows how much of that ratio Fastify spends before the daemon does anything
// (the access gate, the rate limiter and its headers, the envelope, the request log line), and
// so how many CPU µs per request a read target leaves for that work.
import {
  settings,
  startBaseline,
  stopBaseline,
  table,
  type BenchCase,
  compareRounds,
  type RunFigures,
  roundOrder,
} from '../harness.js';
import { loadWithCpu } from '../load.js';

const READ_TARGET = 0.6;

interface FloorResult {
  http: RunFigures;
  fastify: RunFigures;
  ratio: number;
  cpuRatio: number | undefined;
}

async function load(url: string, pid: number, seconds: number): Promise<RunFigures> {
  const { result, figures } = await loadWithCpu(pid, {
    url: `${url}/me`,
    connections: settings.connections,
    pipelining: settings.pipelining,
    duration: seconds,
  });
  if (result.non2xx > 0 || result.errors > 0 || result['2xx'] === 0) {
    throw new Error(`GET /me: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  }
  return figures;
}

function printFloor(result: FloorResult): void {
  console.log('\nFastify floor (GET /me, bare Fastify 5 vs bare node:http; informational)\n');
  const cpu = (figures: RunFigures) => figures.cpuUsPerRequest?.toFixed(1) ?? '-';
  console.log(
    table(
      ['server', 'req/s', 'p99 ms', 'cpu µs/req', 'ratio to node:http', 'cpu ratio'],
      [
        [
          'bare node:http',
          result.http.reqPerSec.toFixed(0),
          String(result.http.p99),
          cpu(result.http),
          '1.00',
          '1.00',
        ],
        [
          'bare Fastify 5',
          result.fastify.reqPerSec.toFixed(0),
          String(result.fastify.p99),
          cpu(result.fastify),
          result.ratio.toFixed(2),
          result.cpuRatio?.toFixed(2) ?? '-',
        ],
      ],
    ),
  );
  const base = result.http.cpuUsPerRequest;
  const fastify = result.fastify.cpuUsPerRequest;
  if (base !== undefined && fastify !== undefined) {
    const budget = base / READ_TARGET;
    console.log(
      `\n  A read at ${READ_TARGET} of node:http may cost ${budget.toFixed(1)} CPU µs; bare Fastify ` +
        `spends ${fastify.toFixed(1)} of them, which leaves ${(budget - fastify).toFixed(1)} µs for ` +
        `the access gate, the limiter, the envelope and the request log.`,
    );
  }
}

const floorCase: BenchCase = {
  order: 11,
  needs: 'servers',
  describe: () => `Fastify floor: GET /me on bare Fastify 5 vs bare node:http (informational)`,
  async run(servers) {
    const http = servers!.baseline;
    const fastify = await startBaseline(['--fastify']);
    try {
      const targets = [
        { label: 'node:http', url: http.url, pid: http.child.pid!, runs: [] as RunFigures[] },
        { label: 'Fastify', url: fastify.url, pid: fastify.child.pid!, runs: [] as RunFigures[] },
      ];
      for (let round = 0; round < settings.rounds; round += 1) {
        const order = roundOrder(targets, round);
        for (const target of order) {
          process.stdout.write(
            `  floor: ${target.label} (round ${round + 1}/${settings.rounds}) ...`,
          );
          await load(target.url, target.pid, settings.warmupSeconds);
          const figures = await load(target.url, target.pid, settings.seconds);
          target.runs.push(figures);
          process.stdout.write(
            ` ${figures.reqPerSec.toFixed(0)} req/s, ${figures.cpuUsPerRequest?.toFixed(1) ?? '-'} CPU µs/req\n`,
          );
        }
      }
      const compared = compareRounds(targets[1]!.runs, targets[0]!.runs);
      const result: FloorResult = {
        http: compared.baseline,
        fastify: compared.daemon,
        ratio: compared.ratio,
        cpuRatio: compared.cpuRatio,
      };
      return { print: () => printFloor(result), missed: 0 };
    } finally {
      await stopBaseline(fastify);
    }
  },
};

export default floorCase;
