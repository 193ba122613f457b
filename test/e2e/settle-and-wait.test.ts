// svc clock freeze|resume, svc settle and svc workflows wait through the real CLI against a real
// daemon: a frozen clock stands still until advanced, settle waits for steps and deliveries in
// flight and names them at its timeout, workflows wait answers the run or says why not.
import test from 'ava';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { assertExit, startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { startReceiver } from '../helpers/receiver.js';
import { trpc } from '../helpers/api.js';
import { apiFor, createWorkflow, waitStep, type Api } from '../helpers/workflows.js';

let d: TestDaemon;
let api: Api;

test.before(async () => {
  d = await startDaemon();
  api = await apiFor(d, (await d.operator()).workspaceId);
});

test.after.always(async () => {
  await d?.stop();
});

/** A control-channel mutation (fast: no CLI process); its data, or its error. */
async function mutate(procedure: string, input?: unknown) {
  const answer = await trpc(d, procedure, input, { method: 'POST' });
  return { data: answer.data, error: answer.error };
}

async function run(flow: string): Promise<string> {
  const started = await api('POST', `/workflows/${flow}/execute`, {
    input: {},
    wait_for_completion: false,
  });
  if (started.status !== 202) throw new Error(`execute: ${JSON.stringify(started.body)}`);
  return started.body.data.execution_id;
}

test.serial(
  'a frozen clock stands still; advance and set move it; resume ticks again',
  async (t) => {
    const frozen = (await d.cli(['clock', 'freeze', '--json'])).json();
    t.true(frozen.frozen);
    await delay(60);
    const later = await d.cli(['clock']);
    t.regex(later.stdout, new RegExp(`${frozen.now} frozen`), 'no real time passes');

    const advanced = (await mutate('clock.advance', { ms: 3_600_000 })).data;
    t.is(Date.parse(advanced.now) - Date.parse(frozen.now), 3_600_000, 'exactly one hour');
    t.true(advanced.frozen);

    const set = (await mutate('clock.set', { to: '2031-01-05T09:00:00Z' })).data;
    t.is(set.now, '2031-01-05T09:00:00.000Z', 'set keeps a frozen clock frozen');
    t.true(set.frozen);

    const resumed = (await d.cli(['clock', 'resume', '--json'])).json();
    t.false(resumed.frozen);
    await delay(60);
    const ticking = (await trpc(d, 'clock.show')).data;
    t.true(Date.parse(ticking.now) > Date.parse('2031-01-05T09:00:00Z'), 'it ticks from there');

    const setFrozen = (
      await d.cli(['clock', 'set', '2031-02-01T00:00:00Z', '--frozen', '--json'])
    ).json();
    t.is(setFrozen.now, '2031-02-01T00:00:00.000Z');
    t.true(setFrozen.frozen);
    const reset = (await mutate('clock.reset')).data;
    t.false(reset.frozen, 'reset goes back to real time, ticking');
    t.is(reset.offset_ms, 0);
    assertExit(
      t,
      await d.cli(['clock', 'set', '2031-01-01T00:00:00Z', '--frozen', '--ticking']),
      2,
    );
  },
);

test.serial(
  'workflows wait: a wait step ends only when the frozen clock is advanced',
  async (t) => {
    await mutate('clock.freeze');
    t.teardown(() => mutate('clock.reset'));
    const flow = await createWorkflow(api, {
      name: 'Pause then finish',
      steps: [waitStep('pause', 900, 'done'), waitStep('done', 0)],
    });
    const id = await run(flow);

    const early = await d.cli([
      'workflows',
      'wait',
      id,
      '--status',
      'completed',
      '--timeout',
      '300ms',
    ]);
    assertExit(t, early, 1);
    // Parked on the frozen clock: answered at once, with the command that moves it on.
    t.regex(early.stderr, new RegExp(`Run ${id} is parked on the frozen sandbox clock`));
    t.regex(
      early.stderr,
      /step pause wakes at .*; move the clock there with: svc clock advance 15m/,
    );

    // Nothing is due at the frozen time: settle answers at once.
    t.true((await mutate('settle', {})).data.settled);

    await mutate('clock.advance', { ms: 900_000 });
    const done = await d.cli(['workflows', 'wait', id, '--status', 'completed', '--json']);
    assertExit(t, done, 0);
    t.is(done.json().status, 'completed');
    t.is(done.json().execution_id, id);
  },
);

test.serial('workflows wait refuses a run that ended otherwise, and bad flags', async (t) => {
  const flow = await createWorkflow(api, {
    name: 'Fails',
    steps: [
      {
        id: 'call',
        name: 'Call',
        type: 'webhook',
        config: { url: 'http://127.0.0.1:9/nowhere', method: 'POST', timeout_seconds: 1 },
      },
    ],
  });
  const id = await run(flow);
  const failed = await d.cli(['workflows', 'wait', id, '--status', 'completed']);
  assertExit(t, failed, 1);
  t.regex(failed.stderr, new RegExp(`Run ${id} ended failed at step call.*not completed`));
  // Several statuses: any of them ends the wait.
  const either = await mutate('workflows.wait', {
    execution_id: id,
    status: ['completed', 'failed'],
  });
  t.is(either.data.status, 'failed');

  const unknown = await mutate('workflows.wait', {
    execution_id: 'wex_nope',
    status: ['completed'],
  });
  t.is(unknown.error?.data?.svc_code, 'execution_not_found');
  t.regex(unknown.error!.message, /No run wex_nope/);
  const badStatus = await d.cli(['workflows', 'wait', id, '--status', 'done']);
  assertExit(t, badStatus, 2);
  t.regex(badStatus.stderr, /--status takes running, awaiting_approval, completed/);
  const badTimeout = await d.cli(['settle', '--timeout', '1h']);
  assertExit(t, badTimeout, 2);
  t.regex(badTimeout.stderr, /--timeout takes a duration from 1ms to 4m/);
});

test.serial(
  'settle waits for a step and a delivery in flight, and names them at its timeout',
  async (t) => {
    const receiver = await startReceiver(t);
    // The calls stay in flight until released, after the CLI's settle has looked (a CLI process
    // took over the 8 s delay this used to be on a loaded machine, so both calls had ended).
    // The step's and the webhook's own timeouts are the longest there are (60 s), so neither
    // call times out while the CLI starts.
    receiver.hold();
    const hook = await api('POST', '/webhooks', {
      url: `${receiver.url}/events`,
      events: ['workflow.execution.started'],
      settings: { timeout_seconds: 60 },
    });
    t.is(hook.status, 201, JSON.stringify(hook.body));
    t.teardown(() => api('DELETE', `/webhooks/${hook.body.data.id}`));
    const flow = await createWorkflow(api, {
      name: 'Slow receiver',
      steps: [
        {
          id: 'call',
          name: 'Call',
          type: 'webhook',
          config: { url: `${receiver.url}/step`, method: 'POST', timeout_seconds: 60 },
        },
      ],
    });
    const id = await run(flow);
    await receiver.waitForCount(2);

    const early = await d.cli(['settle', '--timeout', '200ms']);
    assertExit(t, early, 1);
    t.regex(early.stderr, /Not settled after 200ms; still pending: /);
    t.regex(early.stderr, new RegExp(`run ${id} \\(step call running\\)`));
    t.regex(early.stderr, /delivery del_\w+ \(attempt in flight\)/);

    receiver.release();
    const started = performance.now();
    // The longest settle there is (4 min): a guard against a hang only.
    const settled = (await mutate('settle', { timeout_ms: 240_000 })).data;
    t.true(settled.settled);
    t.log(
      `settled after ${Math.round(performance.now() - started)} ms (daemon: ${settled.waited_ms} ms)`,
    );
    const after = await api('GET', `/workflows/${flow}/executions/${id}`);
    t.is(after.body.data.status, 'completed', 'settled means the step has finished');
  },
);
