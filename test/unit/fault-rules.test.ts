// Fault rules decide on calls as pure functions: where a rule points, which attempts it takes,
// its seeded share (same sequence of calls, same outcomes), its --times and its --match.
import test from 'ava';
import { compileStubMatch } from '../../daemon/domain/user-pattern.js';
import type { FaultRow } from '../../daemon/faults/fault.repository.js';
import {
  coversAttempt,
  decide,
  pointOf,
  seededDraw,
  targets,
  type FaultCall,
} from '../../daemon/faults/fault-rules.js';

function rule(fields: Partial<FaultRow> = {}): FaultRow {
  return {
    id: 'flt_1',
    workspace_id: 'ws_1',
    webhook_id: null,
    url_prefix: null,
    workflow_id: null,
    step_id: null,
    agent_id: null,
    attempts_from: null,
    attempts_to: null,
    rate: null,
    seed: null,
    times: null,
    match: null,
    status: 503,
    timeout: 0,
    latency_ms: null,
    reset: 0,
    fail_code: null,
    seen: 0,
    hits: 0,
    created_at: 0,
    ...fields,
  };
}

const delivery = (fields: Partial<FaultCall> = {}): FaultCall => ({
  point: 'http',
  workspaceId: 'ws_1',
  url: 'http://127.0.0.1:4000/hooks',
  webhookId: 'hook_1',
  attempt: 1,
  matchText: () => 'order.created',
  ...fields,
});

/** Applies decisions in order, as the service does, and answers which calls were hit. */
function run(row: FaultRow, calls: FaultCall[]): boolean[] {
  const matches = row.match === null ? undefined : compileStubMatch(row.match);
  return calls.map((call) => {
    if (!targets(row, call)) return false;
    const decision = decide(row, call, matches);
    if (!decision) return false;
    row.seen = decision.seen;
    row.hits = decision.hits;
    return decision.hit;
  });
}

test('where: a rule targets its webhook, its URL prefix, its step or its agent only', (t) => {
  t.true(targets(rule({ webhook_id: 'hook_1' }), delivery()));
  t.false(targets(rule({ webhook_id: 'hook_2' }), delivery()));
  t.false(targets(rule({ webhook_id: 'hook_1' }), delivery({ workspaceId: 'ws_2' })));
  t.true(targets(rule({ url_prefix: 'http://127.0.0.1:4000/' }), delivery()));
  t.false(targets(rule({ url_prefix: 'http://127.0.0.1:5000/' }), delivery()));
  const step = rule({ workflow_id: 'wfl_1', step_id: 'charge' });
  t.true(targets(step, delivery({ webhookId: undefined, workflowId: 'wfl_1', stepId: 'charge' })));
  t.false(targets(step, delivery({ webhookId: undefined, workflowId: 'wfl_1', stepId: 'other' })));
  const failing = rule({ workflow_id: 'wfl_1', step_id: 'charge', status: null, fail_code: 'x' });
  t.is(pointOf(failing), 'step');
  t.false(targets(failing, delivery({ workflowId: 'wfl_1', stepId: 'charge' })), 'http point');
  t.true(
    targets(failing, { ...delivery({ workflowId: 'wfl_1', stepId: 'charge' }), point: 'step' }),
  );
  const agent = rule({ agent_id: 'agt_1', status: null, fail_code: 'external_api_error' });
  t.is(pointOf(agent), 'agent');
  t.true(
    targets(agent, { point: 'agent', workspaceId: 'ws_1', agentId: 'agt_1', matchText: () => '' }),
  );
});

test('when: --attempts 1-2 hits the first two attempts of each call, not the third', (t) => {
  const row = rule({ webhook_id: 'hook_1', attempts_from: 1, attempts_to: 2 });
  t.deepEqual(
    run(
      row,
      [1, 2, 3, 1, 2, 3].map((attempt) => delivery({ attempt })),
    ),
    [true, true, false, true, true, false],
  );
  t.true(coversAttempt({ attempts_from: 2, attempts_to: 2 }, 2));
  t.false(coversAttempt({ attempts_from: 2, attempts_to: 2 }, 1));
  t.true(coversAttempt({ attempts_from: null, attempts_to: null }, 9));
});

test('when: --times retires the rule after that many hits', (t) => {
  const row = rule({ webhook_id: 'hook_1', times: 2 });
  t.deepEqual(
    run(
      row,
      [1, 1, 1].map((attempt) => delivery({ attempt })),
    ),
    [true, true, false],
  );
  t.is(row.hits, 2);
});

test('when: --match reads the event type (substring or /regex/)', (t) => {
  const row = rule({ webhook_id: 'hook_1', match: '/^order\\./' });
  t.deepEqual(
    run(row, [
      delivery(),
      delivery({ matchText: () => 'agent.created' }),
      delivery({ matchText: () => 'order.paid' }),
    ]),
    [true, false, true],
  );
});

test('seeding: draws are fixed by seed and rank, uniform enough, and differ by seed', (t) => {
  t.is(seededDraw(42, 1), seededDraw(42, 1));
  t.not(seededDraw(42, 1), seededDraw(43, 1));
  const draws = Array.from({ length: 10_000 }, (_, i) => seededDraw(7, i + 1));
  t.true(draws.every((x) => x >= 0 && x < 1));
  const share = draws.filter((x) => x < 0.3).length / draws.length;
  t.true(share > 0.27 && share < 0.33, String(share));
});

test('seeding: the same sequence of calls gives the same outcomes, run after run', (t) => {
  const calls = Array.from({ length: 50 }, (_, i) => delivery({ attempt: (i % 3) + 1 }));
  const first = run(rule({ url_prefix: 'http://127.0.0.1:4000/', rate: 0.3, seed: 42 }), calls);
  const second = run(rule({ url_prefix: 'http://127.0.0.1:4000/', rate: 0.3, seed: 42 }), calls);
  t.deepEqual(first, second);
  t.true(first.includes(true) && first.includes(false));
  const other = run(rule({ url_prefix: 'http://127.0.0.1:4000/', rate: 0.3, seed: 1 }), calls);
  t.notDeepEqual(first, other);
});

test('agents: --attempts counts the executions the rule has seen', (t) => {
  const row = rule({
    agent_id: 'agt_1',
    status: null,
    fail_code: 'external_api_error',
    attempts_from: 2,
    attempts_to: 3,
  });
  const call: FaultCall = {
    point: 'agent',
    workspaceId: 'ws_1',
    agentId: 'agt_1',
    matchText: () => 'hi',
  };
  t.deepEqual(run(row, [call, call, call, call]), [false, true, true, false]);
  t.is(row.seen, 4);
});
