// A user pattern's cost is bounded before it runs: each atom weighs its measured worst case per
// input character, a repetition {n,m} multiplies what it repeats, RE2-only syntax is read as RE2
// reads it; a pattern over the bound is refused, a /regex/ sees the first 4,096 characters of an
// input, and stored patterns over the bound (or past an agent's or a workspace's budget) never
// match rather than stall or fail a start.
import test from 'ava';
import { ApiError } from '../../daemon/domain/errors.js';
import {
  compileStubMatch,
  MAX_PATTERN_COST,
  PATTERN_INPUT_CHARS,
} from '../../daemon/domain/user-pattern.js';
import { FaultRepository, type FaultRow } from '../../daemon/faults/fault.repository.js';
import { FaultService } from '../../daemon/faults/fault.service.js';
import type { Alarms } from '../../daemon/time/alarms.js';
import { StubRepository } from '../../daemon/agents/stub.repository.js';
import { servicesFor } from '../helpers/services.js';

const cost = (pattern: string) => compileStubMatch(pattern).cost;

test('a pattern costs 1 a character, 12 a class, 36 a Unicode class, times each repetition', (t) => {
  const cases: [string, number][] = [
    ['refund', 0], // a substring is not a pattern
    ['/refund/i', 6],
    ['/(a+)+$/', 5], // a, +, the group, +, $
    ['/order #\\d{5}/', 7 + 5 * 12],
    ['/\\d{4}-\\d{2}-\\d{2}/', 8 * 12 + 2],
    ['/.{0,30}refund/s', 30 * 12 + 6],
    ['/(?:ab{10}){10}/', (1 + 10 + 1) * 10],
    ['/x{2,}/', 3], // two copies and a loop
    ['/\\p{L}{5}/u', 5 * 36],
    ['/\\P{Greek}/', 36],
    ['/[é]/', 36], // a bracket class with a non-ASCII character
    ['/[^a-z\\d]/', 12],
    ['/[[:alpha:]]+/', 13],
    ['/é/', 12], // a non-ASCII character is a class of its bytes
    ['/\\u00e9/', 12],
    ['/\\x41/', 1],
    ['/(?<year>\\d{4})/', 49], // the name is not text to match
    ['/(?i)ab/', 3],
    ['/\\Qa{1000}\\E/', 7], // RE2 quotes: literal text, not a repetition
    ['/a{,5}/', 5], // not a repetition in RE2: literal text
  ];
  for (const [pattern, expected] of cases) t.is(cost(pattern), expected, pattern);
});

test('a pattern over the bound is refused when it is added, naming the bound', (t) => {
  const issue = '/[\\s\\S]{1000}[\\s\\S]{1000}[\\s\\S]{1000}c/';
  const error = t.throws(() => compileStubMatch(issue, 'match'), { instanceOf: ApiError });
  t.is(error.code, 'invalid_parameter');
  t.is(error.param, 'match');
  t.regex(
    error.message,
    new RegExp(`costs 36001 to match and a pattern may cost at most ${MAX_PATTERN_COST}`),
  );
  t.is(cost('/[\\s\\S]{33}/'), 396, 'just under the bound is accepted');
  t.throws(() => compileStubMatch('/[\\s\\S]{34}/'), { message: /costs 408/ });
  // Nested repetitions multiply: RE2 accepts (x{30}){30}, which unrolls to 900 copies.
  t.throws(() => compileStubMatch('/(?:a{30}){30}/'), { message: /costs 930/ });
});

test(`a /regex/ sees the first ${PATTERN_INPUT_CHARS} characters of an input; a substring all of it`, (t) => {
  const before = 'x'.repeat(PATTERN_INPUT_CHARS - 6) + 'needle' + 'x'.repeat(100_000);
  const after = 'x'.repeat(PATTERN_INPUT_CHARS) + 'needle';
  t.true(compileStubMatch('/needle/')(before));
  t.false(compileStubMatch('/needle/')(after));
  t.true(compileStubMatch('NEEDLE')(after));
  t.false(compileStubMatch('haystack')(after));
});

test("an agent's stored stubs past the bound never match; the ones within it still do", (t) => {
  const svc = servicesFor(t);
  const workspace = svc.workspaces.get(svc.workspaces.defaultWorkspaceId)!;
  const agent = svc.agents.create(workspace, {
    name: 'Stubbed',
    ontology: 'retail-v1',
    type: 'customer-service',
    autonomy_level: 'L3',
  });
  // Stored before the bound (written straight to the store, as an older daemon did).
  const repo = new StubRepository(svc.db);
  const stored = (id: string, match: string, at: number) =>
    repo.insert({
      id,
      agent_id: agent.id,
      match,
      result: JSON.stringify({ action: 'respond', output: id, confidence: 1 }),
      fail_code: null,
      delay_ms: null,
      created_at: at,
    });
  stored('stub_over', '/[\\s\\S]{1000}c/', 1); // over the bound alone
  stored('stub_first', '/a[^b]{32}c/i', 2); // 386: within the agent's budget
  stored('stub_past', '/zz\\d{2}/', 3); // 26: past the budget once the first is counted
  stored('stub_text', 'plain', 4);
  const c = 'a' + 'x'.repeat(32) + 'c';
  t.is(svc.stubs.match(agent.id, `${c}`)?.id, 'stub_first');
  t.is(svc.stubs.match(agent.id, 'zz12'), undefined);
  t.is(svc.stubs.match(agent.id, 'plain text')?.id, 'stub_text');
  // Adding is refused while they cost that much together, and allowed once they are cleared.
  const refused = t.throws(() => svc.stubs.add(agent.id, { match: '/q\\d{2}/', result: {} }), {
    instanceOf: ApiError,
  });
  t.is(refused.code, 'conflict');
  t.regex(refused.message, /would cost 411 together/);
  svc.stubs.clear(agent.id);
  t.is(
    svc.stubs.add(agent.id, { match: '/zz\\d{2}/', result: { output: 'z' } }).match,
    '/zz\\d{2}/',
  );
  t.is(svc.stubs.match(agent.id, 'zz12')?.match, '/zz\\d{2}/');
});

test("a workspace's stored fault rules past the bound never match, and the daemon still starts", (t) => {
  const svc = servicesFor(t);
  const workspaceId = svc.workspaces.defaultWorkspaceId;
  const repo = new FaultRepository(svc.db);
  const row = (id: string, match: string, at: number): FaultRow => ({
    id,
    workspace_id: workspaceId,
    webhook_id: null,
    url_prefix: 'http://127.0.0.1:4000/',
    workflow_id: null,
    step_id: null,
    agent_id: null,
    attempts_from: null,
    attempts_to: null,
    rate: null,
    seed: null,
    times: null,
    match,
    status: 503,
    timeout: 0,
    latency_ms: null,
    reset: 0,
    fail_code: null,
    seen: 0,
    hits: 0,
    created_at: at,
  });
  repo.insert(row('flt_over', '/[\\s\\S]{1000}c/', 1));
  repo.insert(row('flt_first', '/a[^b]{32}c/i', 2));
  repo.insert(row('flt_past', '/order\\.\\d{2}/', 3));
  repo.insert(row('flt_text', 'order.created', 4));
  // What the daemon does at start: load every stored rule.
  const faults = new FaultService({
    repo,
    clock: svc.clock,
    alarms: {} as Alarms,
    existing: { webhook: () => undefined, workflowStep: () => undefined, agent: () => undefined },
    sandbox: true,
    log: { info: () => undefined },
  });
  const call = (text: string) =>
    faults.decide({
      point: 'http',
      workspaceId,
      url: 'http://127.0.0.1:4000/hooks',
      attempt: 1,
      matchText: () => text,
    })?.id;
  t.is(call('a' + 'x'.repeat(32) + 'c'), 'flt_first');
  t.is(call('order.12'), undefined);
  t.is(call('order.created'), 'flt_text');
  const refused = t.throws(
    () => faults.add(workspaceId, { url_prefix: 'http://x/', status: 503, match: '/q\\d{2}/' }),
    { instanceOf: ApiError },
  );
  t.is(refused.code, 'conflict');
  t.regex(refused.message, /would cost 411 together and may cost at most 400/);
});
