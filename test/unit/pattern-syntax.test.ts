// A stub's or fault rule's /regex/ is JavaScript syntax run by RE2JS, which reads RE2's: what RE2
// lacks is rewritten (\u, \c, long Unicode class names), the same way the `re2` package did, so
// these patterns match what they say; a mistyped escape stays an error rather than a letter; and
// the flags i, m, s mean what they mean in JavaScript (u is always on).
import test from 'ava';
import { ApiError } from '../../daemon/domain/errors.js';
import { toRe2Syntax } from '../../daemon/domain/pattern-syntax.js';
import { compileStubMatch } from '../../daemon/domain/user-pattern.js';

test('JavaScript escapes RE2 lacks are rewritten in its syntax; the rest is copied', (t) => {
  const cases: [string, string][] = [
    ['\\u00e9', '\\x{00e9}'],
    ['\\u{1F600}', '\\x{1F600}'],
    ['[\\u00e0-\\u00ff]', '[\\x{00e0}-\\x{00ff}]'],
    ['\\cA\\cZ', '\\x01\\x1A'],
    ['\\p{Letter}\\P{Uppercase_Letter}', '\\pL\\P{Lu}'],
    ['\\p{Script=Greek}\\p{sc=Han}', '\\p{Greek}\\p{Han}'],
    ['\\p{L}\\p{Lu}', '\\pL\\p{Lu}'],
    ['a\\\\u0041', 'a\\\\u0041'], // an escaped backslash, then text
    ['(?<year>\\d{4})/x', '(?<year>\\d{4})/x'], // RE2JS reads both as they are
    ['\\Qa+\\E', '\\Qa+\\E'],
  ];
  for (const [source, re2] of cases) t.is(toRe2Syntax(source), re2, source);
});

test('a rewritten pattern matches what JavaScript would match', (t) => {
  const cases: [string, string, boolean][] = [
    ['/caf\\u00e9/', 'un café', true],
    ['/\\u{1F600}/u', 'hi 😀', true],
    ['/^\\p{Letter}+$/', 'Ωμέγα', true],
    ['/\\p{Script=Greek}/', 'latin only', false],
    ['/\\cA/', 'a\u0001b', true],
    ['/(?<year>\\d{4})-\\d{2}/', 'on 2024-05', true],
    ['/a\\/b/', 'x a/b', true],
    ['/a/b/', 'x a/b', true],
    ['/REFUND/i', 'a refund please', true],
    ['/^refund$/m', 'hello\nrefund\nbye', true],
    ['/^refund$/', 'hello\nrefund\nbye', false],
    ['/a.b/s', 'a\nb', true],
    ['/a.b/', 'a\nb', false],
    ['/refund/gy', 'no, a refund', true], // g and y do not anchor a yes-or-no match
  ];
  for (const [pattern, input, expected] of cases) {
    t.is(compileStubMatch(pattern)(input), expected, `${pattern} on ${JSON.stringify(input)}`);
  }
});

test('an escape neither RE2 nor JavaScript with u has is refused, not read as a letter', (t) => {
  for (const pattern of ['/\\e/', '/\\Z/', '/\\ca/', '/\\p{Letter/', '/[]/']) {
    const error = t.throws(() => compileStubMatch(pattern), { instanceOf: ApiError }, pattern);
    t.is(error.code, 'invalid_parameter', pattern);
    t.regex(error.message, /is not a regular expression RE2 can run/, pattern);
  }
});
