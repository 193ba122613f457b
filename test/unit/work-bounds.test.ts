// Bounds on work a user's input drives (issue 20, item 3), at the unit level: expression length
// and bracket depth, the interpolation budget of one step, YAML workflow files whose aliases
// expand too much, and the pattern checks of user regexes and event type patterns.
import test from 'ava';
import { parseWorkflowText } from '../../cli/workflow-file.js';
import {
  compile,
  expressionBoundProblem,
  interpolate,
  InterpolationBudget,
  MAX_EXPRESSION_DEPTH,
  MAX_EXPRESSION_LENGTH,
} from '../../daemon/engine/expressions.js';
import { unsupportedFeature } from '../../daemon/domain/user-patterns.js';
import { typeMatcher, typePatternProblem } from '../../shared/event-type-patterns.js';

test('expressions: over the length or the bracket depth is refused; quoted brackets are text', (t) => {
  t.is(expressionBoundProblem('a.b > 1'), undefined);
  t.regex(expressionBoundProblem('a'.repeat(MAX_EXPRESSION_LENGTH + 1))!, /longer than/);
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

test('YAML workflow files: alias bombs and files over 1 MiB are usage errors', async (t) => {
  const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < 10; i++)
    lines.push(
      `a${i}: &a${i} [${Array(10)
        .fill(`*a${i - 1}`)
        .join(', ')}]`,
    );
  await t.throwsAsync(parseWorkflowText(lines.join('\n'), 'bomb.yaml'), {
    message: /aliases \(\*name\) expand too much/,
  });
  await t.throwsAsync(parseWorkflowText(`name: x\n# ${'y'.repeat(1024 * 1024)}`, 'big.yaml'), {
    message: /over 1024 KiB/,
  });
  const fine = await parseWorkflowText(
    'base: &b {action: x}\nsteps: [*b, *b]\nname: ok',
    'ok.yaml',
  );
  t.is(fine.name, 'ok');
});

test('user regexes: RE2-unsupported features are named; escapes and classes are not', (t) => {
  t.is(unsupportedFeature('(a)\\1'), 'a backreference (\\1)');
  t.is(unsupportedFeature('(?<n>a)\\k<n>'), 'a named backreference (\\k<name>)');
  t.is(unsupportedFeature('a(?=b)'), 'a lookahead (?=...)');
  t.is(unsupportedFeature('a(?!b)'), 'a negative lookahead (?!...)');
  t.is(unsupportedFeature('(?<=a)b'), 'a lookbehind (?<=...)');
  t.is(unsupportedFeature('(?<!a)b'), 'a negative lookbehind (?<!...)');
  t.is(unsupportedFeature('\\\\1[(?=\\1]'), undefined);
  t.is(unsupportedFeature('(?<name>a)(?:b)(?i)c'), undefined);
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
