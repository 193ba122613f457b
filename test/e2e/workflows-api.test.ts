// The workflows resource through the REST API of a real daemon: every field, draft by default,
// status filter and both pagination forms, PATCH re-validating the graph, delete, events, scopes,
// tenant isolation, the per-operation create limit and the OpenAPI document.
import test, { type ExecutionContext } from 'ava';
import type { TestDaemon } from '../helpers/daemon.js';
import { sharedDaemon } from '../helpers/setup.js';

const daemon = sharedDaemon(test);
let key: string;

test.before(async () => {
  key = (await daemon.operator()).key;
});

type Answer = Awaited<ReturnType<TestDaemon['callJson']>>;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

async function tenant(tier = 'enterprise') {
  const id = await daemon.createWorkspace('Workflows', tier);
  const call = (method: string, path: string, body?: unknown, k = key): Promise<Answer> =>
    daemon.callJson(method, path, body, { key: k, tenant: id });
  const agent = async (): Promise<string> => {
    const created = await call('POST', '/v1/agents', {
      name: 'Helper',
      ontology: 'retail-v1',
      type: 'customer-service',
    });
    return created.body.data.id as string;
  };
  return { id, call, agent };
}

function assertError(t: ExecutionContext, answer: Answer, status: number, code: string) {
  t.is(answer.status, status, answer.text);
  t.is(answer.body?.error?.code, code, answer.text);
  return answer.body?.error ?? {};
}

const simple = (name = 'Simple') => ({
  name,
  steps: [{ id: 'only', name: 'Only', type: 'wait', config: { duration_seconds: 0 } }],
});

test('create answers 201 with every field; draft by default; GET returns the same', async (t) => {
  const w = await tenant();
  const agentId = await w.agent();
  const body = {
    name: 'Refunds',
    description: 'Handle refund requests',
    trigger: { type: 'manual' },
    steps: [
      {
        id: 'classify',
        name: 'Classify',
        type: 'agent_action',
        agent_id: agentId,
        config: { action: 'classify', input_mapping: { text: '{{trigger.payload.text}}' } },
        next_step_id: 'check',
        on_error: 'notify',
      },
      {
        id: 'check',
        name: 'Check',
        type: 'condition',
        config: {
          condition: 'classify.result.confidence >= 0.8',
          if_true: 'notify',
          if_false: 'pause',
        },
      },
      {
        id: 'pause',
        name: 'Pause',
        type: 'wait',
        config: { duration_seconds: 10, reason: 'cool' },
      },
      {
        id: 'notify',
        name: 'Notify',
        type: 'webhook',
        config: { url: 'http://127.0.0.1:9/hook', method: 'POST', headers: {}, body: { a: 1 } },
      },
    ],
    settings: {
      timeout_seconds: 600,
      retry_policy: { max_attempts: 3, backoff_multiplier: 2 },
      error_handling: 'continue',
    },
  };
  const created = await w.call('POST', '/v1/workflows', body);
  t.is(created.status, 201, created.text);
  const workflow = created.body.data;
  t.regex(workflow.id, /^wfl_/);
  t.like(workflow, {
    workspace_id: w.id,
    name: 'Refunds',
    description: 'Handle refund requests',
    status: 'draft',
    trigger: { type: 'manual', config: {} },
    settings: body.settings,
    last_executed_at: null,
    stats: { total_executions: 0, success_rate: 0, avg_duration_seconds: 0 },
  });
  t.regex(workflow.created_at, ISO);
  t.regex(workflow.updated_at, ISO);
  t.deepEqual(workflow.steps[0], { ...body.steps[0] });
  t.like(workflow.steps[2], { agent_id: null, next_step_id: null, on_error: null });
  const got = await w.call('GET', `/v1/workflows/${workflow.id}`);
  t.is(got.status, 200);
  t.deepEqual(got.body.data, workflow);

  const active = await w.call('POST', '/v1/workflows', { ...simple(), status: 'active' });
  t.is(active.body.data.status, 'active');
  t.like(active.body.data.settings, {
    timeout_seconds: 3600,
    retry_policy: { max_attempts: 1, backoff_multiplier: 2 },
    error_handling: 'stop',
  });
});

test('validation on create: invalid_step_config with param, circular_dependency naming the loop', async (t) => {
  const w = await tenant();
  const unknownType = await w.call('POST', '/v1/workflows', {
    name: 'x',
    steps: [
      { id: 'a', name: 'a', type: 'wait', config: { duration_seconds: 0 }, next_step_id: 'b' },
      { id: 'b', name: 'b', type: 'wait', config: { duration_seconds: 0 }, next_step_id: 'c' },
      {
        id: 'c',
        name: 'c',
        type: 'condition',
        config: { condition: 'true', if_true: 'a', if_false: 'zzz' },
      },
    ],
  });
  t.is(assertError(t, unknownType, 400, 'invalid_step_config').param, 'steps[2].config.if_false');

  const teleport = await w.call('POST', '/v1/workflows', {
    name: 'x',
    steps: [{ id: 'a', name: 'a', type: 'teleport', config: {} }],
  });
  t.is(assertError(t, teleport, 400, 'invalid_step_config').param, 'steps[0].type');

  const missingAgent = await w.call('POST', '/v1/workflows', {
    name: 'x',
    steps: [
      { id: 'a', name: 'a', type: 'agent_action', agent_id: 'agt_nope', config: { action: 'x' } },
    ],
  });
  t.is(assertError(t, missingAgent, 400, 'invalid_step_config').param, 'steps[0].agent_id');

  const badExpression = await w.call('POST', '/v1/workflows', {
    name: 'x',
    steps: [
      { id: 'a', name: 'a', type: 'condition', config: { condition: 'a >* 2', if_true: 'a' } },
    ],
  });
  t.is(
    assertError(t, badExpression, 400, 'invalid_step_config').param,
    'steps[0].config.condition',
  );

  const loop = await w.call('POST', '/v1/workflows', {
    name: 'x',
    steps: [
      { id: 'a', name: 'a', type: 'wait', config: { duration_seconds: 0 }, next_step_id: 'b' },
      { id: 'b', name: 'b', type: 'wait', config: { duration_seconds: 0 }, on_error: 'a' },
    ],
  });
  const error = assertError(t, loop, 400, 'circular_dependency');
  t.deepEqual(error.cycle, ['a', 'b', 'a']);
  t.regex(error.message, /a -> b -> a/);

  const list = await w.call('GET', '/v1/workflows');
  t.is(list.body.total_count, 0, 'nothing was stored');
});

test('PATCH re-validates the graph, merges settings, emits workflow.updated; DELETE emits workflow.deleted', async (t) => {
  const w = await tenant();
  const id = (await w.call('POST', '/v1/workflows', simple())).body.data.id as string;
  const patched = await w.call('PATCH', `/v1/workflows/${id}`, {
    status: 'active',
    settings: { timeout_seconds: 120 },
  });
  t.is(patched.status, 200, patched.text);
  t.like(patched.body.data, {
    status: 'active',
    settings: { timeout_seconds: 120, error_handling: 'stop' },
  });

  const cyclic = await w.call('PATCH', `/v1/workflows/${id}`, {
    steps: [
      { id: 'a', name: 'a', type: 'wait', config: { duration_seconds: 0 }, next_step_id: 'a' },
    ],
  });
  assertError(t, cyclic, 400, 'circular_dependency');
  t.is((await w.call('GET', `/v1/workflows/${id}`)).body.data.steps[0].id, 'only');

  // An agent the graph names, deleted since, fails the next PATCH of anything.
  const agentId = await w.agent();
  await w.call('PATCH', `/v1/workflows/${id}`, {
    steps: [
      { id: 'a', name: 'a', type: 'agent_action', agent_id: agentId, config: { action: 'x' } },
    ],
  });
  await w.call('DELETE', `/v1/agents/${agentId}`);
  const stale = await w.call('PATCH', `/v1/workflows/${id}`, { name: 'Renamed' });
  t.is(assertError(t, stale, 400, 'invalid_step_config').param, 'steps[0].agent_id');

  const deleted = await w.call('DELETE', `/v1/workflows/${id}`);
  t.is(deleted.status, 200);
  t.deepEqual(deleted.body.data, { id, deleted: true });
  assertError(t, await w.call('GET', `/v1/workflows/${id}`), 404, 'workflow_not_found');

  const events = await w.call('GET', '/v1/events?type=workflow.*&limit=20');
  const types = (events.body.data as any[]).map((e) => e.type);
  t.deepEqual(types.filter((type) => type === 'workflow.created').length, 1);
  t.deepEqual(types.filter((type) => type === 'workflow.updated').length, 2);
  const deletedEvent = (events.body.data as any[]).find((e) => e.type === 'workflow.deleted');
  t.deepEqual(deletedEvent.data, { id, deleted: true });
  const createdEvent = (events.body.data as any[]).find((e) => e.type === 'workflow.created');
  t.is(createdEvent.data.id, id);
  t.is(createdEvent.data.status, 'draft');
});

test('list: newest first, status filter, limit with starting_after and cursor, has_more and total_count', async (t) => {
  const w = await tenant();
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const status = i % 2 === 0 ? 'active' : 'draft';
    ids.push((await w.call('POST', '/v1/workflows', { ...simple(`W${i}`), status })).body.data.id);
  }
  const first = await w.call('GET', '/v1/workflows?limit=2');
  t.is(first.status, 200);
  t.deepEqual(
    first.body.data.map((x: any) => x.id),
    [ids[4], ids[3]],
  );
  t.true(first.body.has_more);
  t.is(first.body.total_count, 5);
  t.is(first.body.meta.next_cursor, ids[3]);
  const second = await w.call('GET', `/v1/workflows?limit=2&starting_after=${ids[3]}`);
  t.deepEqual(
    second.body.data.map((x: any) => x.id),
    [ids[2], ids[1]],
  );
  const third = await w.call('GET', `/v1/workflows?limit=2&cursor=${ids[1]}`);
  t.deepEqual(
    third.body.data.map((x: any) => x.id),
    [ids[0]],
  );
  t.false(third.body.has_more);
  t.is(third.body.meta.next_cursor, null);
  const active = await w.call('GET', '/v1/workflows?status=active');
  t.deepEqual(
    active.body.data.map((x: any) => x.id),
    [ids[4], ids[2], ids[0]],
  );
  t.is(active.body.total_count, 3);
  assertError(t, await w.call('GET', '/v1/workflows?status=nope'), 400, 'invalid_parameter');
  assertError(t, await w.call('GET', '/v1/workflows?limit=101'), 400, 'invalid_parameter');
});

test('executions list: status filter and pagination; get; unknown execution 404', async (t) => {
  const w = await tenant();
  const id = (await w.call('POST', '/v1/workflows', simple())).body.data.id as string;
  const runs: string[] = [];
  for (let i = 0; i < 3; i++) {
    const answer = await w.call('POST', `/v1/workflows/${id}/execute`, {
      input: { i },
      wait_for_completion: true,
    });
    t.is(answer.status, 200, answer.text);
    runs.push(answer.body.data.execution_id);
  }
  const page = await w.call('GET', `/v1/workflows/${id}/executions?limit=2`);
  t.deepEqual(
    page.body.data.map((x: any) => x.execution_id),
    [runs[2], runs[1]],
  );
  t.true(page.body.has_more);
  t.is(page.body.total_count, 3);
  const completed = await w.call('GET', `/v1/workflows/${id}/executions?status=completed`);
  t.is(completed.body.total_count, 3);
  const running = await w.call('GET', `/v1/workflows/${id}/executions?status=running`);
  t.is(running.body.total_count, 0);
  const one = await w.call('GET', `/v1/workflows/${id}/executions/${runs[0]}`);
  t.like(one.body.data, {
    execution_id: runs[0],
    workflow_id: id,
    status: 'completed',
    input: { i: 0 },
  });
  assertError(
    t,
    await w.call('GET', `/v1/workflows/${id}/executions/wex_nope`),
    404,
    'execution_not_found',
  );
  const input = await w.call('POST', `/v1/workflows/${id}/execute`, { wait_for_completion: true });
  assertError(t, input, 400, 'missing_required_field');
  const stats = (await w.call('GET', `/v1/workflows/${id}`)).body.data;
  t.is(stats.stats.total_executions, 3);
  t.is(stats.stats.success_rate, 1);
  t.regex(stats.last_executed_at, ISO);
});

test('tenant isolation: another workspace sees 404 workflow_not_found', async (t) => {
  const a = await tenant();
  const b = await tenant();
  const id = (await a.call('POST', '/v1/workflows', simple())).body.data.id as string;
  assertError(t, await b.call('GET', `/v1/workflows/${id}`), 404, 'workflow_not_found');
  assertError(
    t,
    await b.call('PATCH', `/v1/workflows/${id}`, { name: 'x' }),
    404,
    'workflow_not_found',
  );
  assertError(t, await b.call('DELETE', `/v1/workflows/${id}`), 404, 'workflow_not_found');
  assertError(
    t,
    await b.call('POST', `/v1/workflows/${id}/execute`, { input: {} }),
    404,
    'workflow_not_found',
  );
  assertError(t, await b.call('GET', `/v1/workflows/${id}/executions`), 404, 'workflow_not_found');
  t.is((await b.call('GET', '/v1/workflows')).body.total_count, 0);
});

test('scopes: workflows:read, workflows:write and workflows:execute each grant their own row', async (t) => {
  const w = await tenant();
  const id = (await w.call('POST', '/v1/workflows', simple())).body.data.id as string;
  const readKey = (await daemon.createKey('workflows:read', { workspace: w.id })).key;
  const writeKey = (await daemon.createKey('workflows:write', { workspace: w.id })).key;
  const executeKey = (await daemon.createKey('workflows:execute', { workspace: w.id })).key;
  t.is((await w.call('GET', `/v1/workflows/${id}`, undefined, readKey)).status, 200);
  assertError(
    t,
    await w.call('POST', '/v1/workflows', simple(), readKey),
    403,
    'insufficient_scope',
  );
  assertError(
    t,
    await w.call('POST', `/v1/workflows/${id}/execute`, { input: {} }, readKey),
    403,
    'insufficient_scope',
  );
  t.is((await w.call('POST', '/v1/workflows', simple(), writeKey)).status, 201);
  assertError(
    t,
    await w.call('GET', `/v1/workflows/${id}`, undefined, writeKey),
    403,
    'insufficient_scope',
  );
  const run = await w.call('POST', `/v1/workflows/${id}/execute`, { input: {} }, executeKey);
  t.is(run.status, 202, run.text);
  assertError(
    t,
    await w.call('PATCH', `/v1/workflows/${id}`, { name: 'n' }, executeKey),
    403,
    'insufficient_scope',
  );
});

test('create is limited to 20 per hour per workspace (429 rate_limit_exceeded)', async (t) => {
  const w = await tenant('business');
  for (let i = 0; i < 20; i++) {
    const created = await w.call('POST', '/v1/workflows', simple(`W${i}`));
    t.is(created.status, 201, created.text);
  }
  const refused = await w.call('POST', '/v1/workflows', simple('one too many'));
  assertError(t, refused, 429, 'rate_limit_exceeded');
  t.is(refused.headers.get('x-ratelimit-limit'), '20');
});

test('the OpenAPI document has every workflow operation and its error codes', async (t) => {
  const doc = (await daemon.request('/openapi.json')).body;
  const operations = Object.values(doc.paths as Record<string, Record<string, any>>).flatMap(
    (path) => Object.values(path).map((op: any) => op.operationId),
  );
  for (const id of [
    'listWorkflows',
    'createWorkflow',
    'getWorkflow',
    'updateWorkflow',
    'deleteWorkflow',
    'executeWorkflow',
    'runWorkflow',
    'listWorkflowExecutions',
    'getWorkflowExecution',
    'cancelWorkflowExecution',
  ]) {
    t.true(operations.includes(id), id);
  }
  const text = JSON.stringify(doc);
  for (const code of [
    'invalid_step_config',
    'circular_dependency',
    'workflow_not_active',
    'step_failed',
    'workflow_timeout',
    'execution_not_cancellable',
  ]) {
    t.true(text.includes(code), code);
  }
});
