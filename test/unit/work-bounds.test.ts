// Bounds on work a user's input drives (issue 20, item 3), at the unit level: expression bracket
// depth, the interpolation budget of one step and of a run (issue 51), and event type patterns.
import test from 'ava';
import {
  compile,
  expressionBoundProblem,
  interpolate,
  InterpolationBudget,
  MAX_EXPRESSION_DEPTH,
  MAX_RUN_INTERPOLATED_CHARS,
  RunBudgetError,
} from '../../daemon/engine/expressions.js';
import { typeMatcher, typePatternProblem } from '../../shared/event-type-patterns.js';

test('expressions: brackets nested past the bound are refused; quoted brackets are text', (t) => {
  t.is(expressionBoundProblem('a.b > 1'), undefined);
  const deep = '('.repeat(MAX_EXPRESSION_DEPTH + 1) + '1' + ')'.repeat(MAX_EXPRESSION_DEPTH + 1);
  t.regex(expressionBoundProblem(deep)!, /nest more than/);
  const atDepth = '('.repeat(MAX_EXPRESSION_DEPTH) + '1' + ')'.repeat(MAX_EXPRESSION_DEPTH);
  t.is(expressionBoundProblem(atDepth), undefined);
  t.is(expressionBoundProblem(`'${'['.repeat(100)}' == "\\"(("`), undefined);
  t.throws(() => compile(deep), { message: /nest more than/ });
});

test('interpolation: one budget per step config; a repeated large value is refused', (t) => {
  const scope = {
    trigger: { payload: { text: 'a'.repeat(300_000), obj: { big: 'b'.repeat(300_000) } } },
  };
  const four = Object.fromEntries([0, 1, 2, 3].map((i) => [`k${i}`, '{{trigger.payload.text}}']));
  t.throws(() => interpolate(four, scope), { message: /expands to more than 1,000,000/ });
  const objects = [
    '{{trigger.payload.obj}}',
    '{{trigger.payload.obj}}',
    '{{trigger.payload.obj}}',
    '{{trigger.payload.obj}}',
  ];
  t.throws(() => interpolate(objects, scope), { message: /expands to more than/ });
  const three = { a: '{{trigger.payload.text}}', b: 'x {{trigger.payload.text}}' };
  const budget = new InterpolationBudget();
  t.notThrows(() => interpolate(three, scope, budget));
  t.throws(() => interpolate(three, scope, budget), { message: /expands to more than/ });
});

test("interpolation: a run's budget counts what its other steps produced, and names the step", (t) => {
  const scope = { trigger: { payload: { text: 'a'.repeat(300_000) } } };
  const heard: number[] = [];
  const budget = new InterpolationBudget({
    stepId: 'b3',
    before: () => MAX_RUN_INTERPOLATED_CHARS - 400_000,
    onCharge: (used) => heard.push(used),
  });
  interpolate('{{trigger.payload.text}}', scope, budget);
  t.is(budget.used, 300_000);
  t.deepEqual(heard, [300_000]);
  const error = t.throws(() => interpolate('{{trigger.payload.text}}', scope, budget));
  t.true(error instanceof RunBudgetError);
  t.is(
    error.message.split(':')[0],
    "Step 'b3' would take its run's interpolated input past 10,000,000 characters (the run's steps had produced 9,600,000, and this step's expressions 600,000 more)",
  );
  // The refused value is not counted.
  t.is(budget.used, 300_000);
  // The step's own bound still comes first.
  const fresh = new InterpolationBudget({ stepId: 'b4', before: () => 0 });
  const four = ['{{trigger.payload.text}}', '{{trigger.payload.text}}'];
  t.notThrows(() => interpolate([...four, ...four.slice(1)], scope, fresh));
  t.throws(() => interpolate(four, scope, fresh), { message: /expands to more than 1,000,000/ });
});

test('event type patterns: * only at the end; a matcher of exact types and prefixes', (t) => {
  t.is(typePatternProblem('agent.*'), undefined);
  t.is(typePatternProblem('*'), undefined);
  t.regex(typePatternProblem('a*b')!, /may only end/);
  t.regex(typePatternProblem('x'.repeat(101))!, /longer than 100/);
  const matches = typeMatcher(['agent.created', 'workflow.execution.*']);
  t.true(matches('agent.created'));
  t.true(matches('workflow.execution.failed'));
  t.false(matches('agent.updated'));
  t.false(matches('workflow.created'));
});
