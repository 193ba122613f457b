// User-supplied patterns cannot stall the daemon: a sandbox stub's /regex/ runs on RE2 (linear
// time), so a pattern with nested quantifiers against a long input leaves /healthz answering
// while executions match it; a pattern RE2 cannot run (backreference, lookaround) is refused
// when the stub is added, naming the field and the feature. RE2's time also grows with the
// pattern's compiled size: a pattern over the cost bound is refused (stubs and fault rules), and
// the costliest ones accepted, matched from an unauthenticated webhook with a 300,000-character
// text, leave /healthz answering. (Event type filters such as agent.* are prefixes compared with
// startsWith, and knowledge search quotes each term for FTS5: neither becomes a pattern.)
import test from 'ava';
import { performance } from 'node:perf_hooks';
import { apiCaller } from '../helpers/api.js';
import { createAgent } from '../helpers/agents.js';
import { startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { apiFor, createWorkflow, waitForExecution } from '../helpers/workflows.js';

let d: TestDaemon;
let call: ReturnType<typeof apiCaller>;
let ws: string;

test.before(async () => {
  d = await startDaemon();
  const { key, workspaceId } = await d.operator();
  ws = workspaceId;
  call = apiCaller(() => ({ daemon: d, key, tenant: workspaceId }));
});
test.after.always(() => d?.stop());

/** `svc agents stub add AGENT --match PATTERN` with a result; the CLI's exit code and JSON. */
async function addStub(agentId: string, pattern: string) {
  const added = await d.cli([
    'agents',
    'stub',
    'add',
    agentId,
    '--match',
    pattern,
    '--result',
    '{"output":"stubbed"}',
    '--json',
  ]);
  return { code: added.code, json: JSON.parse(added.stdout || 'null') };
}

/** `svc faults add --agent AGENT --match PATTERN --fail external_api_error`. */
async function addFault(agentId: string, pattern: string) {
  const added = await d.cli([
    'faults',
    'add',
    '--agent',
    agentId,
    '--match',
    pattern,
    '--fail',
    'external_api_error',
    '--workspace',
    ws,
    '--json',
  ]);
  return { code: added.code, json: JSON.parse(added.stdout || 'null') };
}

/** /healthz answer times (ms) while `work` runs. */
async function healthWhile(work: Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  let done = false;
  void work.finally(() => (done = true));
  while (!done) {
    const started = performance.now();
    const answer = await fetch(`${d.url}/healthz`);
    times.push(performance.now() - started);
    if (!answer.ok) throw new Error(`/healthz answered ${answer.status}`);
  }
  await work;
  return times;
}

test('a stub pattern with nested quantifiers against a 100,000-character input does not stall the daemon', async (t) => {
  const agentId = await createAgent(call);
  const result = { action: 'respond', output: 'matched', confidence: 1 };
  const stub = await d.cli([
    'agents',
    'stub',
    'add',
    agentId,
    '--match',
    '/(a+)+$/',
    '--result',
    JSON.stringify(result),
    '--json',
  ]);
  t.is(stub.code, 0, stub.stderr);

  // With a backtracking engine one of these took minutes, with every request of every
  // workspace waiting behind it.
  const catastrophic = 'a'.repeat(99_999) + '!';
  const executions = Promise.all(
    Array.from({ length: 8 }, () =>
      call('POST', `/v1/agents/${agentId}/execute`, {
        input: catastrophic,
        wait_for_completion: true,
      }),
    ),
  );
  const times = await healthWhile(executions);
  for (const answer of await executions) t.is(answer.status, 200, answer.text);
  // Not wedged: every probe is answered. (The old engine left /healthz without an answer for
  // minutes. The time a probe waits behind the executions' own work on a 100 KB input is a
  // figure for the bench, pattern-health, not for a test on a shared machine.)
  t.true(times.length > 0, 'probes were answered while matching');
  const worst = Math.max(...times);
  t.true(worst < 10_000, `/healthz worst ${worst.toFixed(1)} ms while matching`);

  // The pattern still means what it says: an input that ends in a's matches.
  const matched = await call('POST', `/v1/agents/${agentId}/execute`, {
    input: 'aaaa',
    wait_for_completion: true,
  });
  t.is(matched.status, 200, matched.text);
  t.is(matched.body.data.result.output, 'matched');
});

test('a stub pattern RE2 cannot run is refused at write time, naming the field and the feature', async (t) => {
  const agentId = await createAgent(call);
  const cases: [string, RegExp][] = [
    ['/(a)\\1/', /backreferences/],
    ['/(?=order)\\w+/', /lookahead/],
    ['/(?<!no )refund/i', /lookbehind/],
    ['/(unclosed/', /not a regular expression RE2 can run/],
  ];
  for (const [pattern, feature] of cases) {
    const added = await d.cli([
      'agents',
      'stub',
      'add',
      agentId,
      '--match',
      pattern,
      '--result',
      '{"output":"x"}',
      '--json',
    ]);
    t.is(added.code, 1, `${pattern}: ${added.stdout}`);
    const { error } = JSON.parse(added.stdout) as { error: { code: string; message: string } };
    t.is(error.code, 'invalid_parameter', pattern);
    t.regex(error.message, feature, pattern);
  }
  const listed = await d.cli(['agents', 'stub', 'list', agentId, '--json']);
  t.deepEqual(JSON.parse(listed.stdout).data, [], 'nothing was stored');
});

test('a pattern over the cost bound is refused for stubs and fault rules, naming the bound', async (t) => {
  const agentId = await createAgent(call);
  // The pattern: 42 characters, 13.75 s over 300,000 characters before the bound.
  const costly = '/[\\s\\S]{1000}[\\s\\S]{1000}[\\s\\S]{1000}c/';
  for (const added of [await addStub(agentId, costly), await addFault(agentId, costly)]) {
    t.is(added.code, 1, JSON.stringify(added.json));
    t.is(added.json.error.code, 'invalid_parameter');
    t.is(added.json.error.param, 'match');
    t.regex(added.json.error.message, /costs 36001 to match and a pattern may cost at most 400/);
  }
  // What one agent's stubs cost together is bounded too (each is matched against every input).
  t.is((await addStub(agentId, '/a[^b]{32}c/i')).code, 0);
  const over = await addStub(agentId, '/order #\\d{5}/');
  t.is(over.code, 1, JSON.stringify(over.json));
  t.is(over.json.error.code, 'conflict');
  t.regex(over.json.error.message, /would cost 453 together and .* at most 400/);
  t.is((await addStub(agentId, 'order #')).code, 0, 'a substring costs nothing');
  const listed = await d.cli(['agents', 'stub', 'list', agentId, '--json']);
  t.deepEqual(
    (JSON.parse(listed.stdout) as { data: { match: string }[] }).data.map((stub) => stub.match),
    ['/a[^b]{32}c/i', 'order #'],
  );
});

test('the costliest accepted patterns, matched from an unauthenticated webhook with a 300,000-character text, leave /healthz answering', async (t) => {
  const agentId = await createAgent(call);
  // Among the costliest a workspace may have (cost 386 of 400 each, one as a stub, one as a
  // fault rule on the same agent, so one execution runs both); neither matches the text, so
  // RE2 reads all it is shown.
  t.is((await addStub(agentId, '/a[^b]{32}c/i')).code, 0);
  t.is((await addFault(agentId, '/a\\S{32}c/')).code, 0);
  const workflowId = await createWorkflow(await apiFor(d, ws), {
    name: 'Texts',
    status: 'active',
    trigger: { type: 'webhook', config: { path: 'texts' } },
    steps: [
      {
        id: 'read',
        name: 'Read',
        type: 'agent_action',
        agent_id: agentId,
        config: { action: 'summarize', input: '{{trigger.payload.text}}' },
      },
    ],
  });
  // a's and 3-byte characters in a seeded irregular order: each a starts a new run of the
  // pattern, so RE2's automaton meets new states all along (its slowest case).
  let seed = 7;
  const text = Array.from({ length: 300_000 }, () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return (seed >>> 16) & 1 ? 'a' : '中'; // a high bit: the low ones of this generator cycle
  }).join('');

  const hook = fetch(`${d.url}/v1/hooks/${ws}/texts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });
  const times = await healthWhile(hook);
  const answer = await hook;
  t.is(answer.status, 202);
  const { data } = (await answer.json()) as { data: { execution_id: string } };
  const worst = Math.max(...times);
  t.log(`/healthz worst ${worst.toFixed(1)} ms over ${times.length} probes while matching`);
  // Before the bound: 13.75 s. The 100 ms target is measured by the bench (pattern-health).
  // The bound tells that defect from a loaded machine, where this probe took 905-1,550 ms
  // beside other work (the 900 KB body is parsed and stored meanwhile): 5 s, not 1 s.
  t.true(worst < 5000, `/healthz worst ${worst.toFixed(1)} ms while matching`);
  const run = await waitForExecution(
    await apiFor(d, ws),
    workflowId,
    data.execution_id,
    (execution) => execution.status !== 'running' && execution.status !== 'pending',
  );
  t.is(run.status, 'completed', JSON.stringify(run.error));
});
