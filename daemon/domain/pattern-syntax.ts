// A user's /regex/ is written in JavaScript's syntax; RE2JS reads RE2's. They agree on almost
// everything (RE2JS also reads (?<name>...) and an unescaped /), so only what RE2 lacks is
// rewritten, as the `re2` package svc used before did it: the same patterns are accepted, and
// pattern-cost.ts counts the same RE2 syntax for them. What neither has (\e, [^]) stays an error
// rather than being guessed at.
//
// RE2JS.translateRegExp is not used: it reads \e or \Z as a letter (so a mistyped escape would
// silently match the letter) and leaves \p{Letter} and \p{Script=Greek}, which RE2 refuses.

/** JavaScript's long names of Unicode general categories, as RE2 spells them. */
const CATEGORY: Readonly<Record<string, string>> = {
  Uppercase_Letter: 'Lu',
  Lowercase_Letter: 'Ll',
  Titlecase_Letter: 'Lt',
  Cased_Letter: 'LC',
  Modifier_Letter: 'Lm',
  Other_Letter: 'Lo',
  Letter: 'L',
  Nonspacing_Mark: 'Mn',
  Spacing_Mark: 'Mc',
  Enclosing_Mark: 'Me',
  Mark: 'M',
  Decimal_Number: 'Nd',
  Letter_Number: 'Nl',
  Other_Number: 'No',
  Number: 'N',
  Connector_Punctuation: 'Pc',
  Dash_Punctuation: 'Pd',
  Open_Punctuation: 'Ps',
  Close_Punctuation: 'Pe',
  Initial_Punctuation: 'Pi',
  Final_Punctuation: 'Pf',
  Other_Punctuation: 'Po',
  Punctuation: 'P',
  Math_Symbol: 'Sm',
  Currency_Symbol: 'Sc',
  Modifier_Symbol: 'Sk',
  Other_Symbol: 'So',
  Symbol: 'S',
  Space_Separator: 'Zs',
  Line_Separator: 'Zl',
  Paragraph_Separator: 'Zp',
  Separator: 'Z',
  Control: 'Cc',
  Format: 'Cf',
  Surrogate: 'Cs',
  Private_Use: 'Co',
  Unassigned: 'Cn',
  Other: 'C',
};

/**
 * `source` in RE2's syntax: \uXXXX and \u{X...} become \x{...}, \cA-\cZ a \xNN control
 * character, \p{Letter} \p{L}, \p{Script=Greek} and \p{sc=Greek} \p{Greek}. The rest is copied.
 */
export function toRe2Syntax(source: string): string {
  let out = '';
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (c !== '\\') {
      out += c;
      i += 1;
      continue;
    }
    const next = source[i + 1] ?? '';
    if (next === 'u' && isHex(source[i + 2])) {
      // Up to four digits, as the re2 package read them (\u41 is A).
      let end = i + 3;
      while (end < i + 6 && isHex(source[end])) end += 1;
      out += `\\x{${source.slice(i + 2, end)}}`;
      i = end;
    } else if (next === 'u' && source[i + 2] === '{') {
      out += '\\x';
      i += 2;
    } else if (next === 'c' && /[A-Z]/.test(source[i + 2] ?? '')) {
      const code = source.charCodeAt(i + 2) - 0x40;
      out += `\\x${code.toString(16).toUpperCase().padStart(2, '0')}`;
      i += 3;
    } else if ((next === 'p' || next === 'P') && source[i + 2] === '{') {
      const close = source.indexOf('}', i + 3);
      if (close < 0) {
        out += source.slice(i, i + 2);
        i += 2;
        continue;
      }
      const name = unicodeClass(source.slice(i + 3, close));
      out += `\\${next}${name.length === 1 ? name : `{${name}}`}`;
      i = close + 1;
    } else {
      // Any other escape (\\ included) is RE2's too, or an error RE2 reports.
      out += source.slice(i, i + 2);
      i += 2;
    }
  }
  return out;
}

/** RE2's name for the Unicode class JavaScript calls `name`. */
function unicodeClass(name: string): string {
  if (Object.hasOwn(CATEGORY, name)) return CATEGORY[name]!;
  const script = /^(?:Script|sc)=(.+)$/.exec(name);
  return script ? script[1]! : name;
}

function isHex(c: string | undefined): boolean {
  return c !== undefined && /^[0-9A-Fa-f]$/.test(c);
}
