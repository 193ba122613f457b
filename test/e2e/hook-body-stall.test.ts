// Large webhook-trigger bodies do not stall the daemon (issue 38, item 4): twenty concurrent
// unauthenticated 900 KB bodies into a workflow whose first step is an agent step that reads the
// payload, while a /healthz poller records the longest time between two answers. The 250 ms
// target is measured by the bench (case hook-health), not here: see BOUND_MS. Each test prints
// its figure. The
// workflow.execution.* events of such a run carry the input's size, not a copy of it.
import test from 'ava';
import { sharedDaemon } from '../helpers/setup.js';
import {
  activeAgent,
  allEvents,
  apiFor,
  createWorkflow,
  getExecution,
  waitForExecution,
  TERMINAL,
  type Api,
} from '../helpers/workflows.js';

const d = sharedDaemon(test);
// Only a guard against a daemon that stops serving while it takes the bodies: the longest gap
// stays under STALL_SHARE of the posting's own time, measured here (load stretches both; a loop
// held through the posting makes the gap all of it). In ms the fixed daemon's gap was 312 at load
// 5, 1,720 at load 11, 3,265 at load 10-12 beside another whole test suite, and 3,814 of a 6,316
// ms posting (0.6) at load 51: whether the gap is small is the bench's to say (case hook-health,
// target 250 ms, run on a quiet machine, measured 136 ms), as the house rule puts timing targets
// in benchmarks.
const STALL_SHARE = 0.9;
const CONCURRENT = 20;
const TEXT_CHARS = 900_000;
let api: Api;
let ws: string;
let workflowId: string;

test.before(async () => {
  const operator = await d.operator();
  ws = operator.workspaceId;
  api = await apiFor(d, ws);
  const agent = await activeAgent(api);
  workflowId = await createWorkflow(api, {
    name: 'Large hooks',
    status: 'active',
    trigger: { type: 'webhook', config: { path: 'large' } },
    steps: [
      {
        id: 'read',
        name: 'Read',
        type: 'agent_action',
        agent_id: agent.id,
        config: { action: 'summarize', input: '{{trigger.payload.text}}' },
      },
    ],
  });
});

/**
 * Polls /healthz back to back while `during` runs; the longest time between two answers is how
 * long the daemon stopped serving (a blocked event loop shows as one long gap).
 */
async function longestHealthGap<T>(
  during: () => Promise<T>,
): Promise<{ result: T; gapMs: number; workMs: number }> {
  const began = performance.now();
  let running = true;
  let gapMs = 0;
  const poller = (async () => {
    let last = performance.now();
    while (running) {
      await fetch(`${d.url}/healthz`).then((answer) => answer.arrayBuffer());
      const now = performance.now();
      gapMs = Math.max(gapMs, now - last);
      last = now;
    }
  })();
  try {
    const result = await during();
    return { result, gapMs, workMs: performance.now() - began };
  } finally {
    running = false;
    await poller;
  }
}

const post = (body: string) =>
  fetch(`${d.url}/v1/hooks/${ws}/large`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  }).then(async (answer) => ({
    status: answer.status,
    body: (await answer.json()) as { data: { execution_id: string } },
  }));

test.serial(
  `${CONCURRENT} concurrent 900 KB hook bodies into an agent step leave /healthz answering`,
  async (t) => {
    // Distinct bodies (their first characters), as twenty senders would post.
    const bodies = Array.from({ length: CONCURRENT }, (_, i) =>
      JSON.stringify({ n: i, text: String(i).padEnd(TEXT_CHARS, 'x') }),
    );
    t.log(`body: ${bodies[0]!.length.toLocaleString('en-US')} bytes, ${CONCURRENT} at once`);
    const { result, gapMs, workMs } = await longestHealthGap(() => Promise.all(bodies.map(post)));
    t.log(`longest /healthz gap: ${gapMs.toFixed(0)} ms of the posting's ${workMs.toFixed(0)} ms`);
    t.deepEqual(
      result.map((answer) => answer.status),
      Array.from({ length: CONCURRENT }, () => 202),
    );
    t.true(
      gapMs < STALL_SHARE * workMs,
      `/healthz answered throughout (longest gap ${gapMs.toFixed(0)} of ${workMs.toFixed(0)} ms)`,
    );

    // Nothing accepted is lost: every run completes with its whole input.
    const runs = await Promise.all(
      result.map((answer) =>
        waitForExecution(api, workflowId, answer.body.data.execution_id, (execution) =>
          TERMINAL.includes(execution.status),
        ),
      ),
    );
    t.deepEqual(
      runs.map((run) => run.status),
      runs.map(() => 'completed'),
    );
    const first = await getExecution(api, workflowId, result[0]!.body.data.execution_id);
    t.is(first.input.text.length, TEXT_CHARS);
    t.is(first.input.n, 0);
  },
);

test.serial(
  'a run event carries input_bytes, and the input itself only up to 16 KiB',
  async (t) => {
    const small = await post(JSON.stringify({ order: 'A-1' }));
    const large = await post(JSON.stringify({ text: 'y'.repeat(20_000) }));
    t.is(small.status, 202);
    t.is(large.status, 202);
    for (const answer of [small, large]) {
      await waitForExecution(api, workflowId, answer.body.data.execution_id, (execution) =>
        TERMINAL.includes(execution.status),
      );
    }
    const events = await allEvents(api, 'workflow.execution.started,workflow.execution.completed');
    const of = (id: string) => events.filter((event) => event.data.execution_id === id);
    const smallEvents = of(small.body.data.execution_id);
    const largeEvents = of(large.body.data.execution_id);
    // Both events, once each. Not their order here: GET /v1/events is newest first by the
    // daemon clock's millisecond, and two events of one millisecond have no order in that list
    // (their ids order by time only, then at random); a run's own order is its history's.
    t.deepEqual(smallEvents.map((event) => event.type).sort(), [
      'workflow.execution.completed',
      'workflow.execution.started',
    ]);
    t.is(largeEvents.length, 2);
    for (const event of smallEvents) {
      t.deepEqual(event.data.input, { order: 'A-1' });
      t.is(event.data.input_bytes, '{"order":"A-1"}'.length);
    }
    for (const event of largeEvents) {
      t.false('input' in event.data, `${event.type} leaves the large input out`);
      t.is(event.data.input_bytes, JSON.stringify({ text: 'y'.repeat(20_000) }).length);
    }
    // The run itself still shows it whole.
    const run = await getExecution(api, workflowId, large.body.data.execution_id);
    t.is(run.input.text.length, 20_000);
  },
);
