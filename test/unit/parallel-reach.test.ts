// A step reached twice while a parallel step runs would run twice per run (issue 38, item 5):
// every shape of it is refused by graph validation, naming the step and both paths; shapes where
// a step is reached by two paths that exclude each other, or after the join, stay legal.
import test from 'ava';
import type { WorkflowStepInput } from '../../shared/schemas/workflows.js';
import { ApiError } from '../../daemon/domain/errors.js';
import { validateSteps } from '../../daemon/workflows/graph.js';
import { findDoubleReach } from '../../daemon/workflows/parallel-reach.js';
import type { TypedStep } from '../../shared/schemas/steps.js';

const context = { agentExists: () => true };

const wait = (id: string, more: Partial<WorkflowStepInput> = {}): WorkflowStepInput => ({
  id,
  name: id,
  type: 'wait',
  config: { duration_seconds: 0 },
  ...more,
});
const parallel = (
  id: string,
  branches: string[],
  more: Partial<WorkflowStepInput> = {},
): WorkflowStepInput => ({ id, name: id, type: 'parallel', config: { steps: branches }, ...more });
const condition = (id: string, ifTrue: string, ifFalse: string): WorkflowStepInput => ({
  id,
  name: id,
  type: 'condition',
  config: { condition: 'trigger.payload.ok == true', if_true: ifTrue, if_false: ifFalse },
});

function refused(steps: WorkflowStepInput[]): ApiError {
  try {
    validateSteps(steps, context);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the graph to be refused');
}

function refusal(
  t: import('ava').ExecutionContext,
  steps: WorkflowStepInput[],
  expected: { param: string; paths: string[][]; message: RegExp },
): void {
  const error = refused(steps);
  t.log(error.message);
  t.like(error, { code: 'invalid_step_config', status: 400, param: expected.param });
  t.deepEqual(error.extras.paths, expected.paths);
  t.is(error.extras.step_id, 'pay');
  t.regex(error.message, expected.message);
}

test("a branch that is also the parallel step's continuation", (t) => {
  refusal(t, [parallel('p', ['pay'], { next_step_id: 'pay' }), wait('pay')], {
    param: 'steps[0].next_step_id',
    paths: [
      ['p', 'pay'],
      ['p', 'pay'],
    ],
    message:
      /^Step 'pay' is reached twice while parallel step 'p' runs: inside its branches \(p -> pay\) and again after they have joined \(p -> pay, from its next_step_id\)\. .*remove 'pay'/,
  });
});

test('a branch whose chain leads to a sibling branch', (t) => {
  refusal(t, [parallel('p', ['a', 'pay']), wait('a', { next_step_id: 'pay' }), wait('pay')], {
    param: 'steps[0].config.steps[1]',
    paths: [
      ['p', 'a', 'pay'],
      ['p', 'pay'],
    ],
    message: /reached twice while parallel step 'p' runs: p -> a -> pay and p -> pay\. Branches/,
  });
});

test('a nested parallel step listing a sibling branch', (t) => {
  refusal(t, [parallel('p', ['q', 'pay']), parallel('q', ['pay']), wait('pay')], {
    param: 'steps[0].config.steps[1]',
    paths: [
      ['p', 'q', 'pay'],
      ['p', 'pay'],
    ],
    message: /p -> q -> pay and p -> pay/,
  });
});

test("a condition's target inside a parallel step pointing at a sibling branch", (t) => {
  refusal(
    t,
    [parallel('p', ['check', 'pay']), condition('check', 'pay', 'skip'), wait('skip'), wait('pay')],
    {
      param: 'steps[0].config.steps[1]',
      paths: [
        ['p', 'check', 'pay'],
        ['p', 'pay'],
      ],
      message: /p -> check -> pay and p -> pay/,
    },
  );
  // The other way round: the sibling listed first, the condition's edge is the second path.
  refusal(
    t,
    [parallel('p', ['pay', 'check']), condition('check', 'skip', 'pay'), wait('skip'), wait('pay')],
    {
      param: 'steps[1].config.if_false',
      paths: [
        ['p', 'pay'],
        ['p', 'check', 'pay'],
      ],
      message: /p -> pay and p -> check -> pay/,
    },
  );
});

test('an on_error target inside a parallel step pointing at a sibling branch', (t) => {
  refusal(t, [parallel('p', ['pay', 'a']), wait('a', { on_error: 'pay' }), wait('pay')], {
    param: 'steps[1].on_error',
    paths: [
      ['p', 'pay'],
      ['p', 'a', 'pay'],
    ],
    message: /p -> pay and p -> a -> pay/,
  });
});

test('a diamond inside a parallel step: two branches leading to one step', (t) => {
  refusal(
    t,
    [
      parallel('p', ['a', 'b']),
      wait('a', { next_step_id: 'pay' }),
      wait('b', { next_step_id: 'pay' }),
      wait('pay'),
    ],
    {
      param: 'steps[2].next_step_id',
      paths: [
        ['p', 'a', 'pay'],
        ['p', 'b', 'pay'],
      ],
      message: /p -> a -> pay and p -> b -> pay/,
    },
  );
});

test('a branch reaching a step that also follows the join, further on', (t) => {
  refusal(
    t,
    [
      parallel('p', ['a'], { next_step_id: 'x' }),
      wait('a', { next_step_id: 'pay' }),
      wait('x', { next_step_id: 'pay' }),
      wait('pay'),
    ],
    {
      param: 'steps[2].next_step_id',
      paths: [
        ['p', 'a', 'pay'],
        ['p', 'x', 'pay'],
      ],
      message:
        /inside its branches \(p -> a -> pay\) and again after they have joined \(p -> x -> pay/,
    },
  );
});

test("an inner parallel step's join leading into a sibling branch's chain", (t) => {
  refusal(
    t,
    [
      parallel('p', ['q', 'b']),
      parallel('q', ['x'], { next_step_id: 'pay' }),
      wait('x'),
      wait('b', { next_step_id: 'pay' }),
      wait('pay'),
    ],
    {
      param: 'steps[3].next_step_id',
      paths: [
        ['p', 'q', 'pay'],
        ['p', 'b', 'pay'],
      ],
      message: /p -> q -> pay and p -> b -> pay/,
    },
  );
});

test('the nearest shared step is named, with the shortest paths', (t) => {
  // a and b both reach pay, and through it done: pay is named, not done.
  const found = findDoubleReach(
    stored([
      parallel('p', ['a', 'b']),
      wait('a', { next_step_id: 'long' }),
      wait('long', { next_step_id: 'pay' }),
      wait('b', { next_step_id: 'pay', on_error: 'pay' }),
      wait('pay', { next_step_id: 'done' }),
      wait('done'),
    ]),
  );
  t.like(found, { step: 'pay', parallel: 'p', afterJoin: false });
  t.deepEqual(found?.first, ['p', 'a', 'long', 'pay']);
  t.deepEqual(found?.second, ['p', 'b', 'pay']);
});

/** Steps in their stored form, unchecked (to look at what findDoubleReach alone answers). */
function stored(steps: WorkflowStepInput[]): TypedStep[] {
  return steps.map((step) => ({
    agent_id: null,
    next_step_id: null,
    on_error: null,
    ...step,
    config: step.config ?? {},
  })) as TypedStep[];
}

const legal: [string, WorkflowStepInput[]][] = [
  [
    'a step after the join, reached once when every branch has ended',
    [
      parallel('p', ['a', 'b'], { next_step_id: 'pay' }),
      wait('a'),
      wait('b'),
      wait('pay', { next_step_id: 'done' }),
      wait('done'),
    ],
  ],
  [
    'two parallel steps one after the other',
    [
      parallel('p', ['a', 'b'], { next_step_id: 'q' }),
      wait('a'),
      wait('b'),
      parallel('q', ['c', 'd'], { next_step_id: 'pay' }),
      wait('c'),
      wait('d'),
      wait('pay'),
    ],
  ],
  [
    'two condition branches, not in a parallel step, converging on one step',
    [
      condition('check', 'x', 'y'),
      wait('x', { next_step_id: 'pay' }),
      wait('y', { next_step_id: 'pay' }),
      wait('pay'),
    ],
  ],
  [
    'a diamond of next_step_id and on_error outside a parallel step',
    [
      wait('a', { next_step_id: 'b', on_error: 'c' }),
      wait('b', { next_step_id: 'pay' }),
      wait('c', { next_step_id: 'pay' }),
      wait('pay'),
    ],
  ],
  [
    "a condition's two targets converging inside one branch",
    [
      parallel('p', ['check', 'other'], { next_step_id: 'done' }),
      condition('check', 'x', 'y'),
      wait('x', { next_step_id: 'pay' }),
      wait('y', { next_step_id: 'pay' }),
      wait('pay'),
      wait('other'),
      wait('done'),
    ],
  ],
  [
    'a path around the parallel step meeting its continuation',
    [
      condition('check', 'p', 'pay'),
      parallel('p', ['a', 'b'], { next_step_id: 'pay' }),
      wait('a'),
      wait('b'),
      wait('pay'),
    ],
  ],
  [
    "the parallel step's own on_error (a parallel step that fails started no branch)",
    [
      parallel('p', ['a', 'b'], { next_step_id: 'pay', on_error: 'a' }),
      wait('a'),
      wait('b'),
      wait('pay'),
    ],
  ],
];

for (const [name, steps] of legal) {
  test(`legal: ${name}`, (t) => {
    t.notThrows(() => validateSteps(steps, context));
  });
}
