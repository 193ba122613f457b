// The agent resource end to end (spec "Agents", decisions §7 and §10): create/get/list/update/
// delete with validation, list filters and both pagination forms, tenant isolation, scopes,
// the L4 tier restriction, and the lifecycle training -> active (training period on the daemon
// clock), PATCH status, POST /v1/agents/deploy and 409 agent_not_active.
// The training period is long (600 s) so that agents stay in training unless a test moves the
// clock; the test that moves it is serial (ava runs serial tests before the concurrent ones).
import test, { type ExecutionContext } from 'ava';
import { sharedDaemon, scopedKeys } from '../helpers/setup.js';
import type { AgentView as Agent } from '../../shared/schemas/agents.js';
import { apiCaller, assertError, createdWith, type Auth } from '../helpers/api.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const d = sharedDaemon(test, { env: { SVC_AGENT_TRAINING_SECONDS: '600' } });
let operatorKey: string;
let defaultWs: string;

test.before(async () => {
  ({ key: operatorKey, workspaceId: defaultWs } = await d.operator());
});

/** A fresh workspace over the control channel (what `svc workspaces create` does). */
function workspace(tier = 'enterprise', name = 'Agents API'): Promise<string> {
  return d.createWorkspace(name, tier);
}

const call = apiCaller(() => ({ daemon: d, key: operatorKey, tenant: defaultWs }));

/**
 * An agent that is not active (training, paused) refuses both to execute (with `execute` in the
 * body) and to take messages: 409 agent_not_active naming its status and id.
 */
async function assertNotActive(
  t: ExecutionContext,
  ws: string,
  agentId: string,
  status: string,
  execute: Record<string, unknown> = {},
) {
  const tries = [
    call(
      'POST',
      `/v1/agents/${agentId}/execute`,
      { input: 'Where is my order?', ...execute },
      { tenant: ws },
    ),
    call('POST', `/v1/agents/${agentId}/messages`, { content: 'Hello' }, { tenant: ws }),
  ];
  for (const answer of await Promise.all(tries)) {
    t.like(assertError(t, answer, 409, 'agent_not_active'), {
      agent_status: status,
      agent_id: agentId,
    });
  }
}

function createAgent(fields: Record<string, unknown> = {}, auth: Auth = {}): Promise<Agent> {
  return createdWith(
    call,
    '/v1/agents',
    { name: 'Support', ontology: 'retail-v1', ...fields },
    auth,
  );
}

const advance = (duration: string | number) => d.advance(duration);

async function events(tenant: string, type: string): Promise<{ type: string; data: any }[]> {
  const answer = await call(
    'GET',
    `/v1/events?type=${encodeURIComponent(type)}&limit=100`,
    undefined,
    {
      tenant,
    },
  );
  if (answer.status !== 200) throw new Error(`events: ${answer.status} ${answer.text}`);
  return answer.body.data;
}

// --- serial: the test that moves the clock ---------------------------------------------------

test.serial(
  'lifecycle: training refuses work with 409 agent_not_active, ends after the training period (agent.updated), then paused refuses again',
  async (t) => {
    const ws = await workspace();
    const agent = await createAgent({ autonomy_level: 'L3' }, { tenant: ws });
    t.is(agent.status, 'training');

    await assertNotActive(t, ws, agent.id, 'training', { wait_for_completion: true });

    // 600 s of training on the daemon clock.
    await advance('9m');
    t.is(
      (await call('GET', `/v1/agents/${agent.id}`, undefined, { tenant: ws })).body.data.status,
      'training',
    );
    await advance('61s');
    const trained = (await call('GET', `/v1/agents/${agent.id}`, undefined, { tenant: ws })).body
      .data as Agent;
    t.is(trained.status, 'active');
    const updated = await events(ws, 'agent.updated');
    t.true(
      updated.some((event) => event.data.id === agent.id && event.data.status === 'active'),
      'agent.updated with status active when training ends',
    );

    const done = await call(
      'POST',
      `/v1/agents/${agent.id}/execute`,
      { input: 'Where is my order?', wait_for_completion: true },
      { tenant: ws },
    );
    t.is(done.status, 200, done.text);

    const paused = await call(
      'PATCH',
      `/v1/agents/${agent.id}`,
      { status: 'paused' },
      { tenant: ws },
    );
    t.is(paused.status, 200, paused.text);
    t.is(paused.body.data.status, 'paused');
    await assertNotActive(t, ws, agent.id, 'paused');
  },
);

test.serial(
  'per-operation limits on a business workspace: create 10/hour, deploy 10/minute, execute 100/minute per agent',
  async (t) => {
    const ws = await workspace('business', 'Limits');
    const key = (await d.createKey('agents:read agents:write agents:execute', { workspace: ws }))
      .key;
    const as = { key, tenant: ws };
    // The start of an hour (and of a minute) on the daemon clock: all windows are fresh.
    const set = await d.cli(['clock', 'set', '2031-01-01T00:00:00Z', '--json']);
    t.is(set.code, 0, set.stderr);

    const ids: string[] = [];
    for (let i = 0; i < 10; i++)
      ids.push((await createAgent({ name: `A${i}`, autonomy_level: 'L3' }, as)).id);
    const eleventh = await call('POST', '/v1/agents', { name: 'A10', ontology: 'retail-v1' }, as);
    const limited = assertError(t, eleventh, 429, 'rate_limit_exceeded');
    t.is(limited.limit, 10);
    t.is(limited.remaining, 0);
    t.regex(String(limited.reset_at), ISO);
    t.truthy(eleventh.headers.get('retry-after'));
    t.is(eleventh.headers.get('x-ratelimit-limit'), '10');

    for (const id of ids) {
      const deployed = await call('POST', '/v1/agents/deploy', { agent_id: id }, as);
      t.is(deployed.status, 200, deployed.text);
    }
    assertError(
      t,
      await call('POST', '/v1/agents/deploy', { agent_id: ids[0] }, as),
      429,
      'rate_limit_exceeded',
    );

    // 100 executions of one agent, paced under the business burst of 50 per second: each batch
    // starts in a fresh one-second window of the daemon clock (a 1 s move always crosses into
    // the next window), and all stay inside the same minute.
    await advance('1s');
    for (let batch = 0; batch < 3; batch++) {
      const size = batch < 2 ? 40 : 20;
      for (let i = 0; i < size; i++) {
        const answer = await call(
          'POST',
          `/v1/agents/${ids[0]}/execute`,
          { input: 'Where is my order?', wait_for_completion: true },
          as,
        );
        if (answer.status !== 200) {
          t.fail(`execution ${batch * 40 + i + 1}: ${answer.status} ${answer.text}`);
          return;
        }
      }
      await advance('1s');
    }
    const over = await call(
      'POST',
      `/v1/agents/${ids[0]}/execute`,
      { input: 'Where is my order?', wait_for_completion: true },
      as,
    );
    t.is(assertError(t, over, 429, 'rate_limit_exceeded').limit, 100);
    // The limit is per agent.
    const other = await call(
      'POST',
      `/v1/agents/${ids[1]}/execute`,
      { input: 'Where is my order?', wait_for_completion: true },
      as,
    );
    t.is(other.status, 200, other.text);

    await advance('1h');
    t.is(
      (await call('POST', '/v1/agents', { name: 'Later', ontology: 'retail-v1' }, as)).status,
      201,
      'a new hour, a new create window',
    );
  },
);

// --- create and validation -------------------------------------------------------------------

test('create answers 201 with the agent in training, zeroed stats, defaults, and emits agent.created', async (t) => {
  const ws = await workspace();
  const answer = await call(
    'POST',
    '/v1/agents',
    {
      name: 'Support Bot',
      description: 'Answers customers',
      type: 'customer-service',
      ontology: 'retail-v1',
      autonomy_level: 'L3',
      capabilities: { issue_refund: true, cancel_order: false },
      guardrails: {
        require_approval_for: ['issue_refund'],
        blocked_actions: ['delete_account'],
        rate_limits: { actions_per_hour: 50 },
      },
      personality: { tone: 'friendly', response_length: 'short', empathy_level: 'high' },
    },
    { tenant: ws },
  );
  t.is(answer.status, 201, answer.text);
  t.regex(answer.headers.get('x-request-id') ?? '', /^req_/);
  t.is(answer.body.meta.request_id, answer.headers.get('x-request-id'));
  const agent = answer.body.data as Agent;
  t.regex(agent.id, /^agt_/);
  t.like(agent, {
    workspace_id: ws,
    name: 'Support Bot',
    description: 'Answers customers',
    type: 'customer-service',
    ontology: 'retail-v1',
    autonomy_level: 'L3',
    status: 'training',
    capabilities: { issue_refund: true, cancel_order: false },
    personality: { tone: 'friendly', response_length: 'short', empathy_level: 'high' },
    last_active_at: null,
  });
  t.deepEqual(agent.guardrails, {
    require_approval_for: ['issue_refund'],
    blocked_actions: ['delete_account'],
    rate_limits: { actions_per_hour: 50 },
  });
  t.deepEqual(agent.stats, { total_interactions: 0, success_rate: 0, avg_response_time_ms: 0 });
  t.regex(agent.created_at, ISO);
  t.regex(agent.updated_at, ISO);

  const got = await call('GET', `/v1/agents/${agent.id}`, undefined, { tenant: ws });
  t.is(got.status, 200);
  t.deepEqual(got.body.data, agent);

  const created = await events(ws, 'agent.created');
  t.is(created.length, 1);
  t.like(created[0]!.data, { id: agent.id, name: 'Support Bot', status: 'training' });

  // Only name and ontology are required: the rest has defaults (L2 is the recommended level).
  const minimal = await createAgent({}, { tenant: ws });
  t.like(minimal, {
    type: 'custom',
    autonomy_level: 'L2',
    status: 'training',
    last_active_at: null,
  });
  t.deepEqual(minimal.guardrails, {
    require_approval_for: [],
    blocked_actions: [],
    rate_limits: { actions_per_hour: null },
  });
});

test('create without name and ontology: 400 missing_required_field naming both', async (t) => {
  const answer = await call('POST', '/v1/agents', { description: 'nameless' });
  const error = assertError(t, answer, 400, 'missing_required_field');
  t.true(Array.isArray(error.required_fields));
  t.true(error.required_fields.includes('name'), JSON.stringify(error));
  t.true(error.required_fields.includes('ontology'), JSON.stringify(error));
  t.is(error.type, 'validation_error');

  const noOntology = await call('POST', '/v1/agents', { name: 'X' });
  const only = assertError(t, noOntology, 400, 'missing_required_field', 'ontology');
  t.deepEqual(only.required_fields, ['ontology']);
});

test('create with bad values: invalid_autonomy_level, invalid_parameter for type and ontology', async (t) => {
  assertError(
    t,
    await call('POST', '/v1/agents', { name: 'X', ontology: 'retail-v1', autonomy_level: 'L5' }),
    400,
    'invalid_autonomy_level',
    'autonomy_level',
  );
  assertError(
    t,
    await call('POST', '/v1/agents', { name: 'X', ontology: 'retail-v1', autonomy_level: 'l3' }),
    400,
    'invalid_autonomy_level',
    'autonomy_level',
  );
  assertError(
    t,
    await call('POST', '/v1/agents', { name: 'X', ontology: 'retail-v1', type: 'wizard' }),
    400,
    'invalid_parameter',
    'type',
  );
  for (const ontology of ['retail', 'Retail-v1', 'retail-vx', '']) {
    assertError(
      t,
      await call('POST', '/v1/agents', { name: 'X', ontology }),
      400,
      'invalid_parameter',
      'ontology',
    );
  }
  assertError(
    t,
    await call('POST', '/v1/agents', {
      name: 'X',
      ontology: 'retail-v1',
      guardrails: { rate_limits: { actions_per_hour: 'many' } },
    }),
    400,
    'invalid_parameter',
  );
  const notJson = await d.request('/v1/agents', {
    method: 'POST',
    key: operatorKey,
    tenant: defaultWs,
    headers: { 'content-type': 'application/json' },
    body: '{"name": ',
  });
  assertError(t, notJson, 400, 'invalid_request_body');

  // The message says what the form is (the schema's own message), not "not a valid regex".
  const ontologyError = assertError(
    t,
    await call('POST', '/v1/agents', { name: 'X', ontology: 'retail' }),
    400,
    'invalid_parameter',
    'ontology',
  );
  t.notRegex(ontologyError.message, /regex/i, ontologyError.message);
  t.regex(ontologyError.message, /-v/, ontologyError.message);
});

// --- read and list ---------------------------------------------------------------------------

test('get an unknown agent: 404 agent_not_found', async (t) => {
  assertError(t, await call('GET', '/v1/agents/agt_doesnotexist000000'), 404, 'agent_not_found');
});

test('list: newest first, status and type filters, total_count, has_more, starting_after and cursor', async (t) => {
  const ws = await workspace();
  // 1 ms apart on the daemon clock, so that "newest first" does not depend on the id order of
  // a tie.
  const a = await createAgent({ name: 'A', type: 'sales' }, { tenant: ws });
  await advance(1);
  const b = await createAgent({ name: 'B', type: 'research' }, { tenant: ws });
  await advance(1);
  const c = await createAgent({ name: 'C', type: 'sales' }, { tenant: ws });
  await advance(1);
  const e = await createAgent({ name: 'E', type: 'operations' }, { tenant: ws });
  t.is(
    (await call('PATCH', `/v1/agents/${b.id}`, { status: 'paused' }, { tenant: ws })).status,
    200,
  );
  t.is((await call('POST', '/v1/agents/deploy', { agent_id: c.id }, { tenant: ws })).status, 200);

  const all = await call('GET', '/v1/agents', undefined, { tenant: ws });
  t.is(all.status, 200, all.text);
  t.deepEqual(
    all.body.data.map((agent: Agent) => agent.id),
    [e.id, c.id, b.id, a.id],
  );
  t.is(all.body.total_count, 4);
  t.false(all.body.has_more);
  t.false(all.body.meta.has_more);
  t.is(all.body.meta.next_cursor, null);

  const sales = await call('GET', '/v1/agents?type=sales', undefined, { tenant: ws });
  t.deepEqual(
    sales.body.data.map((agent: Agent) => agent.id),
    [c.id, a.id],
  );
  t.is(sales.body.total_count, 2);

  const paused = await call('GET', '/v1/agents?status=paused', undefined, { tenant: ws });
  t.deepEqual(
    paused.body.data.map((agent: Agent) => agent.id),
    [b.id],
  );
  t.is(paused.body.total_count, 1);
  const training = await call('GET', '/v1/agents?status=training', undefined, { tenant: ws });
  t.deepEqual(
    training.body.data.map((agent: Agent) => agent.id),
    [e.id, a.id],
  );
  const activeSales = await call('GET', '/v1/agents?status=active&type=sales', undefined, {
    tenant: ws,
  });
  t.deepEqual(
    activeSales.body.data.map((agent: Agent) => agent.id),
    [c.id],
  );

  const page1 = await call('GET', '/v1/agents?limit=2', undefined, { tenant: ws });
  t.deepEqual(
    page1.body.data.map((agent: Agent) => agent.id),
    [e.id, c.id],
  );
  t.true(page1.body.has_more);
  t.true(page1.body.meta.has_more);
  t.is(page1.body.meta.next_cursor, c.id);
  t.is(page1.body.total_count, 4);
  const page2 = await call('GET', `/v1/agents?limit=2&starting_after=${c.id}`, undefined, {
    tenant: ws,
  });
  t.deepEqual(
    page2.body.data.map((agent: Agent) => agent.id),
    [b.id, a.id],
  );
  t.false(page2.body.has_more);
  t.is(page2.body.meta.next_cursor, null);
  const viaCursor = await call('GET', `/v1/agents?limit=2&cursor=${c.id}`, undefined, {
    tenant: ws,
  });
  t.deepEqual(viaCursor.body.data, page2.body.data);

  assertError(
    t,
    await call('GET', '/v1/agents?status=sleeping', undefined, { tenant: ws }),
    400,
    'invalid_parameter',
    'status',
  );
  assertError(
    t,
    await call('GET', '/v1/agents?type=wizard', undefined, { tenant: ws }),
    400,
    'invalid_parameter',
    'type',
  );
  assertError(
    t,
    await call('GET', '/v1/agents?limit=0', undefined, { tenant: ws }),
    400,
    'invalid_parameter',
    'limit',
  );
});

// --- update, deploy, delete ------------------------------------------------------------------

test('PATCH changes any field, merges guardrails and personality, sets status, emits agent.updated', async (t) => {
  const ws = await workspace();
  const agent = await createAgent(
    {
      guardrails: { require_approval_for: ['issue_refund'], rate_limits: { actions_per_hour: 10 } },
      personality: { tone: 'formal' },
      capabilities: { issue_refund: true },
    },
    { tenant: ws },
  );
  const patched = await call(
    'PATCH',
    `/v1/agents/${agent.id}`,
    {
      name: 'Renamed',
      description: 'New description',
      type: 'sales',
      ontology: 'finance-v2',
      autonomy_level: 'L1',
      guardrails: { blocked_actions: ['delete_account'] },
      personality: { empathy_level: 'low' },
      capabilities: { cancel_order: false },
    },
    { tenant: ws },
  );
  t.is(patched.status, 200, patched.text);
  const view = patched.body.data as Agent;
  t.like(view, {
    id: agent.id,
    name: 'Renamed',
    description: 'New description',
    type: 'sales',
    ontology: 'finance-v2',
    autonomy_level: 'L1',
    status: 'training',
    capabilities: { issue_refund: true, cancel_order: false },
    personality: { tone: 'formal', empathy_level: 'low' },
    created_at: agent.created_at,
  });
  t.deepEqual(view.guardrails, {
    require_approval_for: ['issue_refund'],
    blocked_actions: ['delete_account'],
    rate_limits: { actions_per_hour: 10 },
  });
  t.true(Date.parse(view.updated_at) >= Date.parse(agent.updated_at));
  t.deepEqual(
    (await call('GET', `/v1/agents/${agent.id}`, undefined, { tenant: ws })).body.data,
    view,
  );

  // A guardrail list given again replaces that list; the others stay.
  const replaced = await call(
    'PATCH',
    `/v1/agents/${agent.id}`,
    { guardrails: { require_approval_for: ['cancel_order'] } },
    { tenant: ws },
  );
  t.deepEqual(replaced.body.data.guardrails, {
    require_approval_for: ['cancel_order'],
    blocked_actions: ['delete_account'],
    rate_limits: { actions_per_hour: 10 },
  });

  for (const status of ['active', 'paused', 'archived', 'active']) {
    const answer = await call('PATCH', `/v1/agents/${agent.id}`, { status }, { tenant: ws });
    t.is(answer.status, 200, answer.text);
    t.is(answer.body.data.status, status);
  }
  assertError(
    t,
    await call('PATCH', `/v1/agents/${agent.id}`, { status: 'training' }, { tenant: ws }),
    400,
    'invalid_parameter',
    'status',
  );
  assertError(
    t,
    await call('PATCH', `/v1/agents/${agent.id}`, { autonomy_level: 'L0' }, { tenant: ws }),
    400,
    'invalid_autonomy_level',
    'autonomy_level',
  );
  assertError(
    t,
    await call('PATCH', `/v1/agents/${agent.id}`, { ontology: 'nope' }, { tenant: ws }),
    400,
    'invalid_parameter',
    'ontology',
  );
  assertError(
    t,
    await call('PATCH', '/v1/agents/agt_doesnotexist000000', { name: 'X' }, { tenant: ws }),
    404,
    'agent_not_found',
  );

  const updates = (await events(ws, 'agent.updated')).filter((event) => event.data.id === agent.id);
  t.is(updates.length, 6, 'one agent.updated per successful PATCH');
  t.deepEqual(
    updates.map((event) => event.data.status).sort(),
    ['active', 'active', 'archived', 'paused', 'training', 'training'],
    'each carries the agent object as it was after the PATCH',
  );
});

test('POST /v1/agents/deploy makes an agent active at once; unknown id 404; missing agent_id 400', async (t) => {
  const agent = await createAgent();
  t.is(agent.status, 'training');
  const deployed = await call('POST', '/v1/agents/deploy', { agent_id: agent.id });
  t.is(deployed.status, 200, deployed.text);
  t.like(deployed.body.data, { id: agent.id, status: 'active' });
  t.is((await call('GET', `/v1/agents/${agent.id}`)).body.data.status, 'active');
  // Deploying an active agent is harmless.
  const again = await call('POST', '/v1/agents/deploy', { agent_id: agent.id });
  t.is(again.status, 200);
  t.is(again.body.data.status, 'active');

  assertError(
    t,
    await call('POST', '/v1/agents/deploy', { agent_id: 'agt_doesnotexist000000' }),
    404,
    'agent_not_found',
  );
  const missing = assertError(
    t,
    await call('POST', '/v1/agents/deploy', {}),
    400,
    'missing_required_field',
    'agent_id',
  );
  t.deepEqual(missing.required_fields, ['agent_id']);
});

test('DELETE answers {id, deleted: true}, then the agent is 404 everywhere and agent.deleted is emitted', async (t) => {
  const ws = await workspace();
  const agent = await createAgent({}, { tenant: ws });
  const keep = await createAgent({ name: 'Keep' }, { tenant: ws });
  const deleted = await call('DELETE', `/v1/agents/${agent.id}`, undefined, { tenant: ws });
  t.is(deleted.status, 200, deleted.text);
  t.deepEqual(deleted.body.data, { id: agent.id, deleted: true });

  assertError(
    t,
    await call('GET', `/v1/agents/${agent.id}`, undefined, { tenant: ws }),
    404,
    'agent_not_found',
  );
  assertError(
    t,
    await call('DELETE', `/v1/agents/${agent.id}`, undefined, { tenant: ws }),
    404,
    'agent_not_found',
  );
  assertError(
    t,
    await call('PATCH', `/v1/agents/${agent.id}`, { name: 'Back' }, { tenant: ws }),
    404,
    'agent_not_found',
  );
  assertError(
    t,
    await call('POST', '/v1/agents/deploy', { agent_id: agent.id }, { tenant: ws }),
    404,
    'agent_not_found',
  );
  assertError(
    t,
    await call('POST', `/v1/agents/${agent.id}/execute`, { input: 'hi' }, { tenant: ws }),
    404,
    'agent_not_found',
  );
  const list = await call('GET', '/v1/agents', undefined, { tenant: ws });
  t.deepEqual(
    list.body.data.map((a: Agent) => a.id),
    [keep.id],
  );
  t.is(list.body.total_count, 1);

  const deletedEvents = await events(ws, 'agent.deleted');
  t.is(deletedEvents.length, 1);
  t.is(deletedEvents[0]!.data.id, agent.id);
});

// --- tenancy, scopes, tiers ------------------------------------------------------------------

test("another workspace's agent is 404 agent_not_found (never 403), and is not listed", async (t) => {
  const ws1 = await workspace();
  const ws2 = await workspace();
  const agent = await createAgent({}, { tenant: ws1 });
  await call('POST', '/v1/agents/deploy', { agent_id: agent.id }, { tenant: ws1 });
  const other = { tenant: ws2 };
  assertError(
    t,
    await call('GET', `/v1/agents/${agent.id}`, undefined, other),
    404,
    'agent_not_found',
  );
  assertError(
    t,
    await call('PATCH', `/v1/agents/${agent.id}`, { name: 'X' }, other),
    404,
    'agent_not_found',
  );
  assertError(
    t,
    await call('DELETE', `/v1/agents/${agent.id}`, undefined, other),
    404,
    'agent_not_found',
  );
  assertError(
    t,
    await call('POST', `/v1/agents/${agent.id}/execute`, { input: 'hi' }, other),
    404,
    'agent_not_found',
  );
  assertError(
    t,
    await call('POST', '/v1/agents/deploy', { agent_id: agent.id }, other),
    404,
    'agent_not_found',
  );
  const list = await call('GET', '/v1/agents', undefined, other);
  t.is(list.body.total_count, 0);
  // Still there for its own workspace.
  t.is((await call('GET', `/v1/agents/${agent.id}`, undefined, { tenant: ws1 })).status, 200);

  // A key of ws2 naming ws1 as tenant is refused at the door.
  const key2 = await d.createKey('agents:read', { workspace: ws2 });
  assertError(
    t,
    await call('GET', `/v1/agents/${agent.id}`, undefined, { key: key2.key, tenant: ws1 }),
    403,
    'tenant_forbidden',
  );
  // Missing tenant header.
  const noTenant = await d.request('/v1/agents', { key: operatorKey });
  const error = assertError(t, noTenant, 400, 'missing_required_field', 'X-Tenant-ID');
  t.deepEqual(error.required_fields, ['X-Tenant-ID']);
});

test('scopes: agents:read reads only, agents:write manages but cannot execute, agents:execute executes', async (t) => {
  const ws = await workspace();
  const { reader, writer, executor } = await scopedKeys(
    d,
    { reader: 'agents:read', writer: 'agents:write', executor: 'agents:execute' },
    ws,
  );
  /** The call with `key` in ws must be refused for its scope. */
  const refused = async (key: string, method: string, path: string, body?: unknown) =>
    assertError(t, await call(method, path, body, { key, tenant: ws }), 403, 'insufficient_scope');

  await refused(reader, 'POST', '/v1/agents', { name: 'X', ontology: 'retail-v1' });
  const agent = await createAgent({ autonomy_level: 'L3' }, { key: writer, tenant: ws });
  t.is((await call('GET', '/v1/agents', undefined, { key: reader, tenant: ws })).status, 200);
  t.is(
    (await call('GET', `/v1/agents/${agent.id}`, undefined, { key: reader, tenant: ws })).status,
    200,
  );
  await refused(reader, 'PATCH', `/v1/agents/${agent.id}`, { name: 'Y' });
  await refused(reader, 'DELETE', `/v1/agents/${agent.id}`);
  await refused(reader, 'POST', '/v1/agents/deploy', { agent_id: agent.id });
  const deployed = await call(
    'POST',
    '/v1/agents/deploy',
    { agent_id: agent.id },
    { key: writer, tenant: ws },
  );
  t.is(deployed.status, 200, deployed.text);

  for (const key of [reader, writer]) {
    await refused(key, 'POST', `/v1/agents/${agent.id}/execute`, {
      input: 'Where is my order?',
      wait_for_completion: true,
    });
    await refused(key, 'POST', `/v1/agents/${agent.id}/messages`, { content: 'Hello' });
  }
  const executed = await call(
    'POST',
    `/v1/agents/${agent.id}/execute`,
    { input: 'Where is my order?', wait_for_completion: true },
    { key: executor, tenant: ws },
  );
  t.is(executed.status, 200, executed.text);
  await refused(executor, 'POST', '/v1/agents', { name: 'X', ontology: 'retail-v1' });
  // admin implies everything.
  const admin = (await d.createKey('admin', { workspace: ws })).key;
  t.is(
    (
      await call(
        'POST',
        '/v1/agents',
        { name: 'Z', ontology: 'retail-v1' },
        { key: admin, tenant: ws },
      )
    ).status,
    201,
  );
});

test('L4 needs the Business tier: 403 tier_restriction on free and starter (create and PATCH), allowed on business', async (t) => {
  for (const tier of ['free', 'starter']) {
    const ws = await workspace(tier, `L4 ${tier}`);
    const key = (await d.createKey('agents:read agents:write', { workspace: ws })).key;
    const refused = await call(
      'POST',
      '/v1/agents',
      { name: 'Proactive', ontology: 'retail-v1', autonomy_level: 'L4' },
      { key, tenant: ws },
    );
    const error = assertError(t, refused, 403, 'tier_restriction');
    t.is(error.type, 'authorization_error');
    t.is(error.current_tier, tier);
    t.is(error.required_tier, 'business');
    t.is(typeof error.upgrade_url, 'string');
    t.notThrows(() => new URL(error.upgrade_url));
    t.is((await call('GET', '/v1/agents', undefined, { key, tenant: ws })).body.total_count, 0);

    const l3 = await createAgent({ autonomy_level: 'L3' }, { key, tenant: ws });
    const patch = await call(
      'PATCH',
      `/v1/agents/${l3.id}`,
      { autonomy_level: 'L4' },
      { key, tenant: ws },
    );
    t.like(assertError(t, patch, 403, 'tier_restriction'), {
      current_tier: tier,
      required_tier: 'business',
    });
    t.is(
      (await call('GET', `/v1/agents/${l3.id}`, undefined, { key, tenant: ws })).body.data
        .autonomy_level,
      'L3',
    );
  }
  const business = await workspace('business', 'L4 business');
  const key = (await d.createKey('agents:read agents:write', { workspace: business })).key;
  const allowed = await createAgent({ autonomy_level: 'L4' }, { key, tenant: business });
  t.is(allowed.autonomy_level, 'L4');
  const l2 = await createAgent({ autonomy_level: 'L2' }, { key, tenant: business });
  const patched = await call(
    'PATCH',
    `/v1/agents/${l2.id}`,
    { autonomy_level: 'L4' },
    { key, tenant: business },
  );
  t.is(patched.status, 200, patched.text);
  t.is(patched.body.data.autonomy_level, 'L4');
});
