// Expressions and `{{ }}` interpolation for workflow steps, on angular-expressions (AngularJS's
// $parse: member paths, comparisons, && / ||; members read as own properties only), loaded into
// a JavaScript realm of its own (expression-realm.ts).
// A missing path evaluates to undefined, which the engine treats as null. Compiled expressions are
// cached by their text (least recently used, bounded in characters: text-cache.ts), so a hot
// workflow parses each expression once; a plain path (`a.b.c`, most interpolations) is read
// directly, the way the library reads it (see plainPath).
//
// The library compiles in its `csp` mode: it interprets the parsed tree (closures) instead of
// generating JavaScript source and compiling it with `new Function`. Measured on 2,000-character
// expressions of 17 shapes (a loaded 2-core machine): generating took 3.6-19 ms per expression,
// mostly V8 parsing the generated source, several times the expression's length; interpreting
// 0.4-3.2 ms, and evaluating costs the same either way (17-34 µs for a typical condition, most
// of it the library's guard). Each expression of a workflow is compiled when it is written and
// again when a run needs it and the cache no longer holds it, so this is what a large workflow
// holds the event loop for (issue 38). The one difference seen: calling a value that is not a
// function is undefined (null) as calling a missing one is, where generated code threw.
import { expressionLibrary } from './expression-realm.js';
import { secretUseProblem, type ExpressionNode } from './secret-use.js';
import { TextCache } from './text-cache.js';

export type Scope = Record<string, unknown>;
/** A compiled expression, with the library's parsed form of it. */
type Compiled = ((scope: Scope) => unknown) & { ast: ExpressionNode };

export class ExpressionError extends Error {
  constructor(
    readonly expression: string,
    reason: string,
  ) {
    super(`Invalid expression '${expression}': ${reason}`);
  }
}

/** Thrown while evaluating when `secrets.NAME` names no secret of the workspace. */
export class MissingSecretError extends Error {
  constructor(readonly secretName: string) {
    super(
      `The secret '${secretName}' is not set in this workspace. Set it with: svc secrets set ${secretName} VALUE`,
    );
  }
}

/** What the caches keep: entries, and characters of their keys (see text-cache.ts). */
const CACHE_ENTRIES = 5000;
/** A compiled expression holds 35-125 bytes per character of its text: at most ~60 MB. */
const COMPILED_CHARS = 500_000;
const cache = new TextCache<Compiled>(CACHE_ENTRIES, COMPILED_CHARS);

/** How deep brackets ( [ { may nest in an expression (the parser recurses per level). */
export const MAX_EXPRESSION_DEPTH = 32;
/** Characters that interpolating one step's config may produce, in all. */
export const MAX_INTERPOLATED_CHARS = 1_000_000;

/**
 * Why an expression nests too deep; undefined when within the bound. (Its length is bounded
 * when a workflow is written: MAX_EXPRESSION_LENGTH in workflows/graph.ts.)
 */
export function expressionBoundProblem(source: string): string | undefined {
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!;
    if (quote) {
      if (char === '\\') i++;
      else if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === '(' || char === '[' || char === '{') {
      depth += 1;
      if (depth > MAX_EXPRESSION_DEPTH)
        return `its brackets nest more than ${MAX_EXPRESSION_DEPTH} levels`;
    } else if (char === ')' || char === ']' || char === '}') depth = Math.max(0, depth - 1);
  }
  return undefined;
}

/**
 * Compiles an expression; throws ExpressionError on a syntax error, nesting too deep, or a use
 * of secrets other than whole (secret-use.ts). `secretsAllowed` false (a condition) refuses any
 * use of secrets. Checked when a workflow is written and again when it runs, so a workflow
 * stored before the rule cannot use a secret otherwise either.
 */
export function compile(source: string, secretsAllowed = true): Compiled {
  let compiled = cache.get(source);
  if (compiled && secretsAllowed) return compiled;
  compiled ??= parse(source);
  const problem = secretUseProblem(compiled.ast, secretsAllowed);
  if (problem) throw new ExpressionError(shorten(source), problem);
  // What passes without secrets passes with them: the cache holds only checked expressions.
  cache.set(source, compiled);
  return compiled;
}

/** The library's `csp` mode (see the top; its types leave the option out of compile's). */
const INTERPRETED = { csp: true } as Parameters<ReturnType<typeof expressionLibrary>['compile']>[1];

/** The library's compiled form (throws ExpressionError on a syntax error or nesting too deep). */
function parse(source: string): Compiled {
  const text = source.trim();
  if (text === '') throw new ExpressionError(source, 'it is empty');
  const problem = expressionBoundProblem(text);
  if (problem) throw new ExpressionError(shorten(source), problem);
  try {
    return expressionLibrary().compile(text, INTERPRETED) as Compiled;
  } catch (error) {
    throw new ExpressionError(source, reasonOf(error).replace(/^\[\$parse:\w+\]\s*/, ''));
  }
}

/** An over-long expression, cut for the error message. */
function shorten(source: string): string {
  return source.length > 80 ? `${source.slice(0, 77)}...` : source;
}

/** Evaluates an expression; undefined (a missing path) becomes null. */
export function evaluate(source: string, scope: Scope): unknown {
  const path = plainPath(source);
  const looked = path && lookUp(path, scope);
  const value = looked ? looked.value : run(compile(source), source, scope);
  return value === undefined ? null : value;
}

/**
 * Runs a compiled expression. What the library throws while evaluating (a string too long,
 * a call of something that is not a function) is the expression's fault: an ExpressionError.
 * The scope's own errors (a missing or refused secret) go through as they are. An array or
 * object the expression built (`[a, b]`, `{x: a}`) was made in the library's realm: it is copied
 * into the daemon's, so that what a step gets is ordinary data.
 */
function run(compiled: Compiled, source: string, scope: Scope): unknown {
  try {
    const value = compiled(scope);
    return typeof value === 'object' && value !== null && !(value instanceof Object)
      ? structuredClone(value)
      : value;
  } catch (error) {
    if (error instanceof MissingSecretError || error instanceof ExpressionError) throw error;
    throw new ExpressionError(shorten(source), reasonOf(error));
  }
}

/**
 * The first line of an error's message (the library adds a documentation URL on the next). Its
 * errors come from its own realm: not `instanceof Error`.
 */
function reasonOf(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return (typeof message === 'string' ? message : String(error)).split('\n')[0]!;
}

const PLAIN_PATH = /^\s*[A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*\s*$/;
const LIBRARY_NAMES = new Set(['true', 'false', 'null', 'undefined', 'this', '$locals']);
const paths = new TextCache<string[] | null>(CACHE_ENTRIES, COMPILED_CHARS);

/**
 * `a.b.c` as its names, or null for any other expression. Most expressions of a workflow are
 * such paths (`{{trigger.payload.text}}`), and an evaluation by angular-expressions costs 2-5 µs
 * (its guard deletes and restores its realm's Function.prototype.constructor every time).
 */
function plainPath(source: string): string[] | null {
  let path = paths.get(source);
  if (path === undefined) {
    path = PLAIN_PATH.test(source) ? source.split('.').map((name) => name.trim()) : null;
    // Literals and the library's own names are its to read; `secrets` other than one whole
    // secret goes to compile, which refuses it.
    if (path && (LIBRARY_NAMES.has(path[0]!) || (path[0] === 'secrets' && path.length !== 2)))
      path = null;
    paths.set(source, path);
  }
  return path;
}

/**
 * A path through plain objects, read as angular-expressions reads it: own properties only, and
 * a missing step is undefined. Anything else (a string's length, an array) goes to the library.
 */
function lookUp(path: string[], scope: Scope): { value: unknown } | undefined {
  let current: unknown = scope;
  for (const name of path) {
    if (current === null || current === undefined) return { value: undefined };
    if (typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = Object.hasOwn(current, name) ? (current as Record<string, unknown>)[name] : undefined;
  }
  return { value: current };
}

const WRAPPED = /^\s*\{\{([\s\S]*)\}\}\s*$/;

/** A condition is an expression without braces; `{{ expr }}` is accepted too. */
export function conditionSource(condition: string): string {
  const wrapped = WRAPPED.exec(condition);
  return wrapped && !wrapped[1]!.includes('{{') ? wrapped[1]! : condition;
}

export function evaluateCondition(condition: string, scope: Scope): boolean {
  return Boolean(evaluate(conditionSource(condition), scope));
}

type Part = { text: string } | { expr: string };

/** Splits "Hello {{ a.b }}!" into text and expression parts. */
export function templateParts(text: string): Part[] {
  const parts: Part[] = [];
  let rest = text;
  for (;;) {
    const open = rest.indexOf('{{');
    if (open === -1) break;
    const close = rest.indexOf('}}', open + 2);
    if (close === -1) break;
    if (open > 0) parts.push({ text: rest.slice(0, open) });
    parts.push({ expr: rest.slice(open + 2, close) });
    rest = rest.slice(close + 2);
  }
  if (rest !== '') parts.push({ text: rest });
  return parts;
}

/** A config string and its parts hold about twice its text. */
const partsCache = new TextCache<Part[]>(CACHE_ENTRIES, 2_000_000);

/** templateParts of a step's config string, split once (configs are interpolated on every run). */
function cachedParts(text: string): Part[] {
  let parts = partsCache.get(text);
  if (!parts) {
    parts = templateParts(text);
    partsCache.set(text, parts);
  }
  return parts;
}

/** Every expression of a template string, for checking at write time. */
export function templateExpressions(text: string): string[] {
  return templateParts(text).flatMap((part) => ('expr' in part ? [part.expr] : []));
}

/**
 * Characters that interpolation may produce across all the step attempts of one run. The per-step
 * bound alone let a run multiply its input: a 900 KB hook body handed to the 50 branches of a
 * parallel step was 45,000,000 characters for the agents to read and store (issue 51).
 */
export const MAX_RUN_INTERPOLATED_CHARS = 10_000_000;

const count = (n: number) => n.toLocaleString('en-US');

/** Thrown when a step's interpolation would take its run past MAX_RUN_INTERPOLATED_CHARS. */
export class RunBudgetError extends Error {
  constructor(stepId: string, before: number, adding: number) {
    super(
      `Step '${stepId}' would take its run's interpolated input past ${count(MAX_RUN_INTERPOLATED_CHARS)} characters ` +
        `(the run's steps had produced ${count(before)}, and this step's expressions ${count(adding)} more): ` +
        `every {{...}} counts each time a step reads it. Hand a large value (a webhook body, {{trigger.payload}}) ` +
        `to one step and pass the others its result or the parts they need, or split the work into several runs.`,
    );
  }
}

/**
 * What interpolating one step's config may still produce: MAX_INTERPOLATED_CHARS in all (a config
 * of many `{{trigger.payload}}` would otherwise copy a large payload many times over), and what
 * is left of its run's MAX_RUN_INTERPOLATED_CHARS (`run`: what the run's other step attempts
 * produced, and the step's id for the error). `used` is what this step produced so far.
 */
export class InterpolationBudget {
  private spent = 0;
  private readonly sizes = new WeakMap<object, number>();

  constructor(
    private readonly run?: {
      stepId: string;
      /** What the run's other step attempts produced, read at each charge (they run meanwhile). */
      before: () => number;
      /** Hears each charge with the step's total so far (a step running outside a transaction). */
      onCharge?: (used: number) => void;
    },
  ) {}

  get used(): number {
    return this.spent;
  }

  /** Counts a value an expression produced (objects by their JSON size). */
  charge(value: unknown, text: string): void {
    let size = 0;
    if (typeof value === 'string') size = value.length;
    else if (value !== null && typeof value === 'object') {
      size = this.sizes.get(value) ?? JSON.stringify(value)?.length ?? 0;
      this.sizes.set(value, size);
    }
    if (this.spent + size > MAX_INTERPOLATED_CHARS) {
      throw new ExpressionError(
        shorten(text),
        `the step's config expands to more than ${count(MAX_INTERPOLATED_CHARS)} characters`,
      );
    }
    const before = this.run?.before() ?? 0;
    if (this.run && before + this.spent + size > MAX_RUN_INTERPOLATED_CHARS) {
      throw new RunBudgetError(this.run.stepId, before, this.spent + size);
    }
    this.spent += size;
    this.run?.onCharge?.(this.spent);
  }
}

/**
 * Interpolates a string: exactly one `{{expr}}` keeps the value's type; expressions embedded in
 * text become text (objects as JSON, null as an empty string).
 */
export function interpolateString(
  text: string,
  scope: Scope,
  budget = new InterpolationBudget(),
): unknown {
  if (!text.includes('{{')) return text;
  const parts = cachedParts(text);
  if (parts.length === 1 && 'expr' in parts[0]!) {
    const value = evaluate(parts[0].expr, scope);
    budget.charge(value, text);
    return value;
  }
  const texts = parts.map((part) => {
    if (!('expr' in part)) return part.text;
    const value = asText(evaluate(part.expr, scope));
    budget.charge(value, text);
    return value;
  });
  return texts.join('');
}

/** Interpolates every string inside a JSON-like value (object keys stay as they are). */
export function interpolate(
  value: unknown,
  scope: Scope,
  budget = new InterpolationBudget(),
): unknown {
  if (typeof value === 'string') return interpolateString(value, scope, budget);
  if (Array.isArray(value)) return value.map((item) => interpolate(item, scope, budget));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = interpolate(item, scope, budget);
    return out;
  }
  return value;
}

/** Calls `visit` with the path and text of every string inside a JSON-like value. */
export function eachString(
  value: unknown,
  path: string,
  visit: (path: string, text: string) => void,
): void {
  if (typeof value === 'string') visit(path, value);
  else if (Array.isArray(value))
    value.forEach((item, i) => eachString(item, `${path}[${i}]`, visit));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) eachString(item, `${path}.${key}`, visit);
  }
}

function asText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * The `secrets` object of a run's scope: reads a secret when an expression touches it, records
 * which were used (so their values can be masked), and fails naming a missing one.
 */
export function secretsScope(
  reveal: (name: string) => string | undefined,
  used: Map<string, string>,
): Record<string, string> {
  const read = (key: string | symbol): string | undefined => {
    if (typeof key !== 'string') return undefined;
    const known = used.get(key);
    if (known !== undefined) return known;
    const value = reveal(key);
    if (value === undefined) throw new MissingSecretError(key);
    used.set(key, value);
    return value;
  };
  // angular-expressions reads only own properties: describe each secret as one.
  return new Proxy({} as Record<string, string>, {
    get: (_target, key) => read(key),
    has: () => true,
    getOwnPropertyDescriptor: (_target, key) => {
      const value = read(key);
      return value === undefined
        ? undefined
        : { value, writable: false, enumerable: true, configurable: true };
    },
  });
}

/**
 * The `secrets` object of a condition's scope: reading it fails. A branch taken on a secret's
 * value would tell it (in the stored result and the path the run takes), and nothing a
 * condition produces can be masked.
 */
export function refusedSecrets(condition: string): Record<string, string> {
  const refuse = (): never => {
    throw new ExpressionError(condition, 'conditions cannot read secrets');
  };
  return new Proxy({} as Record<string, string>, {
    get: refuse,
    has: () => true,
    getOwnPropertyDescriptor: refuse,
  });
}
