// /healthz latency while the daemon matches a catastrophic user pattern (issue 20): an agent
// with the sandbox stub /(a+)+$/ is executed over and over with 999 a's and a '!' (on a
// backtracking engine one such match never ends: 40 characters already take minutes, and the
// daemon answers nothing meanwhile), from PATTERN_LOOPS loops at once, while /healthz is probed
// one request after another. Target: p99 under 10 ms. The input is short so that the figure is
// the pattern's cost and not that of carrying a large body (never-wedged.test.ts matches
// 100,000 characters). Percentiles are nearest-rank (the harness's). BENCH_PATTERN_SECONDS sets
// how long the probes run (default 5).
import { performance } from 'node:perf_hooks';
import {
  api,
  apiHeaders,
  numberSetting,
  percentile,
  table,
  type BenchCase,
  type DaemonContext,
} from '../harness.js';

const TARGET_P99_MS = 10;
const PATTERN_LOOPS = 2;
const STUB = '/(a+)+$/';
const CATASTROPHIC_INPUT = 'a'.repeat(999) + '!';

interface PatternHealthResult {
  executions: number;
  probes: number;
  idleP50Ms: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

async function probe(url: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${url}/healthz`);
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`/healthz answered ${response.status}`);
  return performance.now() - started;
}

async function stubbedAgent(ctx: DaemonContext): Promise<string> {
  const agent = await api<{ id: string }>(ctx, 'POST', '/v1/agents', {
    name: 'Bench patterns',
    ontology: 'retail-v1',
    type: 'customer-service',
    autonomy_level: 'L3',
  });
  await api(ctx, 'POST', '/v1/agents/deploy', { agent_id: agent.id });
  await ctx.control(
    'agents.stubs.add',
    { agent_id: agent.id, match: STUB, result: { action: 'matched', output: 'all a' } },
    'mutation',
  );
  return agent.id;
}

async function runPatternHealth(ctx: DaemonContext): Promise<PatternHealthResult> {
  const agentId = await stubbedAgent(ctx);
  const idle: number[] = [];
  for (let i = 0; i < 50; i++) idle.push(await probe(ctx.url));
  idle.sort((a, b) => a - b);

  const seconds = numberSetting('BENCH_PATTERN_SECONDS', 5);
  const until = performance.now() + seconds * 1000;
  let executions = 0;
  const body = JSON.stringify({ input: CATASTROPHIC_INPUT, wait_for_completion: true });
  const headers = { ...apiHeaders(ctx), 'content-type': 'application/json' };
  const matchLoop = async () => {
    while (performance.now() < until) {
      const response = await fetch(`${ctx.url}/v1/agents/${agentId}/execute`, {
        method: 'POST',
        headers,
        body,
      });
      const text = await response.text();
      if (response.status !== 200) {
        throw new Error(`execute answered ${response.status}: ${text.slice(0, 300)}`);
      }
      executions += 1;
    }
  };
  const loops = Promise.all(Array.from({ length: PATTERN_LOOPS }, matchLoop));
  const during: number[] = [];
  while (performance.now() < until) during.push(await probe(ctx.url));
  await loops;
  during.sort((a, b) => a - b);
  return {
    executions,
    probes: during.length,
    idleP50Ms: percentile(idle, 50),
    p50Ms: percentile(during, 50),
    p99Ms: percentile(during, 99),
    maxMs: during.at(-1) ?? 0,
  };
}

function printPatternHealth(result: PatternHealthResult): void {
  const ms = (value: number) => value.toFixed(1);
  console.log(
    `\n/healthz while ${STUB} is matched against 1,000 characters ` +
      `(${result.executions} executions from ${PATTERN_LOOPS} loops, ${result.probes} sequential probes; idle p50 ${ms(result.idleP50Ms)} ms)\n`,
  );
  console.log(
    table(
      ['figure', 'value', 'target', 'verdict'],
      [
        ['/healthz p50', `${ms(result.p50Ms)} ms`, '', ''],
        [
          '/healthz p99',
          `${ms(result.p99Ms)} ms`,
          `< ${TARGET_P99_MS} ms`,
          result.p99Ms < TARGET_P99_MS ? 'PASS' : 'FAIL',
        ],
        ['/healthz max', `${ms(result.maxMs)} ms`, '', ''],
      ],
    ),
  );
}

const patternHealthCase: BenchCase = {
  order: 19,
  needs: 'servers',
  describe: () =>
    `/healthz latency while a catastrophic stub pattern (${STUB}) is matched: p99 < ${TARGET_P99_MS} ms`,
  async run(servers) {
    const result = await runPatternHealth(servers!.daemon);
    return {
      print: () => printPatternHealth(result),
      missed: result.p99Ms < TARGET_P99_MS ? 0 : 1,
    };
  },
};

export default patternHealthCase;
