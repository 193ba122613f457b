import test from 'ava';
import { ApiError } from '../../daemon/domain/errors.js';
import type { AgentRow } from '../../daemon/agents/agent.repository.js';
import { answerOf, finish, judge, newExecutionRow } from '../../daemon/agents/execution-outcome.js';

const guardrails = {
  require_approval_for: ['refund'],
  blocked_actions: ['delete_account'],
  rate_limits: { actions_per_hour: null },
};
const agent = (autonomy_level: AgentRow['autonomy_level']) =>
  ({ id: 'agt_1', autonomy_level }) as AgentRow;
const thought = (action: string) => ({ action, output: 'done', confidence: 0.9 });
const row = () =>
  newExecutionRow(agent('L3'), 'ws_1', { input: 'hello', context: { a: 1 } }, 1_000);

test('judge: L1 only suggests, L2 always waits, L3 waits for the actions that need approval', (t) => {
  t.deepEqual(judge(agent('L1'), guardrails, thought('reply')), {
    type: 'completed',
    result: { action: 'reply', output: 'Suggestion (not executed): done', confidence: 0.9 },
  });
  t.is(judge(agent('L2'), guardrails, thought('reply')).type, 'awaiting_approval');
  t.is(judge(agent('L3'), guardrails, thought('reply')).type, 'completed');
  t.is(judge(agent('L3'), guardrails, thought('refund')).type, 'awaiting_approval');
});

test('judge: a blocked action and a thought that failed are failures with their code', (t) => {
  const blocked = judge(agent('L4'), guardrails, thought('delete_account'));
  t.like(blocked, { type: 'failed', code: 'guardrail_violation' });
  const error = new ApiError('external_api_error', 'The model did not answer.');
  t.deepEqual(judge(agent('L3'), guardrails, { error, injectedFault: 'flt_1' }), {
    type: 'failed',
    result: null,
    code: 'external_api_error',
    message: 'The model did not answer.',
    injectedFault: 'flt_1',
  });
});

test('finish: a waiting execution has no completed_at; a failed one keeps its code and fault', (t) => {
  const waiting = finish(row(), { type: 'awaiting_approval', result: thought('refund') }, 5, 2_000);
  t.like(waiting, { status: 'awaiting_approval', needed_approval: 1, completed_at: null });
  const failed = finish(
    row(),
    {
      type: 'failed',
      result: null,
      code: 'execution_timeout',
      message: 'late',
      injectedFault: 'flt_2',
    },
    30,
    3_000,
  );
  t.like(failed, {
    status: 'failed',
    action: null,
    error_code: 'execution_timeout',
    execution_time_ms: 30,
    completed_at: 3_000,
    injected_fault: 'flt_2',
  });
});

test('answerOf: 200 completed, 202 waiting, a failed execution thrown with its ids', (t) => {
  const done = finish(row(), { type: 'completed', result: thought('reply') }, 1, 2_000);
  t.is(answerOf(agent('L3'), done).status, 200);
  const waiting = finish(row(), { type: 'awaiting_approval', result: thought('refund') }, 1, 2_000);
  t.is(answerOf(agent('L3'), waiting).status, 202);
  const failed = finish(
    row(),
    { type: 'failed', result: null, code: 'guardrail_violation', message: 'blocked' },
    1,
    2_000,
  );
  const error = t.throws(() => answerOf(agent('L3'), failed), { instanceOf: ApiError });
  t.is(error?.code, 'guardrail_violation');
  t.like(error?.extras, { execution_id: failed.id, agent_id: 'agt_1' });
});
