// Graph validation of workflow steps: unique ids, references, required config per type, agents,
// expressions parsed at write time, and cycles through every kind of edge.
import test from 'ava';
import type { WorkflowStepInput } from '../../shared/schemas/workflows.js';
import { ApiError } from '../../daemon/domain/errors.js';
import { findCycle, MAX_EXPRESSION_LENGTH, validateSteps } from '../../daemon/workflows/graph.js';

const context = { agentExists: (id: string) => id === 'agt_known' };

function refused(steps: WorkflowStepInput[]): ApiError {
  const error = (() => {
    try {
      validateSteps(steps, context);
    } catch (caught) {
      return caught;
    }
    return undefined;
  })();
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

const agentStep = (id: string, next?: string): WorkflowStepInput => ({
  id,
  name: id,
  type: 'agent_action',
  agent_id: 'agt_known',
  config: { action: 'classify', input_mapping: { text: '{{trigger.payload.text}}' } },
  ...(next ? { next_step_id: next } : {}),
});

test('a valid graph of every step type is accepted and normalised', (t) => {
  const steps = validateSteps(
    [
      agentStep('classify', 'route'),
      {
        id: 'route',
        name: 'Route',
        type: 'condition',
        config: {
          condition: 'classify.result.confidence >= 0.8',
          if_true: 'fan',
          if_false: 'pause',
        },
      },
      {
        id: 'fan',
        name: 'Fan',
        type: 'parallel',
        config: { steps: ['a', 'b'], wait_for_all: true },
        next_step_id: 'notify',
      },
      agentStep('a'),
      agentStep('b'),
      {
        id: 'pause',
        name: 'Pause',
        type: 'wait',
        config: { duration_seconds: 60, reason: 'cool down' },
      },
      {
        id: 'notify',
        name: 'Notify',
        type: 'webhook',
        config: {
          url: 'http://127.0.0.1/hook',
          method: 'post',
          headers: { 'x-a': '{{secrets.TOKEN}}' },
          body: { id: '{{workflow.execution_id}}' },
        },
      },
    ],
    context,
  );
  t.is(steps.length, 7);
  t.like(steps[5], { id: 'pause', agent_id: null, next_step_id: null, on_error: null });
});

test('duplicate ids, unknown type and missing references point at the field', (t) => {
  t.like(refused([agentStep('a'), agentStep('a')]), {
    code: 'invalid_step_config',
    param: 'steps[1].id',
  });
  const unknownType = refused([
    agentStep('a'),
    { id: 'b', name: 'b', type: 'teleport', config: {} },
  ]);
  t.like(unknownType, { code: 'invalid_step_config', param: 'steps[1].type', status: 400 });
  t.regex(unknownType.message, /teleport/);
  t.like(refused([agentStep('a', 'nowhere')]), { param: 'steps[0].next_step_id' });
  t.like(refused([{ ...agentStep('a'), on_error: 'ghost' }]), { param: 'steps[0].on_error' });
  t.like(
    refused([
      agentStep('a', 'c'),
      agentStep('b'),
      {
        id: 'c',
        name: 'c',
        type: 'condition',
        config: { condition: 'true', if_true: 'b', if_false: 'zzz' },
      },
    ]),
    { param: 'steps[2].config.if_false' },
  );
  t.like(refused([{ id: 'p', name: 'p', type: 'parallel', config: { steps: ['p2'] } }]), {
    param: 'steps[0].config.steps[0]',
  });
});

test('required config per type, and agents that must exist', (t) => {
  t.like(refused([{ ...agentStep('a'), agent_id: 'agt_gone' }]), { param: 'steps[0].agent_id' });
  t.like(refused([{ ...agentStep('a'), agent_id: undefined }]), { param: 'steps[0].agent_id' });
  t.like(refused([{ ...agentStep('a'), config: {} }]), { param: 'steps[0].config.action' });
  t.like(refused([{ id: 'c', name: 'c', type: 'condition', config: { if_true: 'c' } }]), {
    param: 'steps[0].config.condition',
  });
  t.like(refused([{ id: 'w', name: 'w', type: 'wait', config: { duration_seconds: 1.5 } }]), {
    param: 'steps[0].config.duration_seconds',
  });
  t.like(refused([{ id: 'h', name: 'h', type: 'webhook', config: {} }]), {
    param: 'steps[0].config.url',
  });
  t.like(
    refused([
      { id: 'h', name: 'h', type: 'webhook', config: { url: 'http://x', method: 'FETCH' } },
    ]),
    {
      param: 'steps[0].config.method',
    },
  );
  for (const timeout of [0, 61, 2.5, '30']) {
    t.like(
      refused([
        {
          id: 'h',
          name: 'h',
          type: 'webhook',
          config: { url: 'http://x', timeout_seconds: timeout },
        },
      ]),
      { param: 'steps[0].config.timeout_seconds' },
    );
  }
  t.like(refused([{ id: 'p', name: 'p', type: 'parallel', config: { steps: [] } }]), {
    param: 'steps[0].config.steps',
  });
});

test('expressions are parsed at write time: a syntax error is refused with the field', (t) => {
  const badCondition = refused([
    agentStep('a'),
    {
      id: 'c',
      name: 'c',
      type: 'condition',
      config: { condition: 'trigger.payload.amount >* 3', if_true: 'a' },
    },
  ]);
  t.like(badCondition, { code: 'invalid_step_config', param: 'steps[1].config.condition' });
  t.regex(badCondition.message, /Invalid expression/);
  t.like(
    refused([
      { ...agentStep('a'), config: { action: 'x', input_mapping: { text: 'Hi {{ trigger.( }}' } } },
    ]),
    { param: 'steps[0].config.input_mapping.text' },
  );
  // A condition wrapped in {{ }} is accepted too.
  t.notThrows(() =>
    validateSteps(
      [
        agentStep('a'),
        {
          id: 'c',
          name: 'c',
          type: 'condition',
          config: { condition: '{{ trigger.payload.ok }}', if_true: 'a' },
        },
      ],
      context,
    ),
  );
});

test('a cycle through any kind of edge is circular_dependency naming its steps', (t) => {
  const next = refused([agentStep('a', 'b'), agentStep('b', 'c'), agentStep('c', 'a')]);
  t.like(next, { code: 'circular_dependency', status: 400 });
  t.deepEqual(next.extras.cycle, ['a', 'b', 'c', 'a']);
  t.regex(next.message, /a -> b -> c -> a/);

  const viaCondition = refused([
    agentStep('a', 'check'),
    {
      id: 'check',
      name: 'check',
      type: 'condition',
      config: { condition: 'true', if_true: 'done', if_false: 'a' },
    },
    agentStep('done'),
  ]);
  t.deepEqual(viaCondition.extras.cycle, ['a', 'check', 'a']);

  const viaOnError = refused([{ ...agentStep('a'), on_error: 'b' }, agentStep('b', 'a')]);
  t.deepEqual(viaOnError.extras.cycle, ['a', 'b', 'a']);

  const viaParallel = refused([
    { id: 'p', name: 'p', type: 'parallel', config: { steps: ['x'] } },
    agentStep('x', 'p'),
  ]);
  t.deepEqual(viaParallel.extras.cycle, ['p', 'x', 'p']);

  const self = refused([agentStep('a', 'a')]);
  t.deepEqual(self.extras.cycle, ['a', 'a']);
});

test('findCycle: diamonds are not cycles', (t) => {
  const steps = validateSteps(
    [
      // Two paths that exclude each other meet at p (two branches of a parallel step may not
      // meet: test/unit/parallel-reach.test.ts).
      {
        id: 'c',
        name: 'c',
        type: 'condition',
        config: { condition: 'true', if_true: 'x', if_false: 'y' },
      },
      agentStep('x', 'p'),
      agentStep('y', 'p'),
      { id: 'p', name: 'p', type: 'parallel', config: { steps: ['a', 'b'] }, next_step_id: 'z' },
      agentStep('a'),
      agentStep('b'),
      agentStep('z'),
    ],
    context,
  );
  t.is(findCycle(steps), undefined);
});

test('an expression longer than MAX_EXPRESSION_LENGTH is refused, in a condition and in a template', (t) => {
  const long = `trigger.payload.amount > 1 ${'&& true '.repeat(MAX_EXPRESSION_LENGTH / 8)}`;
  const condition = refused([
    {
      id: 'check',
      name: 'Check',
      type: 'condition',
      config: { condition: long, if_true: 'check' },
    },
  ]);
  t.is(condition.param, 'steps[0].config.condition');
  t.regex(condition.message, /at most 2000/);
  const template = refused([
    { ...agentStep('a'), config: { action: 'x', input_mapping: { text: `{{${long}}}` } } },
  ]);
  t.is(template.param, 'steps[0].config.input_mapping.text');
});
