// Agent messages and analytics end to end (spec "Agents" endpoints, decisions §7): a message
// gets the agent's reply (msg_, conv_), conversations continue by conversation_id, history is
// listed newest first, filtered and paginated; analytics figures are computed from what the
// test did, only the requested metrics are returned, and the period follows the daemon clock.
// The daemon's training period is 1 s, so one test watches training end when the clock moves.
import test from 'ava';
import { fileDaemon } from '../helpers/setup.js';
import { createAgent } from '../helpers/agents.js';
import type { MessageView as Message } from '../../shared/schemas/agents.js';
import { assertError, type Answer } from '../helpers/api.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const svc = fileDaemon(test, { env: { SVC_AGENT_TRAINING_SECONDS: '1' } });
const { call } = svc;

const agent = (fields: Record<string, unknown> = {}, deploy = true) =>
  createAgent(call, { name: 'Talker', ...fields }, deploy);

async function send(agentId: string, content: string, conversationId?: string): Promise<Message> {
  const answer = await call('POST', `/v1/agents/${agentId}/messages`, {
    content,
    ...(conversationId ? { conversation_id: conversationId } : {}),
  });
  if (answer.status !== 201) throw new Error(`message: ${answer.status} ${answer.text}`);
  return answer.body.data as Message;
}

async function execute(agentId: string, input: string): Promise<Answer> {
  return call('POST', `/v1/agents/${agentId}/execute`, { input, wait_for_completion: true });
}

async function analytics(agentId: string, query: string): Promise<Answer> {
  return call('GET', `/v1/agents/${agentId}/analytics${query}`);
}

const advance = (duration: string | number) => svc.daemon.advance(duration);

// --- serial: tests that move the clock -------------------------------------------------------

test.serial('executions and messages older than the period are left out of it', async (t) => {
  const agentId = await agent();
  t.is((await execute(agentId, 'Where is my order 1?')).status, 200);
  await send(agentId, 'Hello there');
  const fresh = await analytics(agentId, '?period=1d&metrics=total_interactions,actions_by_type');
  t.is(fresh.status, 200, fresh.text);
  t.deepEqual(fresh.body.data.metrics, {
    total_interactions: 2,
    actions_by_type: { check_order_status: 1 },
  });

  await advance('25h');
  t.is((await execute(agentId, 'I want a refund')).status, 200);
  const day = await analytics(agentId, '?period=1d&metrics=total_interactions,actions_by_type');
  t.deepEqual(day.body.data.metrics, {
    total_interactions: 1,
    actions_by_type: { issue_refund: 1 },
  });
  const week = await analytics(agentId, '?period=7d&metrics=total_interactions,actions_by_type');
  t.deepEqual(week.body.data.metrics, {
    total_interactions: 3,
    actions_by_type: { check_order_status: 1, issue_refund: 1 },
  });

  await advance('8d');
  const empty = await analytics(agentId, '?period=7d');
  t.is(empty.body.data.metrics.total_interactions, 0);
  t.deepEqual(empty.body.data.metrics.actions_by_type, {});
  t.is((await analytics(agentId, '?period=30d')).body.data.metrics.total_interactions, 3);
});

// --- lifecycle on its own --------------------------------------------------------------------

test('an agent becomes active by itself after the training period and emits agent.updated', async (t) => {
  const created = await call('POST', '/v1/agents', { name: 'Trainee', ontology: 'retail-v1' });
  t.is(created.status, 201);
  t.is(created.body.data.status, 'training');
  const id = created.body.data.id as string;
  // The training timer is due 1 s after creation on the daemon clock; moving the clock 1 s
  // fires it (the advance answers once due timers have run), no deploy call involved.
  await advance('1s');
  t.is((await call('GET', `/v1/agents/${id}`)).body.data.status, 'active');
  const events = await call('GET', '/v1/events?type=agent.updated&limit=100');
  t.true(
    events.body.data.some(
      (event: { data: { id: string; status: string } }) =>
        event.data.id === id && event.data.status === 'active',
    ),
  );
  t.is((await send(id, 'Hello')).role, 'agent');
});

// --- messages --------------------------------------------------------------------------------

test('a message gets the agent reply (msg_, conv_); conversation_id continues the conversation', async (t) => {
  const agentId = await agent();
  const first = await call('POST', `/v1/agents/${agentId}/messages`, {
    content: 'Where is my order 1234?',
  });
  t.is(first.status, 201, first.text);
  const reply = first.body.data as Message;
  t.regex(reply.id, /^msg_/);
  t.regex(reply.conversation_id, /^conv_/);
  t.like(reply, { agent_id: agentId, role: 'agent', action: 'check_order_status' });
  t.is(typeof reply.content, 'string');
  t.true(reply.content.length > 0);
  t.true(typeof reply.confidence === 'number' && reply.confidence > 0 && reply.confidence <= 1);
  t.regex(reply.created_at, ISO);

  await advance(1);
  const second = await send(agentId, 'And can I get a refund?', reply.conversation_id);
  t.is(second.conversation_id, reply.conversation_id);
  t.is(second.action, 'issue_refund');
  t.not(second.id, reply.id);

  const other = await send(agentId, 'Hello, a new topic');
  t.not(other.conversation_id, reply.conversation_id);

  const unknown = assertError(
    t,
    await call('POST', `/v1/agents/${agentId}/messages`, {
      content: 'Hi',
      conversation_id: 'conv_doesnotexist0000',
    }),
    404,
    'not_found',
  );
  t.is(unknown.param, 'conversation_id');
  // A conversation of another agent is unknown here too.
  const stranger = await agent({ name: 'Stranger' });
  assertError(
    t,
    await call('POST', `/v1/agents/${stranger}/messages`, {
      content: 'Hi',
      conversation_id: reply.conversation_id,
    }),
    404,
    'not_found',
  );

  const view = (await call('GET', `/v1/agents/${agentId}`)).body.data;
  t.is(view.stats.total_interactions, 3);
  t.regex(view.last_active_at ?? '', ISO);
});

test('message validation: missing content, unknown agent, agent not active', async (t) => {
  const agentId = await agent();
  const missing = assertError(
    t,
    await call('POST', `/v1/agents/${agentId}/messages`, {}),
    400,
    'missing_required_field',
  );
  t.deepEqual(missing.required_fields, ['content']);
  assertError(
    t,
    await call('POST', `/v1/agents/${agentId}/messages`, { content: 42 }),
    400,
    'invalid_parameter',
  );
  assertError(
    t,
    await call('POST', '/v1/agents/agt_doesnotexist000000/messages', { content: 'Hi' }),
    404,
    'agent_not_found',
  );
  assertError(
    t,
    await call('GET', '/v1/agents/agt_doesnotexist000000/messages'),
    404,
    'agent_not_found',
  );
  await call('PATCH', `/v1/agents/${agentId}`, { status: 'archived' });
  const archived = assertError(
    t,
    await call('POST', `/v1/agents/${agentId}/messages`, { content: 'Hi' }),
    409,
    'agent_not_active',
  );
  t.like(archived, { agent_status: 'archived', agent_id: agentId });
});

test('GET messages lists the history newest first, by conversation, paginated', async (t) => {
  const agentId = await agent();
  // 1 ms apart on the daemon clock, so that "newest first" never rests on a tie.
  const a1 = await send(agentId, 'Where is my order 1?');
  await advance(1);
  const a2 = await send(agentId, 'I need a refund too', a1.conversation_id);
  await advance(1);
  const b1 = await send(agentId, 'Different question about billing');

  const all = await call('GET', `/v1/agents/${agentId}/messages`);
  t.is(all.status, 200, all.text);
  const history = all.body.data as Message[];
  t.is(all.body.total_count, 6);
  t.false(all.body.has_more);
  t.deepEqual(
    history.map((m) => [m.role, m.conversation_id]),
    [
      ['agent', b1.conversation_id],
      ['user', b1.conversation_id],
      ['agent', a1.conversation_id],
      ['user', a1.conversation_id],
      ['agent', a1.conversation_id],
      ['user', a1.conversation_id],
    ],
  );
  t.deepEqual(
    history.filter((m) => m.role === 'user').map((m) => m.content),
    ['Different question about billing', 'I need a refund too', 'Where is my order 1?'],
  );
  t.deepEqual(
    history.filter((m) => m.role === 'agent').map((m) => m.id),
    [b1.id, a2.id, a1.id],
  );
  for (const m of history) {
    t.regex(m.id, /^msg_/);
    t.is(m.agent_id, agentId);
    t.regex(m.created_at, ISO);
  }
  const user = history.find((m) => m.role === 'user')!;
  t.is(user.action, null);

  const conversation = await call(
    'GET',
    `/v1/agents/${agentId}/messages?conversation_id=${a1.conversation_id}`,
  );
  t.is(conversation.body.total_count, 4);
  t.true(
    (conversation.body.data as Message[]).every((m) => m.conversation_id === a1.conversation_id),
  );
  const none = await call('GET', `/v1/agents/${agentId}/messages?conversation_id=conv_nothing`);
  t.is(none.status, 200);
  t.deepEqual(none.body.data, []);

  const page1 = await call('GET', `/v1/agents/${agentId}/messages?limit=4`);
  t.is(page1.body.data.length, 4);
  t.true(page1.body.has_more);
  t.is(page1.body.meta.next_cursor, page1.body.data[3].id);
  const page2 = await call(
    'GET',
    `/v1/agents/${agentId}/messages?limit=4&starting_after=${page1.body.meta.next_cursor}`,
  );
  t.deepEqual(
    page2.body.data.map((m: Message) => m.id),
    history.slice(4).map((m) => m.id),
  );
  t.false(page2.body.has_more);
  const viaCursor = await call(
    'GET',
    `/v1/agents/${agentId}/messages?limit=4&cursor=${page1.body.meta.next_cursor}`,
  );
  t.deepEqual(viaCursor.body.data, page2.body.data);
});

// --- analytics -------------------------------------------------------------------------------

test('analytics figures match what happened: counts, success and escalation rates, actions, L2 approvals', async (t) => {
  const agentId = await agent({ guardrails: { require_approval_for: ['issue_refund'] } });
  // L3: two executed, one escalated for approval and approved.
  t.is((await execute(agentId, 'Where is my order 1?')).status, 200);
  t.is((await execute(agentId, 'Where is my order 2?')).status, 200);
  const refund = await execute(agentId, 'I want a refund');
  t.is(refund.status, 202);
  const approveRefund = await call(
    'POST',
    `/v1/agents/${agentId}/executions/${refund.body.data.execution_id}/approve`,
    { decision: 'approve' },
  );
  t.is(approveRefund.status, 200);
  // L2: two waiting; one approved, one rejected.
  await call('PATCH', `/v1/agents/${agentId}`, { autonomy_level: 'L2' });
  const decided: string[] = [];
  for (const decision of ['approve', 'reject']) {
    const waiting = await execute(agentId, 'Please cancel my order');
    t.is(waiting.status, 202);
    const answer = await call(
      'POST',
      `/v1/agents/${agentId}/executions/${waiting.body.data.execution_id}/approve`,
      { decision },
    );
    t.is(answer.status, 200, answer.text);
    decided.push(answer.body.data.status);
  }
  t.deepEqual(decided, ['completed', 'cancelled']);
  await send(agentId, 'Hello, what are your hours?');

  const answer = await analytics(agentId, '?period=1d');
  t.is(answer.status, 200, answer.text);
  t.is(answer.body.data.agent_id, agentId);
  t.is(answer.body.data.period, '1d');
  const metrics = answer.body.data.metrics;
  t.deepEqual(Object.keys(metrics).sort(), [
    'actions_by_type',
    'autonomy_performance',
    'avg_response_time_ms',
    'customer_satisfaction',
    'escalation_rate',
    'success_rate',
    'total_interactions',
  ]);
  // 5 executions + 1 message reply.
  t.is(metrics.total_interactions, 6);
  // 4 of the 5 finished executions completed; 1 was rejected.
  t.is(metrics.success_rate, 0.8);
  // 3 of the 5 executions had to ask a human.
  t.is(metrics.escalation_rate, 0.6);
  t.deepEqual(metrics.actions_by_type, {
    check_order_status: 2,
    issue_refund: 1,
    cancel_order: 2,
  });
  t.deepEqual(metrics.autonomy_performance, { l2_approval_rate: 0.5, l3_success_rate: 1 });
  t.true(typeof metrics.avg_response_time_ms === 'number' && metrics.avg_response_time_ms >= 0);
  t.true(
    metrics.customer_satisfaction === null ||
      (typeof metrics.customer_satisfaction === 'number' &&
        metrics.customer_satisfaction >= 1 &&
        metrics.customer_satisfaction <= 5),
  );

  // The agent's own stats agree.
  const stats = (await call('GET', `/v1/agents/${agentId}`)).body.data.stats;
  t.is(stats.total_interactions, 6);
  t.is(stats.success_rate, 0.8);

  // Default period is 7d.
  const byDefault = await analytics(agentId, '');
  t.is(byDefault.body.data.period, '7d');
  t.is(byDefault.body.data.metrics.total_interactions, 6);
});

test('analytics returns only the requested metrics; unknown metric or period: 400 invalid_parameter', async (t) => {
  const agentId = await agent();
  t.is((await execute(agentId, 'Where is my order?')).status, 200);
  const some = await analytics(agentId, '?period=30d&metrics=total_interactions,success_rate');
  t.is(some.status, 200, some.text);
  t.deepEqual(some.body.data, {
    agent_id: agentId,
    period: '30d',
    metrics: { total_interactions: 1, success_rate: 1 },
  });
  const one = await analytics(agentId, '?metrics=autonomy_performance');
  t.deepEqual(Object.keys(one.body.data.metrics), ['autonomy_performance']);
  t.deepEqual(one.body.data.metrics.autonomy_performance, {
    l2_approval_rate: 0,
    l3_success_rate: 1,
  });
  for (const period of ['1d', '7d', '30d', '90d']) {
    t.is((await analytics(agentId, `?period=${period}`)).body.data.period, period);
  }

  const badMetric = assertError(
    t,
    await analytics(agentId, '?metrics=total_interactions,happiness'),
    400,
    'invalid_parameter',
  );
  t.is(badMetric.param, 'metrics');
  const badPeriod = assertError(
    t,
    await analytics(agentId, '?period=2d'),
    400,
    'invalid_parameter',
  );
  t.is(badPeriod.param, 'period');
  assertError(t, await analytics(agentId, '?window=1d'), 400, 'invalid_parameter');
  assertError(t, await analytics('agt_doesnotexist000000', ''), 404, 'agent_not_found');

  // A new agent has zeroes, not nulls or errors.
  const fresh = await agent({ name: 'Fresh' }, false);
  const zero = await analytics(
    fresh,
    '?metrics=total_interactions,success_rate,escalation_rate,actions_by_type',
  );
  t.deepEqual(zero.body.data.metrics, {
    total_interactions: 0,
    success_rate: 0,
    escalation_rate: 0,
    actions_by_type: {},
  });
});
