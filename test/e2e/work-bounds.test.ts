// Every input a user controls that drives work has a limit, answered with a clear 4xx
// (issue 20, item 3; the full list is in the README's Security section). This file checks
// these limits: expressions (length, bracket depth, what interpolation may expand to),
// a parallel step's width and repeated branches, event type patterns per trigger, stubs per
// agent and live streams on the control channel. Others have their own tests (input-bounds,
// knowledge-bounds, malformed-input, workflows-api, user-patterns, never-wedged).
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { trpc } from '../helpers/api.js';
import { sharedDaemon } from '../helpers/setup.js';
import { activeAgent, apiFor, type Api } from '../helpers/workflows.js';

const d = sharedDaemon(test);
let api: Api;
let agentId: string;

test.before(async () => {
  const { workspaceId } = await d.operator();
  api = await apiFor(d, workspaceId);
  agentId = (await activeAgent(api)).id;
});

function conditionWorkflow(condition: string) {
  return {
    name: 'Bounded condition',
    steps: [
      {
        id: 'check',
        name: 'Check',
        type: 'condition',
        config: { condition, if_true: 'done' },
      },
      { id: 'done', name: 'Done', type: 'wait', config: { duration_seconds: 0 } },
    ],
  };
}

test('an expression over 2,000 characters or nested over 32 brackets: 400 invalid_step_config naming the field', async (t) => {
  const long = await api(
    'POST',
    '/workflows',
    conditionWorkflow('a == ' + '1 + '.repeat(600) + '1'),
  );
  t.is(long.status, 400, JSON.stringify(long.body));
  t.is(long.body.error.code, 'invalid_step_config');
  t.is(long.body.error.param, 'steps[0].config.condition');
  t.regex(long.body.error.message, /at most 2000 are allowed/);

  const deep = await api(
    'POST',
    '/workflows',
    conditionWorkflow('('.repeat(33) + '1' + ')'.repeat(33)),
  );
  t.is(deep.status, 400, JSON.stringify(deep.body));
  t.regex(deep.body.error.message, /nest more than 32 levels/);
  // Brackets inside quotes are text.
  const quoted = await api('POST', '/workflows', conditionWorkflow(`'${'('.repeat(40)}' == 'x'`));
  t.is(quoted.status, 201, JSON.stringify(quoted.body));

  const interpolated = await api('POST', '/workflows', {
    name: 'Deep template',
    steps: [
      {
        id: 'ask',
        name: 'Ask',
        type: 'agent_action',
        agent_id: agentId,
        config: { action: 'x', input: `{{ ${'['.repeat(40)}1${']'.repeat(40)} }}` },
      },
    ],
  });
  t.is(interpolated.status, 400, JSON.stringify(interpolated.body));
  t.is(interpolated.body.error.param, 'steps[0].config.input');
});

test('interpolation that expands past 1,000,000 characters fails the step (step_failed, invalid_expression)', async (t) => {
  const workflowId = (
    await api('POST', '/workflows', {
      name: 'Amplifier',
      status: 'active',
      steps: [
        {
          id: 'ask',
          name: 'Ask',
          type: 'agent_action',
          agent_id: agentId,
          config: {
            action: 'answer',
            input_mapping: Object.fromEntries(
              Array.from({ length: 20 }, (_, i) => [`copy${i}`, 'x {{trigger.payload.text}}']),
            ),
          },
        },
      ],
    })
  ).body.data.id as string;
  const run = await api('POST', `/workflows/${workflowId}/execute`, {
    input: { text: 'a'.repeat(60_000) },
    wait_for_completion: true,
  });
  // A run waited on that fails answers the spec's step_failed, with the step's own error.
  t.is(run.status, 500, JSON.stringify(run.body).slice(0, 500));
  t.is(run.body.error.code, 'step_failed');
  t.is(run.body.error.underlying_error.code, 'invalid_expression');
  t.regex(run.body.error.underlying_error.message, /expands to more than 1,000,000 characters/);
  // Under the budget the same workflow runs.
  const small = await api('POST', `/workflows/${workflowId}/execute`, {
    input: { text: 'a'.repeat(1_000) },
    wait_for_completion: true,
  });
  t.is(small.body.data.status, 'completed', JSON.stringify(small.body).slice(0, 500));
});

test('a parallel step takes at most 50 branches, each once', async (t) => {
  const branches = Array.from({ length: 51 }, (_, i) => ({
    id: `b${i}`,
    name: `B${i}`,
    type: 'wait',
    config: { duration_seconds: 0 },
  }));
  const fan = (ids: string[]) => ({
    name: 'Fan out',
    steps: [{ id: 'fan', name: 'Fan', type: 'parallel', config: { steps: ids } }, ...branches],
  });
  const wide = await api('POST', '/workflows', fan(branches.map((b) => b.id)));
  t.is(wide.status, 400, JSON.stringify(wide.body));
  t.is(wide.body.error.code, 'invalid_step_config');
  t.is(wide.body.error.param, 'steps[0].config.steps');
  t.regex(wide.body.error.message, /at most 50/);
  const repeated = await api('POST', '/workflows', fan(['b0', 'b1', 'b0']));
  t.is(repeated.status, 400, JSON.stringify(repeated.body));
  t.is(repeated.body.error.param, 'steps[0].config.steps[2]');
  const fine = await api('POST', '/workflows', fan(branches.slice(0, 50).map((b) => b.id)));
  t.is(fine.status, 201, JSON.stringify(fine.body));
});

test('an event trigger takes at most 50 patterns of at most 100 characters', async (t) => {
  const trigger = (event_types: string[]) =>
    api('POST', '/workflows', {
      name: 'Listener',
      trigger: { type: 'event', config: { event_types } },
      steps: [{ id: 'w', name: 'W', type: 'wait', config: { duration_seconds: 0 } }],
    });
  const many = await trigger(Array.from({ length: 51 }, () => 'agent.created'));
  t.is(many.status, 400, JSON.stringify(many.body));
  t.is(many.body.error.param, 'trigger.config.event_types');
  const long = await trigger(['agent.' + 'x'.repeat(100)]);
  t.is(long.status, 400, JSON.stringify(long.body));
  t.is(long.body.error.param, 'trigger.config.event_types.0');
});

test.serial('an agent has at most 100 stubs: the 101st is 409 conflict', async (t) => {
  const agent = (await activeAgent(api, { name: 'Stubbed' })).id;
  for (let i = 0; i < 100; i++) {
    const added = await trpc(d, 'agents.stubs.add', {
      agent_id: agent,
      match: `m${i}`,
      delay_ms: 1,
    });
    if (added.status !== 200) t.fail(`stub ${i}: ${added.text}`);
  }
  const over = await trpc(d, 'agents.stubs.add', {
    agent_id: agent,
    match: 'one more',
    delay_ms: 1,
  });
  t.is(over.status, 409, over.text);
  t.is(over.error?.data?.svc_code, 'conflict');
  t.regex(over.error?.message ?? '', /svc agents stub clear/);
});

test.serial(
  'at most 32 live streams at once on the control channel: the 33rd is refused with 429',
  async (t) => {
    const controllers: AbortController[] = [];
    t.teardown(() => controllers.forEach((controller) => controller.abort()));
    const token = readFileSync(join(d.dataDir, 'control-token'), 'utf8').trim();
    /** Opens an event stream; answers what it sent until `until` matched (or `waitMs` passed). */
    const open = async (until: RegExp, waitMs = 5_000) => {
      const controller = new AbortController();
      controllers.push(controller);
      const response = await fetch(
        `${d.url}/trpc/events.stream?input=${encodeURIComponent('{}')}`,
        {
          headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
          signal: controller.signal,
        },
      );
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      const deadline = Date.now() + waitMs;
      while (!until.test(text) && Date.now() < deadline) {
        const next = await Promise.race([
          reader.read(),
          new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), waitMs)),
        ]);
        if (!next || next.done) break;
        text += decoder.decode(next.value);
      }
      return { text, close: () => controller.abort() };
    };
    const streams = [];
    for (let i = 0; i < 32; i++) streams.push(await open(/event: connected/));
    const refused = await open(/serialized-error[\s\S]*\n\n/);
    t.regex(refused.text, /"httpStatus":429/);
    t.regex(refused.text, /32 live streams are open/);
    // Closing one makes room for another (the daemon sees the close a moment later).
    streams[0]!.close();
    const deadline = Date.now() + 5_000;
    // A refusal follows "connected" at once: a stream silent for 500 ms after it runs.
    const refusal = /serialized-error[\s\S]*\n\n/;
    let again = await open(refusal, 500);
    while (again.text.includes('serialized-error') && Date.now() < deadline) {
      again.close();
      again = await open(refusal, 500);
    }
    t.regex(again.text, /event: connected/);
    t.notRegex(again.text, /serialized-error/);
  },
);
