// Schedule, webhook and event triggers with the real daemon and CLI: a schedule fires on `svc
// clock advance` and again after a restart, not while paused; a webhook trigger with and without a
// secret (a bad signature starts nothing); an event trigger fires once per matching event.
import test from 'ava';
import { startDaemon } from '../helpers/daemon.js';
import { sharedDaemon } from '../helpers/setup.js';
import {
  activeAgent,
  allExecutions,
  apiFor,
  createWorkflow,
  TERMINAL,
  afterRunEvents,
  waitForExecution,
  workflowFile,
  type Api,
  answerStep,
  hookPoster,
} from '../helpers/workflows.js';
import { signatureHeader } from '../../shared/signature.js';
import { running } from '../helpers/processes.js';

const d = sharedDaemon(test);

async function workspaceApi(name: string): Promise<{ api: Api; ws: string }> {
  const ws = await d.createWorkspace(name);
  return { api: await apiFor(d, ws), ws };
}

test('a schedule fires on svc clock advance and again after a restart', async (t) => {
  // A daemon of its own: it moves the clock and restarts (which changes its address).
  const own = await startDaemon();
  t.teardown(() => own.stop());
  const executions = async (workflowId: string): Promise<any[]> => {
    const listed = await own.cli(['workflows', 'executions', workflowId, '--json']);
    if (listed.code !== 0) throw new Error(listed.stderr);
    return listed.json().data;
  };
  const { workspaceId } = await own.operator();
  const agent = await activeAgent(await apiFor(own, workspaceId));
  t.is((await own.cli(['clock', 'set', '2031-05-05T10:30:00Z'])).code, 0);
  const file = workflowFile(
    'hourly.yaml',
    [
      'name: Hourly digest',
      'status: active',
      "trigger: { type: schedule, config: { cron: '0 * * * *', timezone: UTC } }",
      'steps:',
      `  - { id: digest, name: Digest, type: agent_action, agent_id: ${agent.id}, config: { action: summarize, input_mapping: { at: '{{trigger.payload.scheduled_at}}' } } }`,
    ].join('\n'),
  );
  const created = await own.cli(['workflows', 'create', '-f', file, '--json']);
  t.is(created.code, 0, created.stderr);
  const workflowId = created.json().id as string;

  t.is((await own.cli(['clock', 'advance', '2h'])).code, 0);
  let runs = await executions(workflowId);
  t.deepEqual(runs.map((run) => run.input.scheduled_at).sort(), [
    '2031-05-05T11:00:00.000Z',
    '2031-05-05T12:00:00.000Z',
  ]);
  t.true(runs.every((run) => run.trigger.type === 'schedule'));

  t.is((await own.cli(['daemon', 'stop'])).code, 0);
  const restarted = await own.cli(['daemon', 'start', '--port', '0', '--json']);
  t.is(restarted.code, 0, restarted.stderr);
  t.is((await own.cli(['clock', 'advance', '1h'])).code, 0);
  runs = await executions(workflowId);
  t.deepEqual(runs.map((run) => run.input.scheduled_at).sort(), [
    '2031-05-05T11:00:00.000Z',
    '2031-05-05T12:00:00.000Z',
    '2031-05-05T13:00:00.000Z',
  ]);
  // And the runs go to their end.
  runs = await afterRunEvents(
    running(own),
    () => executions(workflowId),
    (all) => all.every((run) => TERMINAL.includes(run.status)),
  );
  t.true(runs.every((run) => run.status === 'completed'));
});

test.serial('a paused scheduled workflow does not fire; activating starts from now', async (t) => {
  const { api } = await workspaceApi('paused-schedule');
  const agent = await activeAgent(api);
  const workflowId = await createWorkflow(api, {
    name: 'Every 15 minutes',
    status: 'paused',
    trigger: { type: 'schedule', config: { cron: '*/15 * * * *' } },
    steps: answerStep(agent.id),
  });
  // The clock over the control channel, as `svc clock advance` moves it (the command itself is
  // the first test's subject).
  await d.advance('3h');
  t.is((await allExecutions(api, workflowId)).length, 0);
  t.is((await api('PATCH', `/workflows/${workflowId}`, { status: 'active' })).status, 200);
  await d.advance('30m');
  t.is(
    (await allExecutions(api, workflowId)).length,
    2,
    'two quarter hours, none of the paused ones',
  );
  t.is((await api('PATCH', `/workflows/${workflowId}`, { status: 'paused' })).status, 200);
  await d.advance('1h');
  t.is((await allExecutions(api, workflowId)).length, 2);
});

test('an invalid cron expression or time zone is refused at write time', async (t) => {
  const { api } = await workspaceApi('bad-cron');
  const agent = await activeAgent(api);
  const cron = await api('POST', '/workflows', {
    name: 'Bad cron',
    trigger: { type: 'schedule', config: { cron: '0 25 * * *' } },
    steps: answerStep(agent.id),
  });
  t.is(cron.status, 400);
  t.is(cron.body.error.code, 'invalid_parameter');
  t.is(cron.body.error.param, 'trigger.config.cron');
  const zone = await api('POST', '/workflows', {
    name: 'Bad zone',
    trigger: { type: 'schedule', config: { cron: '0 5 * * *', timezone: 'Europe/Atlantis' } },
    steps: answerStep(agent.id),
  });
  t.is(zone.body.error.param, 'trigger.config.timezone');
  const ok = await createWorkflow(api, { name: 'Manual', steps: answerStep(agent.id) });
  const patched = await api('PATCH', `/workflows/${ok}`, {
    trigger: { type: 'schedule', config: { cron: 'every day' } },
  });
  t.is(patched.body.error.param, 'trigger.config.cron');
});

test('a webhook trigger without a secret starts a run with the body and headers', async (t) => {
  const { api, ws } = await workspaceApi('hooks-open');
  const agent = await activeAgent(api);
  const workflowId = await createWorkflow(api, {
    name: 'Orders',
    status: 'active',
    trigger: { type: 'webhook', config: { path: 'orders' } },
    steps: [
      {
        id: 'headers',
        name: 'Headers seen, credentials not',
        type: 'condition',
        config: {
          condition:
            'trigger.headers["x-order-source"] == "shop" && !trigger.headers.authorization',
          if_true: 'seen',
          if_false: 'not_seen',
        },
      },
      ...['seen', 'not_seen'].map((id) => ({ ...answerStep(agent.id)[0], id, name: id })),
    ],
  });
  const url = await d.cli(['workflows', 'trigger-url', workflowId, '--json'], {
    env: { SVC_WORKSPACE: ws },
  });
  t.is(url.code, 0, url.stderr);
  t.is(url.json().url, `${d.url}/v1/hooks/${ws}/orders`);

  const answer = await fetch(url.json().url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-order-source': 'shop',
      authorization: 'Bearer nope',
    },
    body: JSON.stringify({ order_id: 'A-1', amount: 40 }),
  });
  t.is(answer.status, 202);
  const { data } = (await answer.json()) as { data: { execution_id: string } };
  t.regex(data.execution_id, /^wex_/);
  const run = await waitForExecution(
    api,
    workflowId,
    data.execution_id,
    (e) => e.status === 'completed',
  );
  t.deepEqual(run.input, { order_id: 'A-1', amount: 40 });
  t.is(run.trigger.type, 'webhook');
  t.deepEqual(
    run.step_results.map((step: { step_id: string }) => step.step_id),
    ['headers', 'seen'],
  );

  const unknown = await fetch(`${d.url}/v1/hooks/${ws}/nowhere`, { method: 'POST' });
  t.is(unknown.status, 404);
  t.is((await api('PATCH', `/workflows/${workflowId}`, { status: 'paused' })).status, 200);
  const paused = await fetch(url.json().url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  t.is(paused.status, 409);
  t.is(((await paused.json()) as any).error.code, 'workflow_not_active');
  t.is((await allExecutions(api, workflowId)).length, 1);
});

test('two workflows of a workspace cannot claim the same hook path', async (t) => {
  const { api } = await workspaceApi('hooks-clash');
  const agent = await activeAgent(api);
  const trigger = { type: 'webhook', config: { path: 'leads' } };
  await createWorkflow(api, { name: 'First', trigger, steps: answerStep(agent.id) });
  const second = await api('POST', '/workflows', {
    name: 'Second',
    trigger,
    steps: answerStep(agent.id),
  });
  t.is(second.status, 409);
  t.is(second.body.error.code, 'conflict');
  t.is(second.body.error.param, 'trigger.config.path');
});

test('a webhook trigger with a secret needs a valid signature; a bad one starts nothing', async (t) => {
  const { api, ws } = await workspaceApi('hooks-signed');
  const agent = await activeAgent(api);
  const secret = 'whsec_trigger_secret_1';
  const workflowId = await createWorkflow(api, {
    name: 'Signed intake',
    status: 'active',
    trigger: { type: 'webhook', config: { path: 'signed', secret } },
    steps: answerStep(agent.id),
  });
  const body = JSON.stringify({ ticket: 7 });
  const post = hookPoster(d, ws, 'signed', body);

  const refusals: Record<string, string>[] = [
    {},
    { 'x-svc-signature': signatureHeader('whsec_wrong_secret', body) },
    { 'x-svc-signature': signatureHeader(secret, body, Math.floor(Date.now() / 1000) - 3600) },
  ];
  for (const headers of refusals) {
    const refused = await post(headers);
    t.is(refused.status, 401);
    t.is(((await refused.json()) as any).error.code, 'unauthorized');
  }
  t.is((await allExecutions(api, workflowId)).length, 0, 'no run for a refused request');

  const accepted = await post({ 'x-svc-signature': signatureHeader(secret, body) });
  t.is(accepted.status, 202);
  const { data } = (await accepted.json()) as { data: { execution_id: string } };
  const run = await waitForExecution(
    api,
    workflowId,
    data.execution_id,
    (e) => e.status === 'completed',
  );
  t.deepEqual(run.input, { ticket: 7 });
  t.is((await allExecutions(api, workflowId)).length, 1);
});

test('an event trigger starts one run per matching event, and not from its own events', async (t) => {
  const { api } = await workspaceApi('event-trigger');
  const worker = await activeAgent(api);
  const workflowId = await createWorkflow(api, {
    name: 'On new agents and any workflow run',
    status: 'active',
    trigger: { type: 'event', config: { event_types: ['agent.created', 'workflow.execution.*'] } },
    steps: answerStep(worker.id),
  });
  // Three matching events (agent.created) and one that does not match (agent.updated by deploy).
  const created: string[] = [];
  for (const name of ['One', 'Two', 'Three']) {
    const agent = await api('POST', '/agents', { name, ontology: 'retail-v1' });
    t.is(agent.status, 201);
    created.push(agent.body.data.id);
  }
  await api('PATCH', `/agents/${created[0]}`, { description: 'changed' });
  // A trigger starts its run in the event's own transaction: once the three runs have ended
  // (their events published), any run their own events had started would exist too.
  const runs = await afterRunEvents(
    d,
    () => allExecutions(api, workflowId),
    (all) => all.length >= 3 && all.every((run) => TERMINAL.includes(run.status)),
  );
  // Its own runs emit workflow.execution.* events, which it listens to: none started another run.
  t.is(runs.length, 3);
  t.deepEqual(runs.map((run) => run.input.data.id).sort(), [...created].sort());
  t.true(runs.every((run) => run.trigger.type === 'event' && run.input.type === 'agent.created'));
  t.true(runs.every((run) => run.status === 'completed'));
});

test('an event trigger of another workspace hears nothing', async (t) => {
  const listener = await workspaceApi('event-listener');
  const other = await workspaceApi('event-other');
  const agent = await activeAgent(listener.api);
  const workflowId = await createWorkflow(listener.api, {
    name: 'On agents',
    status: 'active',
    trigger: { type: 'event', config: { event_types: ['agent.*'] } },
    steps: answerStep(agent.id),
  });
  const before = (await allExecutions(listener.api, workflowId)).length;
  // A matching trigger would have started its run in the event's transaction, which has
  // committed once the request is answered: nothing to wait for.
  await other.api('POST', '/agents', { name: 'Elsewhere', ontology: 'retail-v1' });
  t.is((await allExecutions(listener.api, workflowId)).length, before);
});
