// Turns zod's verdict on a request into the spec's errors: absent fields become
// missing_required_field (listing all of them), anything else invalid_parameter (or a
// resource-specific code the route names for that field), with param as a dotted path.
import type { z } from 'zod';
import type { ErrorCode } from '../../shared/errors.js';
import { ApiError, missingFields } from '../domain/errors.js';
import { allowedKeys } from '../domain/allowed-keys.js';

export type RequestPart = 'body' | 'query' | 'params';

/** Per-field error codes, e.g. { autonomy_level: 'invalid_autonomy_level' }. */
export type FieldCodes = Record<string, ErrorCode>;

export function parseRequestPart<T>(
  schema: z.ZodType<T>,
  input: unknown,
  part: RequestPart,
  fieldCodes: FieldCodes = {},
): T {
  if (
    part === 'body' &&
    input !== undefined &&
    (typeof input !== 'object' || input === null || Array.isArray(input))
  ) {
    throw new ApiError('invalid_request_body', 'The request body must be a JSON object.');
  }
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  throw issuesToError(result.error.issues, input ?? {}, part, fieldCodes, schema);
}

/** zod's issues as one ApiError (also for the control channel's inputs, as fields of a body). */
export function issuesToError(
  issues: readonly z.core.$ZodIssue[],
  input: unknown,
  part: RequestPart,
  fieldCodes: FieldCodes,
  /** The schema that refused the input: an unknown camelCase key is compared with its keys. */
  schema?: z.core.$ZodType,
): ApiError {
  // Whatever zod calls it (invalid_type, invalid_value for enums...), an absent value is missing.
  const missing = issues
    .filter(
      (issue) =>
        issue.code !== 'unrecognized_keys' &&
        issue.path.length > 0 &&
        valueAt(input, issue.path) === undefined,
    )
    .map((issue) => dotted(issue.path));
  if (missing.length > 0) return missingFields([...new Set(missing)]);

  const issue = issues[0]!;
  const param =
    issue.code === 'unrecognized_keys'
      ? joinPath(issue.path, issue.keys[0] ?? '')
      : dotted(issue.path);
  const code = fieldCodes[param] ?? 'invalid_parameter';
  const hint =
    issue.code === 'unrecognized_keys' && schema
      ? snakeCaseHint(issue.keys[0] ?? '', allowedKeys(schema, issue.path.map(String)))
      : '';
  return new ApiError(code, describe(issue, param, part, valueAt(input, issue.path), hint), {
    param,
  });
}

/**
 * "Did you mean 'next_step_id'?" for a camelCase key (nextStepId) whose snake_case form is a
 * key of that place: the API's fields are all snake_case, and JavaScript habits write camelCase.
 */
function snakeCaseHint(key: string, allowed: readonly string[]): string {
  const snake = key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  return snake !== key && allowed.includes(snake) ? ` Did you mean '${snake}'?` : '';
}

function describe(
  issue: z.core.$ZodIssue,
  param: string,
  part: RequestPart,
  value: unknown,
  hint: string,
): string {
  const where =
    part === 'query' ? 'query parameter' : part === 'params' ? 'path parameter' : 'field';
  const name = `${where} '${param}'`;
  switch (issue.code) {
    case 'unrecognized_keys':
      return hint
        ? `Unknown ${where} '${param}'.${hint}`
        : `Unknown ${where} '${param}'. Remove it; see /openapi.json for the accepted fields.`;
    case 'invalid_type':
      return Array.isArray(value) && part === 'query'
        ? `The ${name} was given more than once; give it once.`
        : `The ${name} must be ${article(issue.expected)}.`;
    case 'invalid_value':
      return `The ${name} must be one of: ${issue.values.map(String).join(', ')}.`;
    case 'too_small':
    case 'too_big':
      return outOfRange(issue, name, value);
    case 'invalid_format':
      // A pattern's own message says what is expected ("must look like ...", "* may only end
      // ..."); zod's default ("Invalid string: must match pattern /.../") does not.
      if (issue.format !== 'regex') return `The ${name} is not a valid ${issue.format}.`;
      if (issue.message.startsWith('must')) return `The ${name} ${issue.message}.`;
      return issue.message.startsWith('Invalid')
        ? `The ${name} does not have the expected form.`
        : `The ${name} is invalid: ${issue.message}.`;
    default:
      return `The ${name} is invalid: ${issue.message}.`;
  }
}

/**
 * A value past a bound, in one sentence: the bound zod checked, in the value's own terms
 * (a number, a length, a count of items), and what was given.
 */
function outOfRange(
  issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig,
  name: string,
  value: unknown,
): string {
  const small = issue.code === 'too_small';
  const bound = Number(small ? issue.minimum : issue.maximum);
  const limit = issue.exact ? `exactly ${bound}` : `${small ? 'at least' : 'at most'} ${bound}`;
  const strict = issue.inclusive === false;
  switch (issue.origin) {
    case 'number':
    case 'int':
      return `The ${name} is too ${small ? 'small' : 'big'}: it must be ${
        strict ? `${small ? 'greater' : 'less'} than ${bound}` : limit
      }${typeof value === 'number' ? ` (got ${value})` : ''}.`;
    case 'string': {
      const characters = `character${bound === 1 ? '' : 's'}`;
      if (small && typeof value === 'string' && value.trim() === '') {
        // A name of spaces is trimmed to nothing: "too short (got 1)" would not say why.
        return `The ${name} is blank: it takes ${limit} ${characters} other than spaces.`;
      }
      // A schema that trims checks the trimmed text: the length it had is that one.
      const got =
        typeof value !== 'string'
          ? ''
          : ` (got ${small && value.length >= bound ? value.trim().length : value.length})`;
      return `The ${name} is too ${small ? 'short' : 'long'}: it takes ${limit} ${characters}${got}.`;
    }
    case 'array':
    case 'set':
      return `The ${name} has too ${small ? 'few' : 'many'} items: it takes ${limit}${
        Array.isArray(value) ? ` (got ${value.length})` : ''
      }.`;
    default:
      return `The ${name} is too ${small ? 'small' : 'big'}: ${issue.message.replace(/^Too (small|big): /, '')}.`;
  }
}

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function dotted(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

function joinPath(path: readonly PropertyKey[], key: string): string {
  return path.length === 0 ? key : `${dotted(path)}.${key}`;
}
