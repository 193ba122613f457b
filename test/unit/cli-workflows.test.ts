// The CLI's workflow pieces that hold logic: reading workflow files (JSON/YAML), locating an API
// validation param in the file, reading --input, and the run view's plain (non-TTY) lines.
import test from 'ava';
import { locateParam, parseWorkflowText, readRunInput } from '../../cli/workflow-file.js';
import { RunView } from '../../cli/run-view.js';
import {
  failureLine,
  type Execution,
  type StepResult,
  type WorkflowStep,
} from '../../cli/workflow-views.js';
import { CliError } from '../../cli/errors.js';
import { execution as runExecution, stepResult } from '../helpers/run-views.js';

const yaml = `
name: Refunds
steps:
  - id: classify
    name: Classify
    type: agent_action
    agent_id: agt_1
    config: { action: classify, input_mapping: { text: "{{trigger.payload.text}}" } }
    next_step_id: check
  - id: check
    name: Check amount
    type: condition
    config:
      condition: trigger.payload.amount > 100
      if_true: notify
      if_false: notify
  - id: notify
    name: Notify
    type: webhook
    config: { url: "http://127.0.0.1:9/x", method: POST, body: { ok: true } }
`;

test('a YAML workflow file reads into the same object as its JSON form', async (t) => {
  const fromYaml = await parseWorkflowText(yaml, 'refunds.yaml');
  const fromJson = await parseWorkflowText(JSON.stringify(fromYaml), 'refunds.json');
  t.deepEqual(fromJson, fromYaml);
  t.is((fromYaml.steps as { id: string }[])[1]!.id, 'check');
  t.is(
    (fromYaml.steps as { config: { condition: string } }[])[1]!.config.condition,
    'trigger.payload.amount > 100',
  );
  // No extension: JSON first, then YAML.
  t.deepEqual(await parseWorkflowText(yaml, '-'), fromYaml);
});

test('a broken file is a usage error that says where', async (t) => {
  const badYaml = await t.throwsAsync(parseWorkflowText('name: [unclosed\nsteps: 1', 'w.yml'));
  t.true(badYaml instanceof CliError);
  t.is((badYaml as CliError).exitCode, 2);
  t.regex(badYaml!.message, /not valid YAML at line \d+/);
  const badJson = await t.throwsAsync(parseWorkflowText('{"name": ', 'w.json'));
  t.regex(badJson!.message, /not valid JSON/);
  const list = await t.throwsAsync(parseWorkflowText('- a\n- b\n', 'w.yaml'));
  t.regex(list!.message, /one object .* not a list/);
});

test('an API param is located by step id and field', async (t) => {
  const document = await parseWorkflowText(yaml, 'refunds.yaml');
  t.is(
    locateParam(document, 'steps[1].config.if_false'),
    'step "check" (steps[1]), field config.if_false',
  );
  t.is(locateParam(document, 'steps[2]'), 'step "notify" (steps[2])');
  t.is(locateParam(document, 'steps[9].type'), 'steps[9], field type');
  t.is(locateParam(document, 'settings.timeout_seconds'), undefined);
});

test('--input takes a JSON object or nothing', async (t) => {
  t.deepEqual(await readRunInput('{"a": 1}'), { a: 1 });
  t.deepEqual(await readRunInput(undefined), {});
  for (const bad of ['[1]', '3', 'nope']) {
    const error = await t.throwsAsync(readRunInput(bad));
    t.is((error as CliError).exitCode, 2, bad);
  }
  const missing = await t.throwsAsync(readRunInput('@/nonexistent/input.json'));
  t.regex(missing!.message, /cannot read the file/);
});

const steps: WorkflowStep[] = [
  { id: 'classify', name: 'Classify', type: 'agent_action' },
  { id: 'pause', name: 'Pause', type: 'wait' },
  { id: 'notify', name: 'Notify', type: 'webhook' },
];

const CREATED = '2030-01-01T00:00:00.000Z';
const execution = (partial: Partial<Execution>) =>
  runExecution(CREATED, { steps_total: 3, ...partial });
const step = (id: string, partial: Partial<StepResult>) => stepResult(steps, id, partial, CREATED);

test('without a terminal the run view prints one plain line per change, never twice', (t) => {
  let out = '';
  const view = new RunView({ write: (text: string) => (out += text) }, steps, {
    live: false,
    colour: false,
  });
  view.update(execution({ current_step: 'classify', step_results: [] }));
  view.update(execution({ current_step: 'classify', step_results: [] }));
  view.update(
    execution({
      current_step: 'pause',
      steps_completed: 1,
      step_results: [
        step('classify', { status: 'completed', duration_ms: 12, result: { action: 'x' } }),
        step('pause', { status: 'waiting' }),
      ],
    }),
  );
  view.update(
    execution({
      status: 'failed',
      current_step: 'notify',
      steps_completed: 2,
      step_results: [
        step('classify', { status: 'completed', duration_ms: 12 }),
        step('pause', { status: 'completed', duration_ms: 0 }),
        step('notify', {
          status: 'failed',
          duration_ms: 5,
          error: { code: 'external_api_error', message: 'HTTP 500' },
        }),
      ],
    }),
  );
  view.close();
  t.deepEqual(out.trim().split('\n'), [
    'run wex_1 of wfl_1 started',
    'step classify (agent_action) started',
    'step classify (agent_action) completed in 12ms',
    'step pause (wait) started',
    'step pause (wait) waiting',
    'step pause (wait) completed in 0ms',
    'step notify (webhook) started',
    'step notify (webhook) failed: external_api_error: HTTP 500',
    'run wex_1 failed',
  ]);
});

test('the failure line names the failed step and its error', (t) => {
  const failed = execution({
    status: 'failed',
    failed_step: 'notify',
    error: { code: 'step_failed', message: 'receiver answered 500' },
  });
  t.is(
    failureLine(failed, steps),
    'Run wex_1 failed at step notify (Notify): step_failed: receiver answered 500',
  );
  t.is(failureLine(execution({ status: 'cancelled' }), steps), 'Run wex_1 was cancelled');
  t.regex(failureLine(execution({ status: 'timeout' }), steps), /timed out/);
});

test('a run awaiting approval says which command decides it', (t) => {
  let out = '';
  const view = new RunView({ write: (text: string) => (out += text) }, steps, {
    live: false,
    colour: false,
  });
  view.update(
    execution({
      status: 'awaiting_approval',
      current_step: 'classify',
      step_results: [
        step('classify', {
          status: 'awaiting_approval',
          result: { agent_id: 'agt_9', agent_execution_id: 'exec_9' },
        }),
      ],
    }),
  );
  view.update(
    execution({
      status: 'completed',
      steps_completed: 1,
      step_results: [step('classify', { status: 'completed', duration_ms: 3 })],
    }),
  );
  t.deepEqual(out.trim().split('\n'), [
    'run wex_1 of wfl_1 started',
    'step classify (agent_action) started',
    'run wex_1 awaiting approval at step classify (decide with: svc approvals approve|reject exec_9)',
    'step classify (agent_action) completed in 3ms',
    'run wex_1 completed',
  ]);
});

test('a retried step shows the failed attempt, the retry and the outcome', (t) => {
  let out = '';
  const view = new RunView({ write: (text: string) => (out += text) }, steps, {
    live: false,
    colour: false,
  });
  const failedFirst = step('notify', {
    status: 'failed',
    duration_ms: 4,
    error: { code: 'external_api_error', message: 'answered 503' },
  });
  // What the engine shows between attempts: the failed one, then the next one waiting to run.
  view.update(
    execution({
      current_step: 'notify',
      step_results: [failedFirst, step('notify', { attempt: 2, status: 'retrying' })],
    }),
  );
  view.update(
    execution({
      status: 'completed',
      step_results: [
        failedFirst,
        step('notify', { attempt: 2, status: 'completed', duration_ms: 6 }),
      ],
    }),
  );
  t.deepEqual(out.trim().split('\n').slice(1), [
    'step notify (webhook) started',
    'step notify (webhook) failed: external_api_error: answered 503',
    'step notify (webhook) retrying (attempt 2)',
    'step notify (webhook) completed in 6ms (attempt 2)',
    'run wex_1 completed',
  ]);
});
