// The nesting check every JSON body goes through before it is parsed (daemon/domain/json-depth.ts):
// brackets inside strings (escaped quotes included) do not count, and it answers as a plain
// character-by-character scan would.
import test from 'ava';
import { exceedsDepth, MAX_JSON_DEPTH } from '../../daemon/domain/json-depth.js';

/** The plain scan, one character at a time: the reference. */
function referenceExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') {
      if (++depth > limit) return true;
    } else if (char === '}' || char === ']') depth--;
  }
  return false;
}

test('nesting past the limit is found; at the limit it is fine', (t) => {
  const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
  t.false(exceedsDepth(nested(MAX_JSON_DEPTH)));
  t.true(exceedsDepth(nested(MAX_JSON_DEPTH + 1)));
  t.false(exceedsDepth(JSON.stringify({ input: 'a'.repeat(100_000) })));
});

test('brackets in strings do not count, escaped quotes and backslashes included', (t) => {
  const inString = JSON.stringify({ text: '['.repeat(200) + '"\\' + '{'.repeat(200) });
  t.false(exceedsDepth(inString));
  t.true(exceedsDepth(`["\\\\"${'['.repeat(70)}`, 64));
  t.false(exceedsDepth(`["\\"${'['.repeat(70)}"]`, 64));
});

test('answers as the character-by-character scan on random documents', (t) => {
  const pieces = ['[', ']', '{', '}', '"', '\\', 'a', ',', ':', '\\"', '\\\\'];
  let seed = 11;
  const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  for (let round = 0; round < 3000; round++) {
    const text = Array.from({ length: random(60) }, () => pieces[random(pieces.length)]).join('');
    const limit = 1 + random(6);
    t.is(exceedsDepth(text, limit), referenceExceeds(text, limit), `${text} (limit ${limit})`);
  }
});
