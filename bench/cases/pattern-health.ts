// /healthz latency while sandbox stubs with a catastrophic pattern are matched: an agent with the
// stub /(a+)+$/ executes inputs of 99,999 a's and a '!' (a backtracking engine takes minutes over
// one; RE2, which runs stub patterns, is linear), 8 at a time, while sequential probes time
// /healthz. Target: p99 < 10 ms. Percentiles are nearest-rank (the harness's).
import {
  api,
  benchAgent,
  healthzMs,
  percentile,
  type BenchCase,
  type DaemonContext,
} from '../harness.js';

const TARGET_P99_MS = 10;
const EXECUTIONS = 200;
const IN_FLIGHT = 8;

interface PatternHealthResult {
  executions: number;
  probes: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

async function runPatternHealth(ctx: DaemonContext): Promise<PatternHealthResult> {
  const agentId = await benchAgent(ctx);
  await ctx.control(
    'agents.stubs.add',
    {
      agent_id: agentId,
      match: '/(a+)+$/',
      result: { action: 'respond', output: 'matched', confidence: 1 },
    },
    'mutation',
  );
  const input = 'a'.repeat(99_999) + '!';
  let started = 0;
  let done = false;
  const worker = async () => {
    while (started < EXECUTIONS) {
      started += 1;
      await api(ctx, 'POST', `/v1/agents/${agentId}/execute`, {
        input,
        wait_for_completion: true,
      });
    }
  };
  const executions = Promise.all(Array.from({ length: IN_FLIGHT }, worker)).finally(
    () => (done = true),
  );
  const during: number[] = [];
  while (!done) during.push(await healthzMs(ctx.url));
  await executions;
  during.sort((a, b) => a - b);
  return {
    executions: EXECUTIONS,
    probes: during.length,
    p50Ms: percentile(during, 50),
    p99Ms: percentile(during, 99),
    maxMs: during.at(-1) ?? 0,
  };
}

const patternHealthCase: BenchCase = {
  order: 19,
  needs: 'servers',
  describe: () =>
    `pattern-health: /healthz p99 while stub /(a+)+$/ matches 100,000-character inputs ` +
    `(target < ${TARGET_P99_MS} ms)`,
  async run(servers) {
    const result = await runPatternHealth(servers!.daemon);
    const pass = result.p99Ms < TARGET_P99_MS;
    return {
      missed: pass ? 0 : 1,
      print() {
        const ms = (value: number) => value.toFixed(1);
        console.log(
          `\n/healthz while a catastrophic stub pattern is matched (${result.executions} executions, ` +
            `${IN_FLIGHT} in flight, ${result.probes} sequential probes)\n` +
            `  /healthz ms: p50 ${ms(result.p50Ms)}, p99 ${ms(result.p99Ms)}, max ${ms(result.maxMs)} ` +
            `(target p99 < ${TARGET_P99_MS}): ${pass ? 'PASS' : 'FAIL'}`,
        );
      },
    };
  },
};

export default patternHealthCase;
