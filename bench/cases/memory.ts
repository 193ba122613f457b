// The memory case of `npm run bench`: the daemon's resident memory idle, after a long load, and
// (with BENCH_SOAK=1) over a 10-minute soak.
//
// A daemon of its own (fresh data dir) with an active agent, a one-step workflow (the agent
// answers) and a webhook subscribed to workflow.execution.completed that points at the bench's
// receiver (bench/webhook-receiver.ts): every run is also one delivery. RSS is read from
// /proc/<pid>/status (VmRSS: every thread of the process, the outbound and checkpoint workers
// included).
//   idle: 15 s after the set-up requests (5 s is printed too);       target < 80 MB
//   after BENCH_MEMORY_RUNS (100,000) runs, POST .../execute with wait_for_completion, and
//   their deliveries, all received, then 15 s of rest (5 s printed); target < 150 MB
//   soak (BENCH_SOAK=1, BENCH_SOAK_MINUTES 10): the same load for a minute at a time, RSS and
//   the minute's p99 printed after each; target: the last minute's RSS within 10% of the
//   first's (flat).
// Both are read at rest, as a daemon left running between test runs: it collects its garbage 2 s
// and again 9 s into a quiet spell (daemon/platform/memory-trim.ts; V8 gives a young generation grown
// under load back only in the second), and its checkpoint worker exits 3 s after the last
// write (store/checkpointer.ts).
import autocannon from 'autocannon';
import { readFileSync, rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  api,
  apiHeaders,
  benchAgent,
  numberSetting,
  startReceiver,
  startBenchDaemon,
  stopChild,
  stopSvcDaemon,
  table,
  type BenchCase,
  type Daemon,
  type ReceiverProcess,
} from '../harness.js';
import { describeFloor, FLOORS, holds } from '../floors.js';

const RUNS = Math.round(numberSetting('BENCH_MEMORY_RUNS', 100_000));
const SOAK = process.env.BENCH_SOAK === '1';
const SOAK_MINUTES = Math.round(numberSetting('BENCH_SOAK_MINUTES', 10));
const CONNECTIONS = 32;
const SOAK_GROWTH = 1.1;

/** The daemon's own account: its main thread's V8 heap, used of reserved (svc daemon status). */
async function heapFigures(daemon: Daemon): Promise<string> {
  const status = (await daemon.control('daemon.status')) as {
    memory: { heap_used: number; heap_total: number };
  };
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  return `V8 heap ${mb(status.memory.heap_used)} of ${mb(status.memory.heap_total)} MB`;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

interface MemoryResult {
  idle: number;
  loaded: number;
  runs: number;
  delivered: number;
  soak: { minute: number; rss: number; p99: number; runsPerSecond: number }[];
}

/** RSS 5 s and 15 s into a rest (the daemon trims 2 s and 9 s into it, see memory-trim.ts). */
async function rssAtRest(pid: number): Promise<{ settled: number; text: string }> {
  await sleep(5_000);
  const soon = rssMb(pid);
  await sleep(10_000);
  const settled = rssMb(pid);
  return { settled, text: `${soon.toFixed(1)} MB after 5 s, ${settled.toFixed(1)} MB after 15 s` };
}

async function setUp(daemon: Daemon, receiver: ReceiverProcess): Promise<string> {
  const agentId = await benchAgent(daemon);
  await api(daemon, 'POST', '/v1/webhooks', {
    url: receiver.url,
    events: ['workflow.execution.completed'],
  });
  const workflow = await api<{ id: string }>(daemon, 'POST', '/v1/workflows', {
    name: 'Bench: memory',
    status: 'active',
    steps: [
      {
        id: 'answer',
        name: 'Answer',
        type: 'agent_action',
        agent_id: agentId,
        config: { action: 'answer_question', input_mapping: { text: '{{trigger.payload.text}}' } },
      },
    ],
  });
  return `${daemon.url}/v1/workflows/${workflow.id}/execute`;
}

function load(daemon: Daemon, url: string, options: { amount?: number; duration?: number }) {
  return autocannon({
    url,
    method: 'POST',
    headers: { ...apiHeaders(daemon), 'content-type': 'application/json' },
    body: JSON.stringify({ input: { text: 'Where is my order?' }, wait_for_completion: true }),
    connections: CONNECTIONS,
    ...options,
  });
}

/** Waits until the receiver has `expected` deliveries (or they stop coming for 30 s). */
async function deliveriesReceived(receiver: ReceiverProcess, expected: number): Promise<number> {
  let last = -1;
  let since = Date.now();
  for (;;) {
    const { unique } = await receiver.ask('status');
    if (unique >= expected) return unique;
    if (unique !== last) {
      last = unique;
      since = Date.now();
    } else if (Date.now() - since > 30_000) return unique;
    await sleep(250);
  }
}

async function runMemory(): Promise<MemoryResult> {
  const daemon = await startBenchDaemon();
  const receiver = await startReceiver();
  try {
    const executeUrl = await setUp(daemon, receiver);
    const idle = await rssAtRest(daemon.pid);
    process.stdout.write(
      `  memory: idle ${idle.text} (${await heapFigures(daemon)}); ${RUNS} runs ... `,
    );
    const loaded = await load(daemon, executeUrl, { amount: RUNS });
    const runs = loaded['2xx'];
    const delivered = await deliveriesReceived(receiver, runs);
    const after = await rssAtRest(daemon.pid);
    process.stdout.write(
      `${runs} runs, ${delivered} deliveries, RSS ${after.text} (${await heapFigures(daemon)})\n`,
    );
    const soak: MemoryResult['soak'] = [];
    for (let minute = 1; SOAK && minute <= SOAK_MINUTES; minute += 1) {
      const result = await load(daemon, executeUrl, { duration: 60 });
      const rss = rssMb(daemon.pid);
      const heap = await heapFigures(daemon);
      soak.push({ minute, rss, p99: result.latency.p99, runsPerSecond: result.requests.average });
      console.log(
        `  soak minute ${minute}: RSS ${rss.toFixed(1)} MB (${heap}), p99 ${result.latency.p99} ms, ` +
          `${result.requests.average.toFixed(0)} runs/s`,
      );
    }
    return { idle: idle.settled, loaded: after.settled, runs, delivered, soak };
  } finally {
    await stopChild(receiver.child);
    await stopSvcDaemon(daemon);
    rmSync(daemon.dataDir, { recursive: true, force: true });
  }
}

const memoryCase: BenchCase = {
  order: 95,
  needs: 'standalone',
  describe: () =>
    `memory: daemon RSS idle (${describeFloor(FLOORS.idleRssMb)} MB) and after ${RUNS} runs and their ` +
    `deliveries (BENCH_MEMORY_RUNS; ${describeFloor(FLOORS.loadedRssMb)} MB)` +
    (SOAK ? `, then a ${SOAK_MINUTES}-minute soak` : '; BENCH_SOAK=1 adds a 10-minute soak'),
  async run() {
    const result = await runMemory();
    const first = result.soak[0]?.rss;
    const last = result.soak.at(-1)?.rss;
    const flat = first === undefined || last === undefined || last <= first * SOAK_GROWTH;
    const verdicts = {
      idle: holds(FLOORS.idleRssMb, result.idle),
      loaded: holds(FLOORS.loadedRssMb, result.loaded) && result.delivered >= result.runs,
      flat,
    };
    return {
      missed: Object.values(verdicts).filter((ok) => !ok).length,
      print() {
        const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
        const rows = [
          [
            'idle RSS MB',
            result.idle.toFixed(1),
            describeFloor(FLOORS.idleRssMb),
            verdict(verdicts.idle),
          ],
          [
            `RSS MB after ${result.runs} runs, ${result.delivered} deliveries`,
            result.loaded.toFixed(1),
            `${describeFloor(FLOORS.loadedRssMb)}, every delivery received`,
            verdict(verdicts.loaded),
          ],
        ];
        if (first !== undefined && last !== undefined)
          rows.push([
            `soak RSS MB, minute 1 -> ${result.soak.length}`,
            `${first.toFixed(1)} -> ${last.toFixed(1)}`,
            `growth <= ${Math.round((SOAK_GROWTH - 1) * 100)}%`,
            verdict(flat),
          ]);
        console.log('\nDaemon memory:');
        console.log(table(['figure', 'value', 'target', 'verdict'], rows));
      },
    };
  },
};

export default memoryCase;
