// A sandbox stub's `match`: a case-insensitive substring, or /regex/flags run by RE2 (the `re2`
// package: Google's automaton engine, compiled at install like better-sqlite3). RE2 matches in
// time linear in the input, so no pattern, however nested its quantifiers, can stall the
// daemon; it has no backreferences or lookaround, and a pattern that needs them is refused when
// the stub is added, naming the feature.
import RE2 from 're2';
import { ApiError } from './errors.js';

export type StubMatcher = (input: string) => boolean;

/** Features RE2 leaves out by design (they need backtracking), as users write them. */
const UNSUPPORTED: [RegExp, string][] = [
  [/\\[1-9]|\\k</, 'backreferences (\\1, \\k<name>)'],
  [/\(\?<[=!]/, 'lookbehind ((?<=...), (?<!...))'],
  [/\(\?[=!]/, 'lookahead ((?=...), (?!...))'],
];

/** Compiles `match` (param `param`); a regex RE2 cannot run is 400 invalid_parameter. */
export function compileStubMatch(match: string, param = 'match'): StubMatcher {
  const regex = /^\/(.+)\/([gimsuy]*)$/s.exec(match);
  if (!regex) {
    const needle = match.toLowerCase();
    return (input) => input.toLowerCase().includes(needle);
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
  let pattern: RE2;
  try {
    pattern = new RE2(source, flags.replace(/[gy]/g, ''));
  } catch (error) {
    throw new ApiError(
      'invalid_parameter',
      `'${match}' is not a regular expression RE2 can run (${(error as Error).message}). ` +
        'Stub patterns support the usual syntax without backreferences and lookaround.',
      { param },
    );
  }
  return (input) => pattern.test(input);
}
