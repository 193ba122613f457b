// Replay and re-runs (issue 18): stored events sent again as new deliveries after a receiver is
// fixed (same event ids, new delivery ids), and a workflow run re-run from a middle step without
// calling the earlier steps again (a counting receiver sees it), each run naming the other.
import test from 'ava';
import { assertExit, startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { startReceiver } from '../helpers/receiver.js';
import { control } from '../helpers/api.js';
import { apiFor, createWorkflow, getExecution, type Api } from '../helpers/workflows.js';

let d: TestDaemon;
let api: Api;
let ws: string;

test.before(async () => {
  d = await startDaemon();
  ws = await d.createWorkspace('replay');
  api = await apiFor(d, ws);
});

test.after.always(async () => {
  await d?.stop();
});

test.serial(
  'replay after the receiver is fixed delivers each failed event once more, same event id',
  async (t) => {
    const receiver = await startReceiver(t);
    receiver.respondWith(500);
    const created = await api('POST', '/webhooks', {
      url: receiver.url,
      events: ['agent.created'],
      settings: { retry_policy: { max_attempts: 1 } },
    });
    const hook = created.body.data.id as string;
    const eventIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const event = await control<{ id: string }>(d, 'events.trigger', {
        type: 'agent.created',
        workspace_id: ws,
      });
      eventIds.push(event.id);
    }
    await d.advance(0);
    await receiver.waitForCount(3);
    const failed = await api('GET', `/webhooks/${hook}/deliveries?status=failed`);
    t.is(failed.body.data.length, 3);
    const originalDeliveries = new Set(failed.body.data.map((del: any) => del.id));

    // The receiver is fixed; the webhook went failed when its deliveries were exhausted.
    receiver.respondWith(200);
    receiver.clear();
    const refused = await d.cli(['webhooks', 'replay', hook, '--workspace', ws]);
    assertExit(t, refused, 1);
    t.regex(refused.stderr, /--status active/);
    await api('PATCH', `/webhooks/${hook}`, { status: 'active' });

    const dry = await d.cli([
      'webhooks',
      'replay',
      hook,
      '--since',
      '1h',
      '--dry-run',
      '--list',
      '--workspace',
      ws,
      '--json',
    ]);
    assertExit(t, dry, 0);
    t.like(dry.json(), { count: 3, dry_run: true });
    t.deepEqual(new Set(dry.json().deliveries.map((x: any) => x.event_id)), new Set(eventIds));
    // --limit cuts the replay (the oldest first) and says how many more matched.
    const limited = await d.cli([
      'webhooks',
      'replay',
      hook,
      '--since',
      '1h',
      '--dry-run',
      '--limit',
      '2',
      '--workspace',
      ws,
    ]);
    assertExit(t, limited, 0);
    t.regex(limited.stdout, /2 event\(s\) would be sent again/);
    t.regex(limited.stdout, /1 more matched past --limit 2/);
    const badLimit = await d.cli(['webhooks', 'replay', hook, '--limit', '0', '--workspace', ws]);
    assertExit(t, badLimit, 2);
    t.regex(badLimit.stderr, /--limit takes a whole number from 1 to 100000/);
    await d.advance(0);
    t.is(receiver.requests.length, 0, 'a dry run sends nothing');

    const replay = await d.cli(['webhooks', 'replay', hook, '--since', '1h', '--workspace', ws]);
    assertExit(t, replay, 0);
    t.regex(replay.stdout, /Replayed 3 event\(s\)/);
    t.notRegex(replay.stdout, /NEW DELIVERY/, 'a summary; the list only with --list');
    await d.advance(0);
    const received = await receiver.waitForCount(3);
    t.deepEqual(new Set(received.map((r) => r.header('x-svc-event-id'))), new Set(eventIds));
    for (const request of received) {
      t.false(originalDeliveries.has(request.header('x-svc-delivery-id')), 'a new delivery id');
    }
    // Each event is now delivered: a second replay of failed events has nothing to send.
    const again = await d.cli(['webhooks', 'replay', hook, '--workspace', ws, '--json']);
    t.is(again.json().count, 0);
    t.is(receiver.requests.length, 3);
  },
);

test.serial('a rerun from a middle step does not call the earlier steps again', async (t) => {
  const receiver = await startReceiver(t);
  const call = (id: string, next?: string) => ({
    id,
    name: id,
    type: 'webhook',
    config: {
      url: `${receiver.url}/${id}`,
      method: 'POST',
      body: { order: '{{trigger.payload.order}}' },
    },
    ...(next ? { next_step_id: next } : {}),
  });
  const flow = await createWorkflow(api, {
    name: 'Pipeline',
    status: 'active',
    steps: [call('reserve', 'charge'), call('charge', 'notify'), call('notify')],
  });
  const first = await api('POST', `/workflows/${flow}/execute`, {
    input: { order: 'A-1' },
    wait_for_completion: true,
  });
  t.is(first.body.data.status, 'completed');
  const original = first.body.data.execution_id as string;
  const calls = (step: string) =>
    receiver.requests.filter((r) => r.path === `/hooks/${step}`).length;

  const rerun = await d.cli([
    'workflows',
    'rerun',
    flow,
    original,
    '--from-step',
    'charge',
    '--wait',
    '--json',
    '--workspace',
    ws,
  ]);
  assertExit(t, rerun, 0);
  const again = rerun.json();
  t.like(again, { status: 'completed', rerun_of: original, from_step_id: 'charge' });
  t.deepEqual([calls('reserve'), calls('charge'), calls('notify')], [1, 2, 2]);
  t.deepEqual(
    again.step_results.map((s: any) => s.step_id),
    ['reserve', 'charge', 'notify'],
  );
  const before = await getExecution(api, flow, original);
  t.deepEqual(again.step_results[0].result, before.step_results[0].result, 'the kept result');
  t.deepEqual(before.reruns, [again.execution_id]);
  t.deepEqual(JSON.parse(receiver.requests.at(-1)!.body), { order: 'A-1' }, 'the same input');

  // A whole re-run calls every step again.
  const whole = await api('POST', `/workflows/${flow}/executions/${original}/rerun`, {
    wait_for_completion: true,
  });
  t.like(whole.body.data, { status: 'completed', rerun_of: original, from_step_id: null });
  t.deepEqual([calls('reserve'), calls('charge'), calls('notify')], [2, 3, 3]);

  // The list reads a page's step rows and re-runs together: each run shows its own, as one get does.
  const listed = await api('GET', `/workflows/${flow}/executions?limit=10`);
  t.is(listed.status, 200);
  t.is(listed.body.data.length, 3);
  for (const run of listed.body.data) {
    t.deepEqual(run, await getExecution(api, flow, run.execution_id), run.execution_id);
  }
  const listedOriginal = listed.body.data.find((run: any) => run.execution_id === original);
  t.deepEqual(listedOriginal.reruns, [again.execution_id, whole.body.data.execution_id]);

  const unknown = await api('POST', `/workflows/${flow}/executions/${original}/rerun`, {
    from_step_id: 'nope',
  });
  t.is(unknown.status, 400);
  t.like(unknown.body.error, { code: 'invalid_parameter', param: 'from_step_id' });
});
