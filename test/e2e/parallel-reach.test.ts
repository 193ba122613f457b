// A step reached twice while a parallel step runs (issue 38, item 5), through a real daemon:
// every shape is refused on create and on PATCH with 400 invalid_step_config naming the step,
// the parallel step and both paths, and the workflow is left as it was; `svc workflows create`
// and `svc fixtures apply` refuse it the same way. A step after the join runs once.
import test from 'ava';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertExit } from '../helpers/daemon.js';
import { startReceiver } from '../helpers/receiver.js';
import { sharedDaemon } from '../helpers/setup.js';
import { tempDir } from '../helpers/temp-dir.js';
import { apiFor, createWorkflow, workflowFile, type Api } from '../helpers/workflows.js';

const d = sharedDaemon(test);

type Step = Record<string, unknown>;

const wait = (id: string, more: Step = {}): Step => ({
  id,
  name: id,
  type: 'wait',
  config: { duration_seconds: 0 },
  ...more,
});
const parallel = (id: string, branches: string[], more: Step = {}): Step => ({
  id,
  name: id,
  type: 'parallel',
  config: { steps: branches },
  ...more,
});
const pay = (url = 'http://127.0.0.1:9/pay'): Step => ({
  id: 'pay',
  name: 'Pay',
  type: 'webhook',
  config: { url, method: 'POST', body: { run: '{{workflow.execution_id}}' } },
});

interface Shape {
  name: string;
  steps: Step[];
  param: string;
  paths: string[][];
  message: RegExp;
}

// The shapes of the issue, each as the API refuses it.
const shapes: Shape[] = [
  {
    name: "a branch that is also the parallel step's next_step_id",
    steps: [parallel('p', ['pay'], { next_step_id: 'pay' }), pay()],
    param: 'steps[0].next_step_id',
    paths: [
      ['p', 'pay'],
      ['p', 'pay'],
    ],
    message:
      /^Step 'pay' is reached twice while parallel step 'p' runs: inside its branches \(p -> pay\) and again after they have joined \(p -> pay, from its next_step_id\)\./,
  },
  {
    name: 'a branch leading to a sibling branch',
    steps: [parallel('p', ['a', 'pay']), wait('a', { next_step_id: 'pay' }), pay()],
    param: 'steps[0].config.steps[1]',
    paths: [
      ['p', 'a', 'pay'],
      ['p', 'pay'],
    ],
    message:
      /^Step 'pay' is reached twice while parallel step 'p' runs: p -> a -> pay and p -> pay\./,
  },
  {
    name: 'a nested parallel step listing a sibling branch',
    steps: [parallel('p', ['q', 'pay']), parallel('q', ['pay']), pay()],
    param: 'steps[0].config.steps[1]',
    paths: [
      ['p', 'q', 'pay'],
      ['p', 'pay'],
    ],
    message: /p -> q -> pay and p -> pay/,
  },
  {
    name: "a condition's target pointing at a sibling branch",
    steps: [
      parallel('p', ['pay', 'check']),
      {
        id: 'check',
        name: 'check',
        type: 'condition',
        config: { condition: 'trigger.payload.big == true', if_true: 'pay', if_false: 'skip' },
      },
      wait('skip'),
      pay(),
    ],
    param: 'steps[1].config.if_true',
    paths: [
      ['p', 'pay'],
      ['p', 'check', 'pay'],
    ],
    message: /p -> pay and p -> check -> pay/,
  },
  {
    name: 'an on_error target pointing at a sibling branch',
    steps: [parallel('p', ['pay', 'a']), wait('a', { on_error: 'pay' }), pay()],
    param: 'steps[1].on_error',
    paths: [
      ['p', 'pay'],
      ['p', 'a', 'pay'],
    ],
    message: /p -> pay and p -> a -> pay/,
  },
  {
    name: 'a diamond: two branches leading to one step',
    steps: [
      parallel('p', ['a', 'b']),
      wait('a', { next_step_id: 'pay' }),
      wait('b', { next_step_id: 'pay' }),
      pay(),
    ],
    param: 'steps[2].next_step_id',
    paths: [
      ['p', 'a', 'pay'],
      ['p', 'b', 'pay'],
    ],
    message: /p -> a -> pay and p -> b -> pay/,
  },
];

let api: Api;
let ws: string;
test.before(async () => {
  ws = await d.createWorkspace('Parallel reach');
  api = await apiFor(d, ws);
});

for (const shape of shapes) {
  test(`refused on create and PATCH: ${shape.name}`, async (t) => {
    const created = await api('POST', '/workflows', { name: shape.name, steps: shape.steps });
    t.is(created.status, 400, JSON.stringify(created.body));
    const error = created.body.error;
    t.log(error.message);
    t.like(error, { code: 'invalid_step_config', param: shape.param, step_id: 'pay' });
    t.is(error.parallel_step_id, 'p');
    t.deepEqual(error.paths, shape.paths);
    t.regex(error.message, shape.message);
    // It says how to fix it.
    t.regex(error.message, /only one branch|must not also follow its join/);

    const id = await createWorkflow(api, { name: shape.name, steps: [wait('only')] });
    const patched = await api('PATCH', `/workflows/${id}`, { steps: shape.steps });
    t.is(patched.status, 400, JSON.stringify(patched.body));
    t.like(patched.body.error, { code: 'invalid_step_config', param: shape.param });
    t.regex(patched.body.error.message, shape.message);
    const kept = await api('GET', `/workflows/${id}`);
    t.deepEqual(
      kept.body.data.steps.map((step: Step) => step.id),
      ['only'],
    );
  });
}

test('a step after the join runs once: steps_completed equals steps_total', async (t) => {
  const receiver = await startReceiver(t);
  const id = await createWorkflow(api, {
    name: 'Joined',
    steps: [
      parallel('p', ['a', 'b'], { next_step_id: 'pay' }),
      wait('a'),
      wait('b'),
      pay(receiver.url),
    ],
  });
  const run = await api('POST', `/workflows/${id}/execute`, {
    input: {},
    wait_for_completion: true,
  });
  t.is(run.status, 200, JSON.stringify(run.body));
  t.like(run.body.data, { status: 'completed', steps_completed: 4, steps_total: 4 });
  t.is(receiver.requests.length, 1);
});

test('svc workflows create -f names the step and field of the second path', async (t) => {
  const file = workflowFile(
    'diamond.json',
    JSON.stringify({ name: 'Diamond', steps: shapes[5]!.steps }),
  );
  const human = await d.cli(['workflows', 'create', '-f', file, '--workspace', ws]);
  assertExit(t, human, 1);
  t.regex(human.stderr, /step "b" \(steps\[2\]\), field next_step_id/);
  t.regex(human.stderr, /p -> a -> pay and p -> b -> pay/);
  t.is(human.stdout, '');
});

test('svc fixtures apply refuses the workflow, naming the entry, and creates nothing', async (t) => {
  const file = join(tempDir('svc-parallel-reach-'), 'fixture.yaml');
  writeFileSync(
    file,
    [
      'workflows:',
      '  twice:',
      `    workspace: ${ws}`,
      '    name: Twice',
      `    steps: ${JSON.stringify(shapes[0]!.steps)}`,
      '',
    ].join('\n'),
  );
  const result = await d.cli(['fixtures', 'apply', file]);
  t.is(result.code, 1, result.stdout);
  t.log(result.stderr.trim());
  t.regex(result.stderr, /workflows\.twice/);
  t.regex(result.stderr, /Step 'pay' is reached twice while parallel step 'p' runs/);
  const listed = await api('GET', '/workflows?limit=100');
  t.false(
    listed.body.data.some((workflow: { name: string }) => workflow.name === 'Twice'),
    'nothing was created',
  );
});
