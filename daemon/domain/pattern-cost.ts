// What a user pattern costs to match, before it ever runs. RE2 matches in time linear in the
// input, but the factor is the size of the compiled program: when its automaton outgrows RE2's
// cache, every input character steps every instruction (`/[\s\S]{1000}[\s\S]{1000}[\s\S]{1000}c/`
// took 13.75 s over 300,000 characters). It is bounded from above here, from the pattern's syntax:
// each atom weighs what one of its copies was measured to cost per input character in the worst
// case (README, Security), and a counted repetition {n,m} multiplies what it repeats by its
// largest count, as RE2 unrolls it. (RE2JS reports its program's size, but there a Unicode class is
// one instruction however many ranges it holds, so it would undercount what the weights measure.)
//
// It reads RE2's own syntax (pattern-syntax.ts's translation of the user's /regex/), after RE2JS
// has accepted it, so the syntax is valid: a JavaScript regex parser would misread what only RE2
// has (\Q...\E, (?P<name>...), [[:alpha:]], \pL) and could undercount. Where this reading is
// unsure it counts more, never less.

/** An ASCII character, an anchor or a word boundary: the unit (about 5 ns per input character). */
const LITERAL = 1;
/** `.`, `\d \w \s` and their negations, a class of ASCII characters, a non-ASCII character. */
const CLASS = 12;
/** A Unicode class: `\p{...}`, `\P{...}`, or a bracket class holding a non-ASCII character. */
const UNICODE_CLASS = 36;

interface Frame {
  /** The weight of the group's alternatives so far (alternatives add up: all may run). */
  total: number;
  /** The weight of the last atom, which a quantifier that follows applies to. */
  last: number;
}

/** An upper bound on the work per input character of RE2's program for `source`. */
export function patternCost(source: string): number {
  const chars = Array.from(source); // code points: a surrogate pair is one character
  const stack: Frame[] = [{ total: 0, last: 0 }];
  let frame = stack[0]!;
  const atom = (weight: number) => {
    frame.total += weight;
    frame.last = weight;
  };
  let i = 0;
  while (i < chars.length) {
    const c = chars[i]!;
    if (c === '\\') {
      const [weight, next] = escape(chars, i);
      atom(weight);
      i = next;
    } else if (c === '[') {
      const [weight, next] = bracketClass(chars, i);
      atom(weight);
      i = next;
    } else if (c === '(') {
      // (?flags) and (?flags:, (?P<name>, (?<name>: the header is not text to match.
      i += 1;
      if (chars[i] === '?') {
        while (i < chars.length && chars[i] !== ':' && chars[i] !== ')' && chars[i] !== '>') i++;
        if (chars[i] === ':' || chars[i] === '>') i += 1;
      }
      frame = { total: 0, last: 0 };
      stack.push(frame);
    } else if (c === ')') {
      const inner = stack.length > 1 ? stack.pop()! : { total: 0, last: 0 };
      frame = stack.at(-1)!;
      atom(inner.total + LITERAL); // the capture (or empty-width) instructions around it
      i += 1;
    } else if (c === '*' || c === '+' || c === '?') {
      // The loop instruction; a lazy `?` after a quantifier is counted too (more, not less).
      frame.total += LITERAL;
      frame.last += LITERAL;
      i += 1;
    } else if (c === '{' && repetition(chars, i)) {
      const [count, next] = repetition(chars, i)!;
      // RE2 writes x{n,m} out as n copies and m-n optional ones, x{n,} as n copies and a loop.
      const added = frame.last * (count - 1);
      frame.total += added;
      frame.last += added;
      i = next;
    } else if (c === '|') {
      frame.total += LITERAL;
      frame.last = 0;
      i += 1;
    } else {
      atom(c === '.' ? CLASS : literal(c));
      i += 1;
    }
  }
  // An unclosed group cannot reach here (RE2 refused the pattern), but count it all the same.
  return stack.reduce((sum, open) => sum + open.total, 0);
}

function literal(c: string): number {
  return c.codePointAt(0)! < 0x80 ? LITERAL : CLASS;
}

/** The largest count of a repetition {n}, {n,} or {n,m} at `i` (x{n,} counts n+1), or undefined. */
function repetition(chars: string[], i: number): [number, number] | undefined {
  const close = chars.indexOf('}', i);
  if (close < 0) return undefined;
  const match = /^\{(\d+)(,(\d*))?\}$/.exec(chars.slice(i, close + 1).join(''));
  if (!match) return undefined; // `{` that is not a repetition is a literal, as in RE2
  const from = Number(match[1]);
  const to = match[2] === undefined ? from : match[3] === '' ? from + 1 : Number(match[3]);
  return [Math.max(from, to, 1), close + 1];
}

/** The weight of the escape at `i` (a backslash) and where it ends. */
function escape(chars: string[], i: number): [number, number] {
  const c = chars[i + 1] ?? '';
  if (c === 'Q') {
    // \Q...\E: literal text.
    let weight = 0;
    let j = i + 2;
    while (j < chars.length && !(chars[j] === '\\' && chars[j + 1] === 'E')) {
      weight += literal(chars[j]!);
      j += 1;
    }
    return [weight, Math.min(j + 2, chars.length)];
  }
  if (c === 'p' || c === 'P') {
    return [UNICODE_CLASS, chars[i + 2] === '{' ? endOf(chars, i + 2, '}') : i + 3];
  }
  if (c === 'x') {
    const end = chars[i + 2] === '{' ? endOf(chars, i + 2, '}') : i + 4;
    const hex = chars
      .slice(i + 2, end)
      .join('')
      .replace(/[{}]/g, '');
    return [parseInt(hex, 16) < 0x80 ? LITERAL : CLASS, end];
  }
  if (/[0-7]/.test(c)) {
    // Octal: up to three digits (\351 is é).
    let end = i + 1;
    while (end < i + 4 && /[0-7]/.test(chars[end] ?? '')) end += 1;
    return [parseInt(chars.slice(i + 1, end).join(''), 8) < 0x80 ? LITERAL : CLASS, end];
  }
  if ('dDwWsSC'.includes(c)) return [CLASS, i + 2];
  return [literal(c || '\\'), i + 2];
}

/** The weight of the bracket class at `i` and where it ends. */
function bracketClass(chars: string[], i: number): [number, number] {
  let j = i + 1;
  if (chars[j] === '^') j += 1;
  if (chars[j] === ']') j += 1; // a leading ] is a member
  let unicode = false;
  while (j < chars.length && chars[j] !== ']') {
    const c = chars[j]!;
    if (c === '[' && chars[j + 1] === ':') {
      j = endOf(chars, j, ']'); // [:alpha:] (ASCII)
    } else if (c === '\\') {
      const [weight, next] = escape(chars, j);
      if (weight > CLASS || (weight === CLASS && !'dDwWsS'.includes(chars[j + 1]!))) unicode = true;
      j = next;
    } else {
      if (literal(c) !== LITERAL) unicode = true;
      j += 1;
    }
  }
  return [unicode ? UNICODE_CLASS : CLASS, j + 1];
}

/** The index after the first `close` from `i` (or the end). */
function endOf(chars: string[], i: number, close: string): number {
  const at = chars.indexOf(close, i);
  return at < 0 ? chars.length : at + 1;
}
