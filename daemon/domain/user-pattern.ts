// A sandbox stub's or fault rule's `match`: a case-insensitive substring, or /regex/flags run by
// RE2JS (the `re2js` package: a pure JavaScript port of Google's RE2 automaton engine, so nothing
// is compiled at install). RE2 has no backreferences or lookaround (they need backtracking); a
// pattern that needs them is refused when it is added, naming the feature. RE2 matches in time
// linear in the input, with a factor that grows with the pattern's compiled size, so matching is
// bounded on both sides: a pattern's cost (pattern-cost.ts) is at most MAX_PATTERN_COST, and it
// sees the first PATTERN_INPUT_CHARS characters of an input. Measured worst case: README, Security.
import { RE2JS } from 're2js';
import { ApiError } from './errors.js';
import { patternCost } from './pattern-cost.js';
import { toRe2Syntax } from './pattern-syntax.js';

/** Whether an input matches, and what the pattern costs (0 for a substring). */
export type StubMatcher = ((input: string) => boolean) & { readonly cost: number };

/**
 * The most a pattern may cost, and the most the patterns matched against one input together
 * (one agent's stubs, one workspace's fault rules) may: a character 1, a class 12, a Unicode
 * class 36, times the largest count of each repetition.
 */
export const MAX_PATTERN_COST = 400;
/**
 * The characters of an input a /regex/ sees (a substring is looked for in all of it). In its
 * slowest case RE2JS takes about twice the time of the C++ `re2` package svc used before (README,
 * Security), so this is half the 4,096 it had: one input's costliest stub and fault rule together
 * stay under 100 ms.
 */
export const PATTERN_INPUT_CHARS = 2_048;

/** How the cost is counted, for messages that refuse one. */
export const PATTERN_COST_RULE =
  'a character counts 1, a class such as . or \\d 12, a Unicode class such as \\p{L} 36, ' +
  'and a repetition {n,m} multiplies what it repeats by its largest count';

/** Features RE2 leaves out by design (they need backtracking), as users write them. */
const UNSUPPORTED: [RegExp, string][] = [
  [/\\[1-9]|\\k</, 'backreferences (\\1, \\k<name>)'],
  [/\(\?<[=!]/, 'lookbehind ((?<=...), (?<!...))'],
  [/\(\?[=!]/, 'lookahead ((?=...), (?!...))'],
];

/** Compiles `match` (param `param`); a regex RE2 cannot run, or one over the cost, is 400. */
export function compileStubMatch(match: string, param = 'match'): StubMatcher {
  const regex = /^\/(.+)\/([gimsuy]*)$/s.exec(match);
  if (!regex) {
    const needle = match.toLowerCase();
    return Object.assign((input: string) => lowerCase(input).includes(needle), { cost: 0 });
  }
  const [, source, flags] = regex as unknown as [string, string, string];
  const unsupported = UNSUPPORTED.find(([feature]) => feature.test(source));
  if (unsupported) {
    throw new ApiError(
      'invalid_parameter',
      `'${match}' uses ${unsupported[1]}, which stub patterns do not support: they run on RE2, ` +
        'which matches in linear time. Rewrite the pattern without them, or match a substring.',
      { param },
    );
  }
  // RE2's own syntax (\u00e9, \p{Letter} rewritten): what RE2JS compiles and the cost counts.
  const re2Source = toRe2Syntax(source);
  let pattern: RE2JS;
  try {
    pattern = RE2JS.compile(re2Source, flagBits(flags));
  } catch (error) {
    throw new ApiError(
      'invalid_parameter',
      `'${match}' is not a regular expression RE2 can run (${(error as Error).message}). ` +
        'Stub patterns support the usual syntax without backreferences and lookaround.',
      { param },
    );
  }
  const cost = patternCost(re2Source);
  if (cost > MAX_PATTERN_COST) {
    throw new ApiError(
      'invalid_parameter',
      `'${match}' costs ${cost} to match and a pattern may cost at most ${MAX_PATTERN_COST} ` +
        `(${PATTERN_COST_RULE}): repeat less, or match a substring.`,
      { param },
    );
  }
  return Object.assign(
    (input: string) =>
      pattern.test(
        input.length > PATTERN_INPUT_CHARS ? input.slice(0, PATTERN_INPUT_CHARS) : input,
      ),
    { cost },
  );
}

/** RE2JS's flags for a /regex/'s: g and y mean nothing to a yes-or-no match, u is always on. */
function flagBits(flags: string): number {
  let bits = 0;
  if (flags.includes('i')) bits |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes('m')) bits |= RE2JS.MULTILINE;
  if (flags.includes('s')) bits |= RE2JS.DOTALL;
  return bits;
}

/**
 * `input` lower-cased, once for all the substrings matched against it in a row (an agent's
 * stubs, a workspace's fault rules): 100 of them over a 1 MiB input would otherwise lower-case
 * 100 MiB.
 */
let lastInput = '';
let lastLowered = '';
function lowerCase(input: string): string {
  if (input !== lastInput) {
    lastInput = input;
    lastLowered = input.toLowerCase();
  }
  return lastLowered;
}
