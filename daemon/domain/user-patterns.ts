// Regular expressions that users write (sandbox stubs: `--match '/.../flags'`). V8's RegExp
// backtracks, so one pattern such as /(a+)+$/ on a 40-character input runs for minutes and
// blocks every request of the daemon. These run on RE2 (the re2 package, Google's automaton
// engine), whose matching time is linear in the input whatever the pattern. RE2 has no
// backreferences or lookaround: such a pattern is refused when it is written (400
// invalid_parameter naming the field and the feature), never when it runs.
import RE2 from 're2';
import { ApiError } from './errors.js';

/** A compiled user pattern: test() runs in time linear in the input. */
export interface UserRegex {
  test(input: string): boolean;
}

/** `/source/flags`, the way a user writes a pattern in a text field (other text is no pattern). */
const SLASHED = /^\/(.+)\/([gimsuy]*)$/s;

const compiled = new Map<string, UserRegex>();
const CACHE_LIMIT = 2000;

/** Splits `/source/flags`; undefined when the text is not written that way. */
export function slashedPattern(text: string): { source: string; flags: string } | undefined {
  const parts = SLASHED.exec(text);
  return parts ? { source: parts[1]!, flags: parts[2]! } : undefined;
}

/**
 * Compiles a user's pattern with RE2, once per distinct text (cached). Throws 400
 * invalid_parameter with `param` when the pattern uses a feature RE2 cannot run, or is not a
 * regular expression at all. The g flag means nothing for a yes/no match and is dropped.
 */
export function compileUserRegex(source: string, flags: string, param: string): UserRegex {
  const key = `/${source}/${flags}`;
  const cached = compiled.get(key);
  if (cached) return cached;
  const feature = unsupportedFeature(source);
  if (feature) {
    throw new ApiError(
      'invalid_parameter',
      `'${key}' uses ${feature}, which is not supported: patterns run on RE2 (linear time, no backtracking). Rewrite it without ${feature}.`,
      { param },
    );
  }
  let regex: RE2;
  try {
    regex = new RE2(source, flags.replace('g', ''));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ApiError(
      'invalid_parameter',
      `'${key}' is not a valid regular expression (${reason}). Patterns run on RE2: see its syntax at github.com/google/re2/wiki/Syntax.`,
      { param },
    );
  }
  const matcher: UserRegex = { test: (input) => regex.test(input) };
  if (compiled.size >= CACHE_LIMIT) compiled.clear();
  compiled.set(key, matcher);
  return matcher;
}

/**
 * The first construct of `source` that RE2 cannot run, named for the user: backreferences and
 * lookaround. Escapes and character classes are skipped, so `\\1` or `[(?=]` are not flagged.
 */
export function unsupportedFeature(source: string): string | undefined {
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!;
    if (char === '\\') {
      const next = source[i + 1] ?? '';
      if (!inClass && /[1-9]/.test(next)) return `a backreference (\\${next})`;
      if (!inClass && next === 'k' && source[i + 2] === '<')
        return 'a named backreference (\\k<name>)';
      i++;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      continue;
    }
    if (char === '[') inClass = true;
    else if (char === '(' && source[i + 1] === '?') {
      const rest = source.slice(i + 2, i + 4);
      if (rest.startsWith('=')) return 'a lookahead (?=...)';
      if (rest.startsWith('!')) return 'a negative lookahead (?!...)';
      if (rest === '<=') return 'a lookbehind (?<=...)';
      if (rest === '<!') return 'a negative lookbehind (?<!...)';
    }
  }
  return undefined;
}
