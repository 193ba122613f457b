// The workflow case of `npm run bench`: durable five-step runs answered inline.
//
// The harness's daemon runs a workflow
// of five steps, agent_action -> condition -> agent_action -> webhook -> agent_action, on one
// active L3 agent (the simulated brain answers, so every agent step completes), the webhook step
// calling a local receiver in a child process (bench/webhook-receiver.ts, answering 200 at once).
// autocannon (in this process) sends POST /v1/workflows/{id}/execute {"input": {...},
// "wait_for_completion": true} over BENCH_WORKFLOW_CONNECTIONS (50) connections: every answer
// must be 200 with a completed run, so runs/s is completed durable runs per second, each stored
// step by step (an execution row, one row per step attempt, its events) before the answer.
// The same load goes to POST /workflow-execute of the baseline (bench/baseline-server.ts), a bare
// node:http server answering an execution of the same shape and size without doing any of it,
// alternating the two per round as the HTTP scenarios do.
//
// RunFigures: runs/s (daemon, mean of the rounds; floor FLOORS.runsPerSecond in bench/floors.ts), p50 and p99 of a run (the
// daemon's answer latency, worst round's p99; floor FLOORS.runP99Ms), the baseline's req/s and ratio = daemon /
// baseline, CPU µs per run of each server (Linux /proc) and their ratio. After the load the
// receiver's count is checked against the completed runs: one webhook call per run, no more, no
// fewer (the bench fails if not).
//
// Settings (environment): BENCH_SECONDS, BENCH_WARMUP_SECONDS (default 6 here: see
// settings.engineWarmupSeconds), BENCH_ROUNDS (as every case),
// BENCH_WORKFLOW_CONNECTIONS (50).
import {
  numberSetting,
  settings,
  startReceiver,
  stopChild,
  apiHeaders,
  type BenchCase,
  type ReceiverProcess,
  type Servers,
  compareRounds,
  type RunFigures,
  roundOrder,
} from '../harness.js';
import { describeFloor, FLOORS, holds } from '../floors.js';
import { loadWithCpu } from '../load.js';

const CONNECTIONS = Math.round(numberSetting('BENCH_WORKFLOW_CONNECTIONS', 50));

export interface WorkflowBenchResult {
  daemon: RunFigures;
  baseline: RunFigures;
  /** daemon runs/s / baseline req/s */
  ratio: number;
  /** baseline CPU µs per request / daemon CPU µs per run */
  cpuRatio: number | undefined;
  bytes: { daemon: number; baseline: number };
  /** Runs the daemon completed (probe, warm-ups, loads), and webhook calls the receiver got: equal, or the bench fails. */
  runs: number;
  webhookCalls: number;
  pass: boolean;
}

// ---------------------------------------------------------------------------------------------
// The workflow

export interface Target {
  label: 'baseline' | 'daemon';
  url: string;
  pid: number;
  headers: Record<string, string>;
}

const INPUT = { text: 'Where is my order 1234?', amount: 120 };
const BODY = JSON.stringify({ input: INPUT, wait_for_completion: true });

async function call<T>(target: Target, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${target.url}${path}`, {
    method,
    headers: {
      ...target.headers,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
  return (JSON.parse(text) as { data: T }).data;
}

/** An active L3 agent and the five-step workflow; answers the execute path. */
export async function setUpWorkflow(daemon: Target, receiverUrl: string): Promise<string> {
  const agent = await call<{ id: string }>(daemon, 'POST', '/v1/agents', {
    name: 'Bench workflow agent',
    ontology: 'retail-v1',
    type: 'customer-service',
    autonomy_level: 'L3',
  });
  await call(daemon, 'POST', '/v1/agents/deploy', { agent_id: agent.id });
  const agentStep = (id: string, name: string, next: string | null, action: string) => ({
    id,
    name,
    type: 'agent_action',
    agent_id: agent.id,
    config: { action, input_mapping: { text: '{{trigger.payload.text}}' } },
    ...(next ? { next_step_id: next } : {}),
  });
  const workflow = await call<{ id: string }>(daemon, 'POST', '/v1/workflows', {
    name: 'Bench: five durable steps',
    status: 'active',
    steps: [
      agentStep('classify', 'Classify the request', 'check', 'classify'),
      {
        id: 'check',
        name: 'Confident enough?',
        type: 'condition',
        config: {
          condition: 'classify.result.confidence >= 0 && trigger.payload.amount > 100',
          if_true: 'draft',
          if_false: 'draft',
        },
      },
      agentStep('draft', 'Draft the answer', 'notify', 'draft_reply'),
      {
        id: 'notify',
        name: 'Notify the CRM',
        type: 'webhook',
        config: {
          url: receiverUrl,
          method: 'POST',
          body: { run: '{{workflow.execution_id}}', reply: '{{draft.result.output}}' },
        },
        next_step_id: 'close',
      },
      agentStep('close', 'Close the ticket', null, 'close_ticket'),
    ],
  });
  return `/v1/workflows/${workflow.id}/execute`;
}

/** One run before loading: a wrong answer shows up as an error, not as a figure. */
export async function probe(target: Target, path: string): Promise<number> {
  const response = await fetch(`${target.url}${path}`, {
    method: 'POST',
    headers: { ...target.headers, 'content-type': 'application/json' },
    body: BODY,
  });
  const text = await response.text();
  const status = (JSON.parse(text) as { data?: { status?: string } }).data?.status;
  if (response.status !== 200 || status !== 'completed') {
    throw new Error(
      `the ${target.label} answered ${response.status} to POST ${path}: ${text.slice(0, 800)}`,
    );
  }
  return Buffer.byteLength(text);
}

export async function load(target: Target, path: string, seconds: number, connections: number) {
  const { result, figures } = await loadWithCpu(target.pid, {
    url: `${target.url}${path}`,
    method: 'POST',
    headers: { ...target.headers, 'content-type': 'application/json' },
    body: BODY,
    connections,
    duration: seconds,
  });
  const other = Object.entries(result.statusCodeStats ?? {})
    .filter(([code, stats]) => code !== '200' && (stats.count ?? 0) > 0)
    .map(([code, stats]) => `${code} x${stats.count}`);
  if (result.errors > 0 || result.timeouts > 0 || other.length || result['2xx'] === 0) {
    throw new Error(
      `the ${target.label} did not answer 200 to every run (errors ${result.errors}, timeouts ` +
        `${result.timeouts}, other statuses ${other.join(', ') || 'none'}); the figures would mean nothing.`,
    );
  }
  return figures;
}

/**
 * Waits until the daemon has no run left going and the receiver's count stopped moving; answers
 * the runs the daemon counted (all must have completed) and the webhook calls received.
 */
export async function settle(daemon: Target, executePath: string, receiver: ReceiverProcess) {
  const workflowPath = executePath.replace(/\/execute$/, '');
  const deadline = Date.now() + 30_000;
  for (;;) {
    const running = await fetch(`${daemon.url}${workflowPath}/executions?status=running&limit=1`, {
      headers: daemon.headers,
    });
    const busy = ((await running.json()) as { data: unknown[] }).data.length > 0;
    const before = (await receiver.ask('status')).received;
    await new Promise((resolve) => setTimeout(resolve, 300));
    const calls = (await receiver.ask('status')).received;
    if ((!busy && calls === before) || Date.now() > deadline) {
      const workflow = await call<{ stats: { total_executions: number; success_rate: number } }>(
        daemon,
        'GET',
        workflowPath,
      );
      if (workflow.stats.success_rate !== 1) {
        throw new Error(
          `not every run completed (success rate ${workflow.stats.success_rate}); the figures would mean nothing`,
        );
      }
      return { runs: workflow.stats.total_executions, calls };
    }
  }
}

/** Loads the daemon and the baseline with five-step runs; throws when it could not run. */
async function benchWorkflows(servers: Servers): Promise<WorkflowBenchResult> {
  const receiver = await startReceiver();
  try {
    const daemon: Target = {
      label: 'daemon',
      url: servers.daemon.url,
      pid: servers.daemon.pid,
      headers: apiHeaders(servers.daemon),
    };
    const base: Target = {
      label: 'baseline',
      url: servers.baseline.url,
      pid: servers.baseline.child.pid!,
      headers: {},
    };
    const daemonPath = await setUpWorkflow(daemon, receiver.url);
    const pathOf = (target: Target) =>
      target.label === 'daemon' ? daemonPath : '/workflow-execute';
    const bytes = {
      daemon: await probe(daemon, daemonPath),
      baseline: await probe(base, pathOf(base)),
    };

    const measured: Record<Target['label'], RunFigures[]> = { baseline: [], daemon: [] };
    for (let round = 0; round < settings.rounds; round += 1) {
      for (const target of roundOrder([base, daemon], round)) {
        process.stdout.write(
          `  workflows: ${target.label} (round ${round + 1}/${settings.rounds}) ...`,
        );
        await load(target, pathOf(target), settings.engineWarmupSeconds, CONNECTIONS);
        const figures = await load(target, pathOf(target), settings.seconds, CONNECTIONS);
        measured[target.label].push(figures);
        process.stdout.write(
          ` ${figures.reqPerSec.toFixed(0)} ${target.label === 'daemon' ? 'runs' : 'req'}/s, ` +
            `p99 ${figures.p99} ms, ${figures.cpuUsPerRequest?.toFixed(0) ?? '-'} CPU µs each\n`,
        );
      }
    }
    // Every run made exactly one webhook call. autocannon counts only the answers it read before
    // the end of each load, so the runs are counted by the daemon (the workflow's stats, once
    // the last runs in flight at the end have finished) and must all have completed.
    const { runs, calls } = await settle(daemon, daemonPath, receiver);
    if (calls !== runs) {
      throw new Error(`${runs} runs completed but the receiver got ${calls} webhook calls`);
    }
    const compared = compareRounds(measured.daemon, measured.baseline);
    return {
      ...compared,
      bytes,
      runs,
      webhookCalls: calls,
      pass:
        holds(FLOORS.runsPerSecond, compared.daemon.reqPerSec) &&
        holds(FLOORS.runP99Ms, compared.daemon.p99),
    };
  } finally {
    await stopChild(receiver.child);
  }
}

function printWorkflowBench(result: WorkflowBenchResult): void {
  const rows: [string, string][] = [
    ['runs/s (completed, durable, answered inline)', result.daemon.reqPerSec.toFixed(0)],
    ['runs/s', describeFloor(FLOORS.runsPerSecond)],
    ['p50 ms of a run', result.daemon.p50.toFixed(1)],
    ['p99 ms of a run (worst round)', `${result.daemon.p99} (${describeFloor(FLOORS.runP99Ms)})`],
    ['baseline req/s (node:http, same answer)', result.baseline.reqPerSec.toFixed(0)],
    ['baseline p99 ms', String(result.baseline.p99)],
    ['ratio daemon / baseline', result.ratio.toFixed(3)],
    [
      'cpu µs per run / per baseline answer',
      `${result.daemon.cpuUsPerRequest?.toFixed(0) ?? '-'} / ${result.baseline.cpuUsPerRequest?.toFixed(0) ?? '-'}`,
    ],
    ['cpu ratio (baseline / daemon)', result.cpuRatio?.toFixed(3) ?? '-'],
    ['answer bytes daemon / baseline', `${result.bytes.daemon} / ${result.bytes.baseline}`],
    ['runs completed / webhook calls received', `${result.runs} / ${result.webhookCalls}`],
    ['verdict', result.pass ? 'PASS' : 'FAIL'],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  console.log('');
  for (const [label, value] of rows) console.log(`  ${label.padEnd(width)}  ${value}`);
}

const workflowsCase: BenchCase = {
  order: 12,
  needs: 'servers',
  describe: () =>
    `workflows: durable five-step runs with wait_for_completion, ${CONNECTIONS} connections, ` +
    `${settings.engineWarmupSeconds} s warm-up + ${settings.seconds} s x ${settings.rounds} round(s)`,
  async run(servers) {
    const result = await benchWorkflows(servers!);
    return {
      print: () => {
        console.log(
          `\nWorkflows: durable five-step runs (agent_action -> condition -> agent_action -> ` +
            `webhook -> agent_action), wait_for_completion, ${CONNECTIONS} connections`,
        );
        printWorkflowBench(result);
      },
      missed: result.pass ? 0 : 1,
    };
  },
};

export default workflowsCase;
