// Does an open dashboard slow the daemon? Workflow runs per second (a one-step run answered
// inline, POST /v1/workflows/{id}/execute with wait_for_completion, over 10 connections) with no
// dashboard stream open, with 1 (an open page) and with 10, in alternating rounds. Each stream
// is a real /ui/api/stream client with the session cookie that reads every message (a run
// sends several), as a page's EventSource does; the message count shows it was live.
import { performance } from 'node:perf_hooks';
import { apiHeaders, numberSetting, roundOrder, type Daemon } from './harness.js';
import { loadWithCpu } from './load.js';

const SECONDS = numberSetting('BENCH_DASHBOARD_STREAM_SECONDS', 4);
const ROUNDS = numberSetting('BENCH_DASHBOARD_STREAM_ROUNDS', 2);
const CONNECTIONS = 10;
export const STREAM_CLIENTS = [0, 1, 10] as const;

/** Opens `count` stream clients; answers how to read their message count and close them. */
async function openStreams(daemon: Daemon, cookie: string, count: number) {
  const controller = new AbortController();
  let messages = 0;
  const url = `${daemon.url}/ui/api/stream?workspace=${daemon.workspaceId}`;
  await Promise.all(
    Array.from({ length: count }, async () => {
      const response = await fetch(url, { headers: { cookie }, signal: controller.signal });
      if (!response.ok || !response.body) throw new Error(`stream: HTTP ${response.status}`);
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      void (async () => {
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return;
            messages += decoder.decode(value, { stream: true }).split('\n\n').length - 1;
          }
        } catch {
          // Aborted at the end of the round.
        }
      })();
    }),
  );
  return { messages: () => messages, close: () => controller.abort() };
}

export interface StreamFigures {
  clients: number;
  runsPerSecond: number;
  cpuUsPerRun: number | undefined;
  messages: number;
}

/** Runs/s of `workflowId` with 0, 1 and 10 open streams, the mean of the rounds for each. */
export async function streamLoad(
  daemon: Daemon,
  cookie: string,
  workflowId: string,
): Promise<StreamFigures[]> {
  const sums = new Map<number, { rps: number; cpu: number; messages: number; rounds: number }>();
  const load = () =>
    loadWithCpu(daemon.pid, {
      url: `${daemon.url}/v1/workflows/${workflowId}/execute`,
      method: 'POST',
      headers: { ...apiHeaders(daemon), 'content-type': 'application/json' },
      body: JSON.stringify({ input: { n: 1 }, wait_for_completion: true }),
      connections: CONNECTIONS,
      duration: SECONDS,
    });
  // Unmeasured: the first load also warms the daemon up (JIT, caches), which favoured later rounds.
  await load();
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const clients of roundOrder(STREAM_CLIENTS, round)) {
      const streams = await openStreams(daemon, cookie, clients);
      const started = performance.now();
      const { result, figures } = await load();
      // The last runs' messages are still on their way: wait a moment before counting.
      await new Promise((resolve) => setTimeout(resolve, 200));
      streams.close();
      if (result.errors > 0 || result.timeouts > 0 || result.non2xx > 0 || result['2xx'] === 0) {
        throw new Error(
          `stream load: not every run answered 2xx (errors ${result.errors}, timeouts ` +
            `${result.timeouts}, non-2xx ${result.non2xx}) after ${performance.now() - started} ms`,
        );
      }
      const sum = sums.get(clients) ?? { rps: 0, cpu: 0, messages: 0, rounds: 0 };
      sum.rps += figures.reqPerSec;
      sum.cpu += figures.cpuUsPerRequest ?? Number.NaN;
      sum.messages += streams.messages();
      sum.rounds += 1;
      sums.set(clients, sum);
    }
  }
  return STREAM_CLIENTS.map((clients) => {
    const sum = sums.get(clients)!;
    const cpu = sum.cpu / sum.rounds;
    return {
      clients,
      runsPerSecond: sum.rps / sum.rounds,
      cpuUsPerRun: Number.isNaN(cpu) ? undefined : cpu,
      messages: sum.messages,
    };
  });
}
