// Bench case: webhook-trigger intake. autocannon posts a JSON body to POST /v1/hooks/{ws}/{path}
// of an active workflow (one agent_action step on an L3 agent, so every run completes) at
// BENCH_TRIGGER_CONNECTIONS (default 50) connections, and the same body to POST /echo of the bare node:http
// baseline (bench/baseline-server.ts) on the harness's servers, alternating which goes first. Figures:
//   accepted runs/s = 202 answers per second of the measured run (mean of the rounds);
//   ratio = accepted runs/s / baseline req/s (floor FLOORS.triggerIntakeRatio, bench/floors.ts);
//   runs stored = executions of the workflow once the load stops; it may exceed the 202s autocannon
//   counted (requests still in flight when a run stops are accepted but not counted), never fall
//   short of them. completed = those runs in status completed once the queue has drained: every
//   stored run (so every acknowledged one, warm-up included) must complete.
// BENCH_TRIGGER_PARKED=1 swaps the agent step for a one-day wait, so the runs park and the figure
// is the intake alone (start a run, store it, answer), without executing the runs alongside.
// The daemon runs with SVC_ENTERPRISE_RATE_MULTIPLIER=1000000 so the per-workflow execute limit
// (which the hook shares) is not what is measured; the limiter still runs on every request.
//
// Settings (environment): BENCH_SECONDS, BENCH_WARMUP_SECONDS, BENCH_ROUNDS (as every case),
// BENCH_TRIGGER_CONNECTIONS (50), BENCH_TRIGGER_PARKED.
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import {
  api,
  apiHeaders,
  numberSetting,
  settings,
  type BenchCase,
  type DaemonContext,
  type Servers,
  roundOrder,
} from '../harness.js';
import { describeFloor, FLOORS, holds } from '../floors.js';

const CONNECTIONS = Math.round(numberSetting('BENCH_TRIGGER_CONNECTIONS', 50));

export interface TriggerBenchResult {
  connections: number;
  seconds: number;
  rounds: number;
  acceptedPerSecond: number;
  baselinePerSecond: number;
  ratio: number;
  p99Ms: number;
  /** Every 202 autocannon counted, warm-up included. */
  accepted: number;
  /** Runs the daemon stored (at least `accepted`). */
  stored: number;
  /** Runs of the workflow that ended completed. */
  completed: number;
  /** Runs that ended in another state (failed, cancelled, timeout). */
  notCompleted: number;
  drainSeconds: number;
  /** BENCH_TRIGGER_PARKED=1: runs park in a wait, only the intake is measured. */
  parked: boolean;
}

/** An active workflow with a webhook trigger and one agent step on an active L3 agent. */
async function hookWorkflow(
  daemon: DaemonContext,
): Promise<{ hookPath: string; workflowId: string }> {
  const agent = await api<{ id: string }>(daemon, 'POST', '/v1/agents', {
    name: 'Bench trigger agent',
    ontology: 'retail-v1',
    type: 'customer-service',
    autonomy_level: 'L3',
  });
  await api(daemon, 'POST', '/v1/agents/deploy', { agent_id: agent.id });
  const workflow = await api<{ id: string }>(daemon, 'POST', '/v1/workflows', {
    name: 'Bench webhook intake',
    status: 'active',
    trigger: { type: 'webhook', config: { path: 'bench-orders' } },
    // Longer than the parked run's day-long wait (a wait as long as the timeout is refused).
    settings: { timeout_seconds: 172_800 },
    steps:
      process.env.BENCH_TRIGGER_PARKED === '1'
        ? [{ id: 'park', name: 'Park', type: 'wait', config: { duration_seconds: 86400 } }]
        : [
            {
              id: 'answer',
              name: 'Answer',
              type: 'agent_action',
              agent_id: agent.id,
              config: {
                action: 'answer',
                input_mapping: { question: '{{trigger.payload.question}}' },
              },
            },
          ],
  });
  return { hookPath: `/v1/hooks/${daemon.workspaceId}/bench-orders`, workflowId: workflow.id };
}

async function load(url: string, connections: number, seconds: number) {
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ order_id: 'ord_1', question: 'where is my order?' }),
    connections,
    duration: seconds,
  });
  if (result.errors > 0 || result.non2xx > 0)
    throw new Error(
      `${url}: not every answer was 2xx (non-2xx ${result.non2xx}, errors ${result.errors}, statuses ${JSON.stringify(result.statusCodeStats)})`,
    );
  return {
    perSecond: result.requests.average,
    p99: result.latency.p99,
    total: result['2xx'],
  };
}

/** total_count of a list answer (the harness's api() answers only its data). */
async function totalCount(daemon: DaemonContext, path: string): Promise<number> {
  const response = await fetch(`${daemon.url}${path}`, { headers: apiHeaders(daemon) });
  const text = await response.text();
  if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { total_count: number }).total_count;
}

async function executionCounts(daemon: DaemonContext, workflowId: string) {
  const count = async (status: string) =>
    totalCount(daemon, `/v1/workflows/${workflowId}/executions?status=${status}&limit=1`);
  const completed = await count('completed');
  const others = await Promise.all(['failed', 'cancelled', 'timeout'].map(count));
  const all = await totalCount(daemon, `/v1/workflows/${workflowId}/executions?limit=1`);
  return { completed, notCompleted: others.reduce((a, b) => a + b, 0), all };
}

async function benchWebhookTriggers(servers: Servers): Promise<TriggerBenchResult> {
  const connections = CONNECTIONS;
  const { seconds, rounds, engineWarmupSeconds: warmup } = settings;
  const { daemon, baseline } = servers;
  const { hookPath, workflowId } = await hookWorkflow(daemon);
  let accepted = 0;
  const daemonRuns: { perSecond: number; p99: number }[] = [];
  const baselineRuns: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const order = roundOrder(['daemon', 'baseline'] as const, round);
    for (const target of order) {
      if (target === 'daemon') {
        accepted += (await load(`${daemon.url}${hookPath}`, connections, warmup)).total;
        const run = await load(`${daemon.url}${hookPath}`, connections, seconds);
        accepted += run.total;
        daemonRuns.push(run);
      } else {
        await load(`${baseline.url}/echo`, connections, warmup);
        baselineRuns.push((await load(`${baseline.url}/echo`, connections, seconds)).perSecond);
      }
    }
  }
  const drainStart = performance.now();
  const parked = process.env.BENCH_TRIGGER_PARKED === '1';
  let counts = await executionCounts(daemon, workflowId);
  let last = -1;
  // Wait while runs keep finishing; stop once all accepted runs ended or nothing moves for 30 s.
  let still = performance.now();
  while (!parked && counts.completed + counts.notCompleted < Math.max(accepted, counts.all)) {
    await sleep(500);
    counts = await executionCounts(daemon, workflowId);
    const ended = counts.completed + counts.notCompleted;
    if (ended !== last) {
      last = ended;
      still = performance.now();
    } else if (performance.now() - still > 30_000) break;
  }
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const acceptedPerSecond = mean(daemonRuns.map((run) => run.perSecond));
  const baselinePerSecond = mean(baselineRuns);
  return {
    connections,
    seconds,
    rounds,
    acceptedPerSecond,
    baselinePerSecond,
    ratio: acceptedPerSecond / baselinePerSecond,
    p99Ms: Math.max(...daemonRuns.map((run) => run.p99)),
    accepted,
    stored: counts.all,
    completed: counts.completed,
    notCompleted: counts.notCompleted,
    drainSeconds: (performance.now() - drainStart) / 1000,
    parked,
  };
}

function printTriggerBench(result: TriggerBenchResult): void {
  const ok = (pass: boolean) => (pass ? 'PASS' : 'FAIL');
  console.log(
    [
      `Webhook-trigger intake: POST /v1/hooks/{ws}/{path}, ${result.connections} connections, ${result.rounds} x ${result.seconds} s`,
      `  accepted runs/s   ${result.acceptedPerSecond.toFixed(0)} (p99 ${result.p99Ms} ms)`,
      `  baseline req/s    ${result.baselinePerSecond.toFixed(0)} (node:http POST /echo)`,
      `  ratio             ${result.ratio.toFixed(3)} (${describeFloor(FLOORS.triggerIntakeRatio)}) ${ok(holds(FLOORS.triggerIntakeRatio, result.ratio))}`,
      result.parked
        ? `  runs              ${result.accepted} acknowledged (202), ${result.stored} stored, parked in a wait (intake only) ${ok(result.stored >= result.accepted)}`
        : `  runs              ${result.accepted} acknowledged (202), ${result.stored} stored, ${result.completed} completed, ${result.notCompleted} ended otherwise; drained in ${result.drainSeconds.toFixed(1)} s ${ok(result.stored >= result.accepted && result.completed === result.stored)}`,
    ].join('\n'),
  );
}

const triggersCase: BenchCase = {
  order: 14,
  needs: 'servers',
  describe: () =>
    `webhook triggers: POST /v1/hooks/{ws}/{path} at ${CONNECTIONS} connections vs the ` +
    `baseline's POST /echo, every accepted run must complete`,
  async run(servers) {
    const result = await benchWebhookTriggers(servers!);
    const runsOk =
      result.stored >= result.accepted && (result.parked || result.completed === result.stored);
    return {
      print: () => {
        console.log('');
        printTriggerBench(result);
      },
      missed: (holds(FLOORS.triggerIntakeRatio, result.ratio) ? 0 : 1) + (runsOk ? 0 : 1),
    };
  },
};

export default triggersCase;
