// A hook body fanned out (issue 51, row 4): /healthz while thirty unauthenticated 900 KB hook
// bodies arrive at once into a workflow whose parallel step starts 50 agent steps, each taking
// the body's text ({{trigger.payload.text}}) as its input; the same into a one-step workflow is
// the baseline, in the same run. And how much one such hook grows the store: the pages in use
// (page_count - freelist_count, read from the data dir's svc.db) before and after, as a multiple
// of the body. Targets: the longest /healthz answer < 500 ms (each probe waits for the one
// before), and one hook grows the store by less than 3x its body.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import {
  api,
  benchAgent,
  healthzMs,
  postHooks,
  table,
  type BenchCase,
  type DaemonContext,
} from '../harness.js';

const HEALTH_TARGET_MS = 500;
const GROWTH_TARGET = 3;
const CONCURRENT = 30;
const BRANCHES = 50;
const BODY_CHARS = 900_000;

const body = (i: number): string =>
  JSON.stringify({ n: i, text: String(i).padEnd(BODY_CHARS, 'x') });

interface Shape {
  label: string;
  path: string;
  steps: (agentId: string) => unknown[];
}

const agentStep = (id: string, agentId: string) => ({
  id,
  name: id,
  type: 'agent_action',
  agent_id: agentId,
  config: { action: 'summarize', input: '{{trigger.payload.text}}' },
});

const SHAPES: readonly Shape[] = [
  {
    label: 'one agent step',
    path: 'bench-fanout-one',
    steps: (agent) => [agentStep('read', agent)],
  },
  {
    label: `${BRANCHES}-branch parallel`,
    path: 'bench-fanout-50',
    steps: (agent) => {
      const ids = Array.from({ length: BRANCHES }, (_, i) => `b${i}`);
      return [
        { id: 'fan', name: 'fan', type: 'parallel', config: { steps: ids } },
        ...ids.map((id) => agentStep(id, agent)),
      ];
    },
  },
];

async function hookWorkflow(
  ctx: DaemonContext,
  shape: Shape,
): Promise<{ id: string; url: string }> {
  const agentId = await benchAgent(ctx);
  const workflow = await api<{ id: string }>(ctx, 'POST', '/v1/workflows', {
    name: `bench-${shape.path}`,
    status: 'active',
    trigger: { type: 'webhook', config: { path: shape.path } },
    steps: shape.steps(agentId),
  });
  return { id: workflow.id, url: `${ctx.url}/v1/hooks/${ctx.workspaceId}/${shape.path}` };
}

/** Bytes of the store's pages in use, as the daemon last committed them. */
function storeBytes(dataDir: string): number {
  const db = new Database(join(dataDir, 'svc.db'), { readonly: true, fileMustExist: true });
  try {
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const pages = db.pragma('page_count', { simple: true }) as number;
    const free = db.pragma('freelist_count', { simple: true }) as number;
    return (pages - free) * pageSize;
  } finally {
    db.close();
  }
}

/** Waits until the run has ended (the 50 branches run inline: at once, as a rule). */
async function ended(ctx: DaemonContext, workflowId: string, executionId: string): Promise<string> {
  for (;;) {
    const run = await api<{ status: string }>(
      ctx,
      'GET',
      `/v1/workflows/${workflowId}/executions/${executionId}`,
    );
    if (run.status !== 'running') return run.status;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface Round {
  shape: string;
  probes: number;
  maxMs: number;
  growth: number;
  status: string;
}

const fanoutHealthCase: BenchCase = {
  order: 22,
  needs: 'servers',
  describe: () =>
    `fanout-health: /healthz while ${CONCURRENT} unauthenticated 900 KB hook bodies arrive at ` +
    `once into a ${BRANCHES}-branch parallel of agent steps, and the store one such hook adds ` +
    `(targets: longest answer < ${HEALTH_TARGET_MS} ms; growth < ${GROWTH_TARGET}x the body)`,
  async run(servers) {
    const ctx = servers!.daemon;
    const rounds: Round[] = [];
    let serial = 0;
    for (const shape of SHAPES) {
      const { id: workflowId, url } = await hookWorkflow(ctx, shape);
      // One hook alone: how much the store grows.
      const before = storeBytes(ctx.dataDir);
      const one = body(serial++);
      const [id] = await postHooks(url, [one]);
      const status = await ended(ctx, workflowId, id!);
      const growth = (storeBytes(ctx.dataDir) - before) / one.length;
      // Thirty at once: how long /healthz waits.
      const bodies = Array.from({ length: CONCURRENT }, () => body(serial++));
      let done = false;
      const posts = postHooks(url, bodies).finally(() => (done = true));
      const times: number[] = [];
      while (!done) times.push(await healthzMs(ctx.url));
      await posts;
      rounds.push({
        shape: shape.label,
        probes: times.length,
        maxMs: Math.max(0, ...times),
        growth,
        status,
      });
    }
    const healthy = (round: Round) => round.maxMs < HEALTH_TARGET_MS;
    const small = (round: Round) => round.growth < GROWTH_TARGET;
    return {
      missed: rounds.filter((round) => !healthy(round) || !small(round)).length,
      print() {
        console.log(
          `\nA 900 KB hook body into workflows of ${BRANCHES} agent steps or one ` +
            `(each step's input: {{trigger.payload.text}})\n`,
        );
        console.log(
          table(
            ['workflow', 'one run', 'store growth', 'target', '', 'probes', 'max ms', 'target', ''],
            rounds.map((round) => [
              round.shape,
              round.status,
              `${round.growth.toFixed(2)}x body`,
              `< ${GROWTH_TARGET}x`,
              small(round) ? 'PASS' : 'FAIL',
              String(round.probes),
              round.maxMs.toFixed(1),
              `max < ${HEALTH_TARGET_MS}`,
              healthy(round) ? 'PASS' : 'FAIL',
            ]),
          ),
        );
      },
    };
  },
};

export default fanoutHealthCase;
