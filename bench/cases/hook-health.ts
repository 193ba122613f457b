// /healthz while twenty unauthenticated webhook-trigger bodies of 900 KB arrive at once (issue 38,
// item 4), into a workflow whose first step is an agent step that takes the body's text as its
// input: two shapes, a 900 KB text and 900 KB of small fields (the costliest to parse). The
// bodies are sent from a worker thread, so the probes time the daemon, not this process. Target:
// the longest /healthz answer (each probe waits for the one before) < 250 ms, per round.
import {
  api,
  benchAgent,
  healthzMs,
  postHooks,
  table,
  type BenchCase,
  type DaemonContext,
} from '../harness.js';

const TARGET_MS = 250;
const CONCURRENT = 20;
const ROUNDS = 3;

const SHAPES: readonly { label: string; body: (i: number) => string }[] = [
  {
    label: '900 KB text',
    body: (i) => JSON.stringify({ n: i, text: String(i).padEnd(900_000, 'x') }),
  },
  {
    label: '900 KB of small fields',
    body: (i) => {
      const fields: Record<string, number> = { n: i };
      for (let k = 0; k < 61_000; k++) fields[`k${k}`] = k;
      return JSON.stringify({ text: `fields ${i}`, fields });
    },
  },
];

async function hookUrl(ctx: DaemonContext): Promise<string> {
  const agentId = await benchAgent(ctx);
  await api(ctx, 'POST', '/v1/workflows', {
    name: 'bench-large-hooks',
    status: 'active',
    trigger: { type: 'webhook', config: { path: 'bench-large' } },
    steps: [
      {
        id: 'read',
        name: 'Read',
        type: 'agent_action',
        agent_id: agentId,
        config: { action: 'summarize', input: '{{trigger.payload.text}}' },
      },
    ],
  });
  return `${ctx.url}/v1/hooks/${ctx.workspaceId}/bench-large`;
}

interface Round {
  shape: string;
  probes: number;
  maxMs: number;
}

const hookHealthCase: BenchCase = {
  order: 21,
  needs: 'servers',
  describe: () =>
    `hook-health: /healthz while ${CONCURRENT} unauthenticated 900 KB hook bodies arrive at once ` +
    `(target: longest answer < ${TARGET_MS} ms)`,
  async run(servers) {
    const ctx = servers!.daemon;
    const url = await hookUrl(ctx);
    const rounds: Round[] = [];
    for (const shape of SHAPES) {
      for (let round = 0; round < ROUNDS; round++) {
        const bodies = Array.from({ length: CONCURRENT }, (_, i) => shape.body(round * 100 + i));
        let done = false;
        const posts = postHooks(url, bodies).finally(() => (done = true));
        const times: number[] = [];
        while (!done) times.push(await healthzMs(ctx.url));
        await posts;
        rounds.push({ shape: shape.label, probes: times.length, maxMs: Math.max(0, ...times) });
      }
    }
    const passes = (round: Round) => round.maxMs < TARGET_MS;
    return {
      missed: rounds.filter((round) => !passes(round)).length,
      print() {
        console.log(`\n/healthz while ${CONCURRENT} hook bodies of 900 KB arrive at once\n`);
        console.log(
          table(
            ['body', 'probes', 'max ms', 'target', ''],
            rounds.map((round) => [
              round.shape,
              String(round.probes),
              round.maxMs.toFixed(1),
              `max < ${TARGET_MS}`,
              passes(round) ? 'PASS' : 'FAIL',
            ]),
          ),
        );
      },
    };
  },
};

export default hookHealthCase;
