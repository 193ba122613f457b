// Expressions (angular-expressions) and {{ }} interpolation of workflow steps.
import test from 'ava';
import expressions from 'angular-expressions';
import {
  evaluate,
  evaluateCondition,
  ExpressionError,
  interpolate,
  interpolateString,
  MissingSecretError,
  secretsScope,
} from '../../daemon/engine/expressions.js';
import { maskSecrets } from '../../daemon/engine/secret-masking.js';

const scope = {
  trigger: { payload: { amount: 150, customer: { name: 'Ada' }, tags: ['a', 'b'] } },
  classify: { result: { action: 'route', confidence: 0.85 } },
  steps: { classify: { result: { action: 'route', confidence: 0.85 } } },
  workflow: { execution_id: 'wex_1', result: null },
};

test('conditions: comparisons, &&, member paths, with or without braces', (t) => {
  t.true(
    evaluateCondition('trigger.payload.amount > 100 && classify.result.confidence >= 0.8', scope),
  );
  t.false(
    evaluateCondition(
      'trigger.payload.amount > 200 || steps.classify.result.confidence < 0.5',
      scope,
    ),
  );
  t.true(evaluateCondition('{{ trigger.payload.customer.name == "Ada" }}', scope));
  t.true(evaluateCondition('classify.result.action === "route"', scope));
});

test('a missing path is null, never a crash', (t) => {
  t.is(evaluate('trigger.payload.nothing.deeper.still', scope), null);
  t.is(evaluate('unknown_step.result.x', scope), null);
  t.false(evaluateCondition('unknown_step.result.confidence >= 0.8', scope));
});

test('no access to the JavaScript runtime through expressions', (t) => {
  t.is(evaluate('constructor.constructor("return process")()', scope), null);
  t.is(evaluate('trigger.constructor', scope), null);
});

test("the library's guard runs in its own realm, not on the daemon's Function.prototype", (t) => {
  // angular-expressions deletes Function.prototype.constructor while it evaluates; in the
  // daemon's realm that made V8 drop optimised code all over the process (expression-realm.ts).
  const during: boolean[] = [];
  const probe = {
    get value() {
      during.push(Object.getOwnPropertyDescriptor(Function.prototype, 'constructor') !== undefined);
      return 1;
    },
  };
  t.true(evaluateCondition('probe.value > 0 && probe.value < 2', { probe }));
  t.true(during.length >= 2);
  t.true(during.every(Boolean), 'Function.prototype.constructor was there throughout');
  t.is(evaluate('constructor.constructor("return process")()', { probe }), null);
});

test('what an expression builds is daemon data; what it throws is an ExpressionError', (t) => {
  const built = evaluate('[trigger.payload.amount, {name: trigger.payload.customer.name}]', scope);
  t.deepEqual(built, [150, { name: 'Ada' }]);
  t.true(built instanceof Array);
  t.is((built as object[])[1]!.constructor, Object);
  // The interpreter (csp mode) calls only functions, and a scope holds none: a call is null.
  t.is(evaluate('trigger.payload.amount()', scope), null);
  const big = { a: 'x'.repeat(3_000_000) };
  const error = t.throws(() => evaluate('a + a', big), { instanceOf: ExpressionError });
  t.regex(error!.message, /Invalid expression 'a \+ a': Max string length exceeded/);
  // A secret inside a larger expression is refused before any secret is read.
  let reads = 0;
  const refused = t.throws(
    () =>
      evaluate('secrets.MISSING + 1', {
        ...scope,
        secrets: secretsScope(() => {
          reads += 1;
          return undefined;
        }, new Map()),
      }),
    { instanceOf: ExpressionError },
  );
  t.regex(refused!.message, /secrets\.MISSING other than whole/);
  t.is(reads, 0);
});

test('a syntax error is an ExpressionError with a readable reason', (t) => {
  const error = t.throws(() => evaluate('a >* b', scope), { instanceOf: ExpressionError });
  t.regex(error!.message, /Invalid expression 'a >\* b'/);
  t.notRegex(error!.message, /http/);
});

test('interpolation: exactly one {{expr}} keeps the type; embedded ones become text', (t) => {
  t.is(interpolateString('{{trigger.payload.amount}}', scope), 150);
  t.deepEqual(interpolateString('{{ trigger.payload }}', scope), scope.trigger.payload);
  t.is(
    interpolateString(
      'Amount: {{trigger.payload.amount}} for {{trigger.payload.customer.name}}',
      scope,
    ),
    'Amount: 150 for Ada',
  );
  t.is(interpolateString('tags={{trigger.payload.tags}}', scope), 'tags=["a","b"]');
  t.is(interpolateString('missing=[{{trigger.payload.none}}]', scope), 'missing=[]');
  t.is(interpolateString('{{trigger.payload.none}}', scope), null);
  t.is(interpolateString('no braces', scope), 'no braces');
  t.deepEqual(
    interpolate(
      {
        id: '{{workflow.execution_id}}',
        nested: [{ c: '{{steps.classify.result.confidence}}' }],
        n: 3,
      },
      scope,
    ),
    { id: 'wex_1', nested: [{ c: 0.85 }], n: 3 },
  );
});

test('secrets are read when used, masked as [secret:NAME], and a missing one is named', (t) => {
  const used = new Map<string, string>();
  const secrets = secretsScope((name) => (name === 'TOKEN' ? 's3cr3t-value' : undefined), used);
  const withSecrets = { ...scope, secrets };
  const headers = interpolate({ authorization: 'Bearer {{secrets.TOKEN}}' }, withSecrets);
  t.deepEqual(headers, { authorization: 'Bearer s3cr3t-value' });
  t.deepEqual([...used.keys()], ['TOKEN']);
  t.deepEqual(maskSecrets({ echo: ['got Bearer s3cr3t-value'] }, used), {
    echo: ['got Bearer [secret:TOKEN]'],
  });
  const error = t.throws(() => interpolate('{{secrets.NOPE}}', withSecrets), {
    instanceOf: MissingSecretError,
  });
  t.is(error!.secretName, 'NOPE');
  t.regex(error!.message, /NOPE/);
});

test('plain paths (read without the library) answer exactly what angular-expressions answers', (t) => {
  const data = {
    ...scope,
    constructor: 1,
    secrets: secretsScope((name) => (name === 'KEY' ? 'v' : undefined), new Map()),
  };
  const paths = [
    'trigger',
    'trigger.payload.amount',
    ' trigger . payload . customer . name ',
    'trigger.payload.missing',
    'trigger.payload.missing.deeper',
    'trigger.payload.tags',
    'trigger.payload.tags.length',
    'trigger.payload.customer.name.length',
    'trigger.toString',
    'trigger.constructor',
    'trigger.__proto__',
    'hasOwnProperty',
    'constructor',
    'workflow.result',
    'workflow.result.anything',
    'nothing.at.all',
    'true',
    'false',
    'null',
    'undefined',
    '$locals',
    'secrets.KEY',
  ];
  for (const path of paths) {
    const library = expressions.compile(path)(data) as unknown;
    t.deepEqual(evaluate(path, data), library === undefined ? null : library, path);
  }
  t.throws(() => evaluate('secrets.MISSING', data), { instanceOf: MissingSecretError });
});
