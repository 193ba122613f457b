// Patterns users write cannot stall the daemon (issue 20, item 1), for the places beside sandbox
// stubs (user-patterns.test.ts): event type patterns and knowledge retrieval. Each gets a
// catastrophic pattern (a wildcard-heavy glob, search syntax) or a long input, and /healthz must
// answer meanwhile (the figures are printed): a bound that tells "serving" from "wedged". Serial:
// each test's probes measure the daemon under that test's load only.
import test, { type ExecutionContext } from 'ava';
import { assertError, trpc, type Answer } from '../helpers/api.js';
import { createAgent } from '../helpers/agents.js';
import { startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { HANG_TIMEOUT_MS } from '../helpers/waiting.js';

let d: TestDaemon;
let auth: { key: string; tenant: string };

test.serial.before(async () => {
  d = await startDaemon();
  const operator = await d.operator();
  auth = { key: operator.key, tenant: operator.workspaceId };
});

// A wedged daemon answers nothing, not even `svc daemon stop`: it is killed instead.
test.after.always(async () => {
  if (!d) return;
  if (await answersHealth(10_000)) await d.stop();
  else process.kill(d.pid, 'SIGKILL');
});

const call = (method: string, path: string, body?: unknown): Promise<Answer> =>
  d.callJson(method, path, body, auth);

async function answersHealth(timeoutMs: number): Promise<boolean> {
  try {
    const answer = await fetch(`${d.url}/healthz`, { signal: AbortSignal.timeout(timeoutMs) });
    return answer.ok;
  } catch {
    return false;
  }
}

/**
 * Asks /healthz `times` times in a row; each must answer 200 within PROBE_BOUND_MS. What these
 * tests guard against is exponential (a backtracking regex over 45 wildcards or 100,000
 * characters of search syntax runs for hours), so the bound is the hang guard, which no load
 * reaches (1 s was: a probe took 142 ms in a CI-like run, more at load ~20); each figure is
 * printed.
 */
const PROBE_BOUND_MS = HANG_TIMEOUT_MS / 2;
async function assertServing(t: ExecutionContext, times = 5): Promise<void> {
  const took: string[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    let status = 0;
    try {
      const answer = await fetch(`${d.url}/healthz`, {
        signal: AbortSignal.timeout(PROBE_BOUND_MS),
      });
      status = answer.status;
      await answer.arrayBuffer();
    } catch {
      status = -1;
    }
    const elapsed = performance.now() - started;
    took.push(elapsed.toFixed(0));
    t.is(status, 200, `healthz probe ${i} got no answer (the daemon is wedged)`);
    t.true(elapsed < PROBE_BOUND_MS, `healthz probe ${i} took ${elapsed.toFixed(0)} ms`);
    if (status !== 200) break;
  }
  t.log(`/healthz probes: ${took.join(', ')} ms`);
}

// Event type patterns (GET /v1/events?type=, workflow event triggers, `svc listen --events`)
// are an exact type or a prefix ending in *, compared as strings; webhooks take exact types.
// A wildcard-heavy glob, which a glob-to-regex translation would make catastrophic, is
// refused, and the daemon keeps serving.
const GLOB = 'a*'.repeat(45) + 'b';

test.serial(
  'event type globs are compared, never run as regexes: wildcard-heavy ones are refused, /healthz answers',
  async (t) => {
    const listed = await call('GET', `/v1/events?type=${encodeURIComponent(GLOB)}`);
    assertError(t, listed, 400, 'invalid_parameter', 'type');
    t.regex(listed.body.error.message, /\* may only end/);
    const prefix = await call('GET', '/v1/events?type=agent.*,workflow.execution.*');
    t.is(prefix.status, 200, prefix.text);

    const workflow = await call('POST', '/v1/workflows', {
      name: 'Globbed',
      trigger: { type: 'event', config: { event_types: [GLOB] } },
      steps: [{ id: 'pause', name: 'Pause', type: 'wait', config: { duration_seconds: 1 } }],
    });
    t.is(workflow.status, 400, workflow.text);
    t.regex(workflow.body.error.param, /^trigger\.config\.event_types/);

    const hook = await call('POST', '/v1/webhooks', {
      url: 'https://example.com/hook',
      events: [GLOB],
    });
    t.is(hook.status, 400, hook.text);
    t.is(hook.body.error.param, 'events.0');

    // A subscription answers over SSE: the refusal is its one error event.
    const live = await trpc(d, 'events.stream', { types: [GLOB] }, { method: 'GET' });
    t.regex(live.text, /"httpStatus":400/);
    t.regex(live.text, /\* may only end/);
    await assertServing(t);
  },
);

test.serial(
  'knowledge retrieval with a 100,000-character input of search syntax: /healthz answers, the execution completes',
  async (t) => {
    const agentId = await createAgent(call, { name: 'Reader' });
    const form = new FormData();
    form.append('type', 'faq');
    const text = 'Refunds are issued within five business days of the return arriving.\n'.repeat(
      200,
    );
    form.append('file', new Blob([text]), 'refunds.txt');
    const uploaded = await d.request(`/v1/agents/${agentId}/knowledge`, {
      method: 'POST',
      ...auth,
      body: form,
    });
    t.is(uploaded.status, 201, uploaded.text);
    const input = ('"refund* OR NEAR(a* b*) aaa* ' + 'a'.repeat(40) + ' ')
      .repeat(1_400)
      .slice(0, 100_000);
    const answer = call('POST', `/v1/agents/${agentId}/execute`, {
      input,
      wait_for_completion: true,
    });
    await assertServing(t);
    t.is((await answer).status, 200, (await answer).text);
  },
);
