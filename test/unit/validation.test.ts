// parseRequestPart: zod's verdict turned into the spec's validation errors.
import test from 'ava';
import { z } from 'zod';
import { ApiError } from '../../daemon/domain/errors.js';
import { parseRequestPart } from '../../daemon/http/validation.js';
import { ListQuery } from '../../shared/schemas/common.js';

const Body = z.strictObject({
  name: z.string(),
  type: z.enum(['customer_support', 'sales']),
  autonomy_level: z.enum(['L1', 'L2', 'L3', 'L4']),
  config: z.strictObject({
    model: z.string(),
    temperature: z.number().min(0).max(2).optional(),
    guardrails: z.strictObject({ max_actions: z.number().int() }).optional(),
  }),
  tags: z.array(z.string()).optional(),
});

const valid = {
  name: 'Support bot',
  type: 'sales',
  autonomy_level: 'L2',
  config: { model: 'small' },
};

function apiError(t: import('ava').ExecutionContext, fn: () => unknown): ApiError {
  const error = t.throws(fn);
  t.true(error instanceof ApiError, `expected an ApiError, got ${String(error)}`);
  return error as ApiError;
}

test('a valid body passes and comes back parsed', (t) => {
  t.deepEqual(parseRequestPart(Body, valid, 'body'), valid);
});

test('missing fields: all of them in required_fields, param is the first', (t) => {
  const error = apiError(t, () =>
    parseRequestPart(Body, { type: 'sales', autonomy_level: 'L1' }, 'body'),
  );
  t.is(error.code, 'missing_required_field');
  t.is(error.status, 400);
  t.deepEqual(error.extras.required_fields, ['name', 'config']);
  t.is(error.param, 'name');
  t.regex(error.message, /name/);
});

test('missing nested fields are named by dotted path', (t) => {
  const error = apiError(t, () =>
    parseRequestPart(Body, { ...valid, config: { guardrails: {} } }, 'body'),
  );
  t.is(error.code, 'missing_required_field');
  t.deepEqual(error.extras.required_fields, ['config.model', 'config.guardrails.max_actions']);
  t.is(error.param, 'config.model');
});

test('an empty or absent body lists every required field', (t) => {
  for (const input of [undefined, {}]) {
    const error = apiError(t, () => parseRequestPart(Body, input, 'body'));
    t.is(error.code, 'missing_required_field');
    t.deepEqual(error.extras.required_fields, ['name', 'type', 'autonomy_level', 'config']);
  }
});

test('a missing enum field is missing_required_field, not an enum error', (t) => {
  // zod reports an absent enum as invalid_value; it is still an absent required field.
  const { type: _type, ...rest } = valid;
  const error = apiError(t, () => parseRequestPart(Body, rest, 'body'));
  t.is(error.code, 'missing_required_field');
  t.is(error.param, 'type');
  t.deepEqual(error.extras.required_fields, ['type']);
});

test('a wrong type is invalid_parameter with param', (t) => {
  const error = apiError(t, () => parseRequestPart(Body, { ...valid, name: 42 }, 'body'));
  t.is(error.code, 'invalid_parameter');
  t.is(error.status, 400);
  t.is(error.param, 'name');
  t.regex(error.message, /field 'name'/);
  t.regex(error.message, /string/);
  t.is(error.extras.required_fields, undefined);
});

test('a null value is a wrong type, not a missing field', (t) => {
  const error = apiError(t, () => parseRequestPart(Body, { ...valid, name: null }, 'body'));
  t.is(error.code, 'invalid_parameter');
  t.is(error.param, 'name');
});

test('a nested wrong type has a dotted param', (t) => {
  const error = apiError(t, () =>
    parseRequestPart(Body, { ...valid, config: { model: 'm', temperature: 'hot' } }, 'body'),
  );
  t.is(error.code, 'invalid_parameter');
  t.is(error.param, 'config.temperature');
});

test('an array element of the wrong type names its index', (t) => {
  const error = apiError(t, () => parseRequestPart(Body, { ...valid, tags: ['a', 3] }, 'body'));
  t.is(error.code, 'invalid_parameter');
  t.is(error.param, 'tags.1');
});

test('out of range numbers are invalid_parameter', (t) => {
  const error = apiError(t, () =>
    parseRequestPart(Body, { ...valid, config: { model: 'm', temperature: 5 } }, 'body'),
  );
  t.is(error.code, 'invalid_parameter');
  t.is(error.param, 'config.temperature');
  t.regex(error.message, /too big/);
});

test('a number, a length or a count past its bound: one sentence with the bound and the value', (t) => {
  const Bounded = z.strictObject({
    times: z.number().int().min(1).max(1000).optional(),
    share: z.number().gt(0).optional(),
    match: z.string().min(1).max(5).optional(),
    code: z.string().length(3).optional(),
    name: z.string().trim().min(3).optional(),
    tags: z.array(z.string()).max(2).optional(),
  });
  const cases: [Record<string, unknown>, string][] = [
    [{ times: 0 }, "The field 'times' is too small: it must be at least 1 (got 0)."],
    [{ times: 5000 }, "The field 'times' is too big: it must be at most 1000 (got 5000)."],
    [{ share: 0 }, "The field 'share' is too small: it must be greater than 0 (got 0)."],
    [{ match: '' }, "The field 'match' is blank: it takes at least 1 character other than spaces."],
    [
      { name: '   ' },
      "The field 'name' is blank: it takes at least 3 characters other than spaces.",
    ],
    // The trimmed text is what was checked: its length, not the spaces around it.
    [{ name: ' ab ' }, "The field 'name' is too short: it takes at least 3 characters (got 2)."],
    [{ match: 'abcdef' }, "The field 'match' is too long: it takes at most 5 characters (got 6)."],
    [{ code: 'ab' }, "The field 'code' is too short: it takes exactly 3 characters (got 2)."],
    [{ tags: ['a', 'b', 'c'] }, "The field 'tags' has too many items: it takes at most 2 (got 3)."],
  ];
  for (const [body, message] of cases) {
    const error = apiError(t, () => parseRequestPart(Bounded, body, 'body'));
    t.is(error.code, 'invalid_parameter');
    t.is(error.message, message);
  }
  const query = apiError(t, () => parseRequestPart(Bounded, { times: 0 }, 'query'));
  t.is(query.message, "The query parameter 'times' is too small: it must be at least 1 (got 0).");
});

test('a value outside an enum lists the allowed values', (t) => {
  const error = apiError(t, () => parseRequestPart(Body, { ...valid, type: 'pirate' }, 'body'));
  t.is(error.code, 'invalid_parameter');
  t.is(error.param, 'type');
  t.regex(error.message, /customer_support, sales/);
});

test('fieldCodes map a field to its own error code', (t) => {
  const error = apiError(t, () =>
    parseRequestPart(Body, { ...valid, autonomy_level: 'L9' }, 'body', {
      autonomy_level: 'invalid_autonomy_level',
    }),
  );
  t.is(error.code, 'invalid_autonomy_level');
  t.is(error.status, 400);
  t.is(error.param, 'autonomy_level');
  // Other fields keep the generic code.
  const other = apiError(t, () =>
    parseRequestPart(Body, { ...valid, type: 'x' }, 'body', {
      autonomy_level: 'invalid_autonomy_level',
    }),
  );
  t.is(other.code, 'invalid_parameter');
});

test('a missing field stays missing_required_field even when it has a field code', (t) => {
  const { autonomy_level: _drop, ...rest } = valid;
  const missing = apiError(t, () =>
    parseRequestPart(Body, rest, 'body', { autonomy_level: 'invalid_autonomy_level' }),
  );
  t.is(missing.code, 'missing_required_field');
  t.deepEqual(missing.extras.required_fields, ['autonomy_level']);
});

test('unknown keys are refused with the key as param (strict objects)', (t) => {
  const top = apiError(t, () => parseRequestPart(Body, { ...valid, colour: 'red' }, 'body'));
  t.is(top.code, 'invalid_parameter');
  t.is(top.param, 'colour');
  t.regex(top.message, /Unknown field 'colour'/);

  const nested = apiError(t, () =>
    parseRequestPart(Body, { ...valid, config: { model: 'm', extra: 1 } }, 'body'),
  );
  t.is(nested.code, 'invalid_parameter');
  t.is(nested.param, 'config.extra');
});

test('a body that is not a JSON object is invalid_request_body', (t) => {
  for (const input of [[], [valid], 'text', '', 42, true, null]) {
    const error = apiError(t, () => parseRequestPart(Body, input, 'body'));
    t.is(error.code, 'invalid_request_body', `input ${JSON.stringify(input)}`);
    t.is(error.status, 400);
  }
});

test('query parameters: unknown ones and a bad limit name the parameter', (t) => {
  t.deepEqual(parseRequestPart(ListQuery, { limit: '5' }, 'query'), { limit: 5 });
  t.deepEqual(parseRequestPart(ListQuery, undefined, 'query'), {});

  const unknown = apiError(t, () => parseRequestPart(ListQuery, { page: '2' }, 'query'));
  t.is(unknown.code, 'invalid_parameter');
  t.is(unknown.param, 'page');
  t.regex(unknown.message, /query parameter 'page'/);

  for (const limit of ['0', '101', '2.5', '-1', 'ten', '']) {
    const error = apiError(t, () => parseRequestPart(ListQuery, { limit }, 'query'));
    t.is(error.code, 'invalid_parameter', `limit=${limit}`);
    t.is(error.param, 'limit');
  }
  for (const limit of ['1', '100', '20']) {
    t.is(parseRequestPart(ListQuery, { limit }, 'query').limit, Number(limit));
  }
});

test('path parameters are described as such', (t) => {
  const Params = z.strictObject({ id: z.string().startsWith('agt_') });
  const error = apiError(t, () => parseRequestPart(Params, { id: 'nope' }, 'params'));
  t.is(error.code, 'invalid_parameter');
  t.is(error.param, 'id');
  t.regex(error.message, /path parameter 'id'/);
});
