// Team mode, live (issue 54): two daemons serve one sandbox on a throwaway PostgreSQL cluster of
// this file's own, and each sees what the other does, through PostgreSQL's LISTEN/NOTIFY: the
// sandbox clock is one clock, an event made on one is streamed by the other, a key revoked on
// one is refused by the other, and a rate limit counts the requests of both.
import test from 'ava';
import type { TestDaemon } from '../helpers/daemon.js';
import { control } from '../helpers/api.js';
import { watchEvents } from '../helpers/events.js';
import { throwawayPostgres, twoDaemonsOn, type TestPostgres } from '../helpers/postgres.js';
import { lookUntil } from '../helpers/waiting.js';
import {
  apiFor,
  createWorkflow,
  waitForExecution,
  waitStep,
  type Api,
} from '../helpers/workflows.js';

let pg: Required<TestPostgres>;
test.before(async () => {
  pg = await throwawayPostgres();
});

const started: TestDaemon[] = [];
test.afterEach.always(async () => {
  await Promise.all(started.splice(0).map((daemon) => daemon.stop().catch(() => undefined)));
});

let sandboxes = 0;

/** Two daemons serving one new sandbox. */
function twoDaemons(): Promise<[TestDaemon, TestDaemon]> {
  return twoDaemonsOn(pg.url, `live_${++sandboxes}`, started);
}

async function execute(api: Api, workflowId: string): Promise<string> {
  const answer = await api('POST', `/workflows/${workflowId}/execute`, { input: {} });
  if (answer.status !== 202 && answer.status !== 200)
    throw new Error(`execute: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.data.execution_id as string;
}

test.serial(
  'one clock: a move on A is the clock of B, and fires the wait of a run started on B',
  async (t) => {
    const [a, b] = await twoDaemons();
    await control(a, 'clock.freeze', {});
    const { workspaceId } = await b.operator();
    const onB = await apiFor(b, workspaceId);
    const workflowId = await createWorkflow(onB, {
      name: 'Waits 15 minutes',
      steps: [waitStep('pause', 900)],
    });
    const executionId = await execute(onB, workflowId);
    await waitForExecution(onB, workflowId, executionId, (run) =>
      run.step_results?.some((step: { status: string }) => step.status === 'waiting'),
    );
    // B hears the freeze made on A.
    await lookUntil(
      () => control<{ frozen: boolean }>(b, 'clock.show'),
      (clock) => clock.frozen,
      "B's clock frozen",
    );

    await control(a, 'clock.advance', { ms: 20 * 60_000 });
    const onA = await control<{ now: string }>(a, 'clock.show');
    // B reads the clock A moved (frozen: the very instant).
    await lookUntil(
      () => control<{ now: string }>(b, 'clock.show'),
      (clock) => clock.now === onA.now,
      "B's clock",
    );
    const run = await waitForExecution(onB, workflowId, executionId, (execution) =>
      ['completed', 'failed'].includes(execution.status),
    );
    t.is(run.status, 'completed');
  },
);

test.serial('an event made on A is streamed by a tail on B (svc events tail)', async (t) => {
  const [a, b] = await twoDaemons();
  const { workspaceId } = await a.operator();
  const tailOnB = await watchEvents(b, { workspace_id: workspaceId }, t);
  const made = await control<{ id: string }>(a, 'events.trigger', {
    type: 'integration.error',
    workspace_id: workspaceId,
    data: { said: 'on A' },
  });
  const heard = await tailOnB.waitFor((event) => event.id === made.id, { what: 'the event of A' });
  t.like(heard, { type: 'integration.error', data: { said: 'on A' } });
});

test.serial('a key revoked on A is refused on B, which had it in its cache', async (t) => {
  const [a, b] = await twoDaemons();
  const { workspaceId } = await a.operator();
  const made = await a.createKey('agents:read', { workspace: workspaceId });
  const list = (daemon: TestDaemon) =>
    daemon.request('/v1/agents', { key: made.key, tenant: workspaceId });
  // B has resolved the key once: it is in B's credential cache now.
  t.is((await list(b)).status, 200);
  await control(a, 'keys.revoke', { id: made.id });
  t.is((await list(a)).status, 401);
  const refused = await lookUntil(
    () => list(b),
    (answer) => answer.status !== 200,
    'the revoked key on B',
  );
  t.is(refused.status, 401, refused.text);
});

test.serial('a rate limit counts the requests of both daemons', async (t) => {
  const [a, b] = await twoDaemons();
  // One second on the frozen clock: the free tier's burst is 5 requests in it.
  await control(a, 'clock.freeze', {});
  await lookUntil(
    () => control<{ frozen: boolean }>(b, 'clock.show'),
    (clock) => clock.frozen,
    "B's clock frozen",
  );
  const workspace = await a.createWorkspace('free team', 'free');
  const { key } = await a.createKey('webhooks:read', { workspace });
  const me = (daemon: TestDaemon) => daemon.request('/v1/auth/me', { key });
  const statuses: number[] = [];
  for (const daemon of [a, b, a, b, a]) statuses.push((await me(daemon)).status);
  t.deepEqual(statuses, [200, 200, 200, 200, 200]);
  const sixth = await me(b);
  t.is(sixth.status, 429, sixth.text);
  t.is(sixth.headers.get('x-ratelimit-limit'), '5');
  t.is((await me(a)).status, 429);
});
