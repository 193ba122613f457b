// What is waiting, and until when, in the API (issue 41): a waiting or retrying step result has
// wakes_at, a schedule-triggered workflow has next_run_at, a pending delivery of a webhook that
// is not active says held (no next attempt). The sandbox clock is frozen at a known time in each
// test (serial: they share the daemon and its clock), so every expected time is exact.
import test from 'ava';
import { control } from '../helpers/api.js';
import { sharedDaemon } from '../helpers/setup.js';
import { startReceiver } from '../helpers/receiver.js';
import {
  allEvents,
  apiFor,
  createWorkflow,
  getExecution,
  waitForExecution,
  waitStep,
  type Api,
} from '../helpers/workflows.js';

const d = sharedDaemon(test);

async function frozenAt(iso: string): Promise<void> {
  await control(d, 'clock.set', { to: iso, frozen: true });
}

async function setup(name: string): Promise<{ ws: string; api: Api }> {
  const ws = await d.createWorkspace(name);
  return { ws, api: await apiFor(d, ws) };
}

test.serial(
  'a waiting step has wakes_at in every execution view; null once it went on',
  async (t) => {
    await frozenAt('2031-01-05T09:00:00Z');
    const { api } = await setup('waits-wait');
    const workflowId = await createWorkflow(api, {
      name: 'Wait for an ack',
      steps: [
        waitStep('wait_ack', 900, 'done'),
        { id: 'done', name: 'Done', type: 'wait', config: { duration_seconds: 0 } },
      ],
    });
    const started = await api('POST', `/workflows/${workflowId}/execute`, { input: {} });
    const runId = started.body.data.execution_id as string;
    const waiting = await waitForExecution(api, workflowId, runId, (e) =>
      e.step_results.some((step: any) => step.status === 'waiting'),
    );
    const expected = {
      step_id: 'wait_ack',
      status: 'waiting',
      wakes_at: '2031-01-05T09:15:00.000Z',
    };
    t.like(waiting.step_results.at(-1), expected);
    t.like((await api('GET', `/executions/${runId}`)).body.data.step_results.at(-1), expected);
    const list = await api('GET', `/workflows/${workflowId}/executions`);
    t.like(list.body.data[0].step_results.at(-1), expected);

    await d.advance('15m');
    const ended = await getExecution(api, workflowId, runId);
    t.is(ended.status, 'completed');
    t.deepEqual(
      ended.step_results.map((step: any) => [step.step_id, step.status, step.wakes_at]),
      [
        ['wait_ack', 'completed', null],
        ['done', 'completed', null],
      ],
    );
  },
);

test.serial('a retrying step has wakes_at: when its backoff ends', async (t) => {
  await frozenAt('2031-01-05T09:00:00Z');
  const { api } = await setup('waits-retry');
  const receiver = await startReceiver(t);
  receiver.respondWith(500);
  const workflowId = await createWorkflow(api, {
    name: 'Page until it answers',
    settings: { retry_policy: { max_attempts: 3, backoff_multiplier: 2 } },
    steps: [
      {
        id: 'page',
        name: 'Page',
        type: 'webhook',
        config: { url: receiver.url, method: 'POST', body: { who: 'on-call' } },
      },
    ],
  });
  const started = await api('POST', `/workflows/${workflowId}/execute`, { input: {} });
  const runId = started.body.data.execution_id as string;
  const retrying = await waitForExecution(api, workflowId, runId, (e) =>
    e.step_results.some((step: any) => step.status === 'retrying'),
  );
  t.deepEqual(
    retrying.step_results.map((step: any) => [step.status, step.attempt, step.wakes_at]),
    [
      ['failed', 1, null],
      // The first retry waits 1 s on the frozen clock.
      ['retrying', 2, '2031-01-05T09:00:01.000Z'],
    ],
  );
  receiver.respondWith(200);
  await d.advance('1s');
  const ended = await waitForExecution(api, workflowId, runId, (e) => e.status !== 'running');
  t.is(ended.status, 'completed');
  t.true(ended.step_results.every((step: any) => step.wakes_at === null));
});

test.serial(
  'a schedule-triggered workflow has next_run_at; it moves on after svc clock set',
  async (t) => {
    await frozenAt('2031-01-05T09:00:00Z');
    const { api } = await setup('waits-schedule');
    const created = await api('POST', '/workflows', {
      name: 'Hourly report',
      status: 'active',
      trigger: { type: 'schedule', config: { cron: '0 * * * *', timezone: 'UTC' } },
      steps: [waitStep('report', 0)],
    });
    t.is(created.status, 201);
    const workflowId = created.body.data.id as string;
    t.is(created.body.data.next_run_at, '2031-01-05T10:00:00.000Z', 'the create answer');
    t.is(
      (await api('GET', `/workflows/${workflowId}`)).body.data.next_run_at,
      '2031-01-05T10:00:00.000Z',
    );
    const createdEvent = (await allEvents(api, 'workflow.created')).at(-1);
    t.is(createdEvent.data.next_run_at, '2031-01-05T10:00:00.000Z', 'the workflow.created event');

    // The clock over the control channel, as `svc clock set --frozen` moves it (tested in cli-operator).
    await control(d, 'clock.set', { to: '2031-01-05T10:30:00Z', frozen: true });
    const listed = (await api('GET', '/workflows')).body.data.find((w: any) => w.id === workflowId);
    t.is(listed.next_run_at, '2031-01-05T11:00:00.000Z', 'the list, after the 10:00 run');
    const runs = await api('GET', `/workflows/${workflowId}/executions`);
    t.is(runs.body.data.length, 1);
    t.is(runs.body.data[0].input.scheduled_at, '2031-01-05T10:00:00.000Z');

    const paused = await api('PATCH', `/workflows/${workflowId}`, { status: 'paused' });
    t.is(paused.body.data.next_run_at, null, 'a paused schedule does not fire');
    const resumed = await api('PATCH', `/workflows/${workflowId}`, { status: 'active' });
    t.is(resumed.body.data.next_run_at, '2031-01-05T11:00:00.000Z', 'the update answer');
    const changed = await api('PATCH', `/workflows/${workflowId}`, {
      trigger: { type: 'schedule', config: { cron: '45 10 * * *', timezone: 'UTC' } },
    });
    t.is(changed.body.data.next_run_at, '2031-01-05T10:45:00.000Z', 'a changed schedule');

    const manual = await createWorkflow(api, { name: 'By hand', steps: [waitStep('x', 0)] });
    t.is((await api('GET', `/workflows/${manual}`)).body.data.next_run_at, null);
  },
);

test.serial(
  "a failed webhook's pending deliveries are held: no next attempt, until it is active again",
  async (t) => {
    await frozenAt('2031-01-05T09:00:00Z');
    const { ws, api } = await setup('waits-held');
    const receiver = await startReceiver(t);
    receiver.respondWith(500);
    const hook = await api('POST', '/webhooks', {
      url: receiver.url,
      events: ['agent.updated'],
      settings: { retry_policy: { max_attempts: 2 } },
    });
    t.is(hook.status, 201, JSON.stringify(hook.body));
    const hookId = hook.body.data.id as string;
    const publish = () => control(d, 'events.trigger', { workspace_id: ws, type: 'agent.updated' });
    await publish();
    await d.advance(0);
    await d.advance('30s');
    await publish();
    await d.advance(0);
    const deliveries = async () =>
      (await api('GET', `/webhooks/${hookId}/deliveries`)).body.data as any[];
    const [second, first] = await deliveries();
    t.like(first, { status: 'pending', held: false, next_attempt_at: '2031-01-05T09:01:00.000Z' });
    t.like(second, { status: 'pending', held: false, next_attempt_at: '2031-01-05T09:01:30.000Z' });

    // The first delivery's last attempt fails: the webhook turns failed and holds the second.
    await d.advance('40s');
    t.is((await api('GET', `/webhooks/${hookId}`)).body.data.status, 'failed');
    await d.advance('1m');
    const held = (await deliveries())[0];
    t.like(held, { id: second.id, status: 'pending', held: true, next_attempt_at: null });
    t.is(held.attempts, 1, 'nothing attempted while held');
    const detail = await api('GET', `/deliveries/${second.id}`);
    t.like(detail.body.data, { held: true, next_attempt_at: null });

    receiver.respondWith(200);
    const active = await api('PATCH', `/webhooks/${hookId}`, { status: 'active' });
    t.is(active.status, 200);
    await d.advance(0);
    const released = await api('GET', `/webhooks/${hookId}/deliveries/${second.id}`);
    t.like(released.body.data, { status: 'delivered', held: false, attempts: 2 });
  },
);
