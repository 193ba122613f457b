// The bound on a workflow's expressions (issue 38): at most MAX_WORKFLOW_EXPRESSIONS, of at most
// MAX_WORKFLOW_EXPRESSION_CHARS in all, counted over templates and conditions before anything is
// compiled; and the compiled-expression cache that keeps a run from compiling them again.
import test from 'ava';
import type { WorkflowStepInput } from '../../shared/schemas/workflows.js';
import { ApiError } from '../../daemon/domain/errors.js';
import { TextCache } from '../../daemon/engine/text-cache.js';
import {
  checkExpressionBudget,
  MAX_WORKFLOW_EXPRESSION_CHARS,
  MAX_WORKFLOW_EXPRESSIONS,
} from '../../daemon/workflows/expression-budget.js';
import { validateSteps } from '../../daemon/workflows/graph.js';

const context = { agentExists: () => true };

/** A distinct expression of exactly `length` characters (a sum of paths, padded with spaces). */
function expression(seed: number, length: number): string {
  const text = `a${seed} + 1`;
  return text + ' '.repeat(length - text.length);
}

const waitStep = (id: string, reason: string): WorkflowStepInput => ({
  id,
  name: id,
  type: 'wait',
  config: { duration_seconds: 0, reason },
});

function refusal(steps: WorkflowStepInput[]): ApiError {
  try {
    validateSteps(steps, context);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('the workflow was accepted');
}

test('a workflow with exactly the most expressions and characters allowed is accepted', (t) => {
  const count = MAX_WORKFLOW_EXPRESSIONS;
  // All the characters spread over all the expressions, across several steps and a condition.
  const each = Math.floor(MAX_WORKFLOW_EXPRESSION_CHARS / count);
  const exprs = Array.from({ length: count - 1 }, (_, i) => `{{${expression(i, each)}}}`);
  const steps: WorkflowStepInput[] = [
    {
      id: 'check',
      name: 'check',
      type: 'condition',
      config: { condition: expression(99_999, each), if_true: 'w0' },
    },
  ];
  for (let i = 0; i < 4; i++)
    steps.push(
      waitStep(
        `w${i}`,
        exprs.slice((i * exprs.length) / 4, ((i + 1) * exprs.length) / 4).join(' '),
      ),
    );
  t.notThrows(() => checkExpressionBudget(steps));
  t.is(validateSteps(steps, context).length, 5);
});

test('one expression more than allowed is refused with 400 invalid_step_config naming the field', (t) => {
  const short = Array.from({ length: MAX_WORKFLOW_EXPRESSIONS }, (_, i) => `{{a${i}}}`);
  const error = refusal([
    waitStep('first', short.join(' ')),
    { ...waitStep('second', 'Waiting for {{trigger.payload.id}}') },
  ]);
  t.is(error.code, 'invalid_step_config');
  t.is(error.status, 400);
  t.is(error.param, 'steps[1].config.reason');
  t.regex(error.message, new RegExp(`more than ${MAX_WORKFLOW_EXPRESSIONS} expressions`));
  t.regex(error.message, /expression 501/);
  t.regex(error.message, /Use fewer or shorter expressions/);
});

test('expressions longer than allowed in all are refused, conditions counted too', (t) => {
  const per = 2_000;
  const full = Array.from(
    { length: MAX_WORKFLOW_EXPRESSION_CHARS / per },
    (_, i) => `{{${expression(i, per)}}}`,
  );
  const error = refusal([
    waitStep('w', full.join(' ')),
    { id: 'c', name: 'c', type: 'condition', config: { condition: 'x > 1', if_true: 'w' } },
  ]);
  t.is(error.code, 'invalid_step_config');
  t.is(error.param, 'steps[1].config.condition');
  t.regex(error.message, /come to more than 10,000 characters/);
  t.regex(error.message, /brings them to 10,005/);
});

test('the bound is checked before any expression is compiled', (t) => {
  // Past the bound and invalid: the budget answers, not the syntax check of the first one.
  const error = refusal([
    waitStep(
      'w',
      `{{a >* b}} ${Array.from({ length: MAX_WORKFLOW_EXPRESSIONS }, () => '{{x}}').join('')}`,
    ),
  ]);
  t.regex(error.message, /more than 500 expressions/);
});

test('the text cache keeps the most recently used within its entries and characters', (t) => {
  const cache = new TextCache<number>(3, 10);
  cache.set('aaa', 1);
  cache.set('bbb', 2);
  cache.set('ccc', 3);
  t.is(cache.get('aaa'), 1, 'a hit makes aaa the most recent');
  cache.set('ddd', 4); // 4 entries: the least recent (bbb) goes
  t.is(cache.get('bbb'), undefined);
  t.deepEqual([cache.get('aaa'), cache.get('ccc'), cache.get('ddd')], [1, 3, 4]);
  cache.set('eeeeeeee', 5); // 17 characters: the oldest go until 10 or fewer remain
  t.is(cache.size, 1);
  t.is(cache.get('eeeeeeee'), 5);
  cache.set('x'.repeat(11), 6); // longer than the whole bound: not kept
  t.is(cache.get('x'.repeat(11)), undefined);
  t.is(cache.get('eeeeeeee'), 5);
});
