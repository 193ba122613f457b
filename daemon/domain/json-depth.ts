// Nesting depth of a JSON text, measured before parsing: a document nested thousands deep parses
// fine but overflows the stack of whatever walks it later (JSON.stringify, validation), so every
// JSON body is refused past MAX_JSON_DEPTH levels of objects and arrays.

export const MAX_JSON_DEPTH = 64;

/** Whether `text` opens more than `limit` nested objects/arrays (brackets inside strings do not count). */
export function exceedsDepth(text: string, limit = MAX_JSON_DEPTH): boolean {
  // Most bodies open fewer brackets in all than the limit, so none can nest that deep: counting
  // them with indexOf (native) spares a character loop over a large body (a 100 KB input).
  if (countUpTo(text, '{', limit + 1) + countUpTo(text, '[', limit + 1) <= limit) return false;
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x22) {
      index = stringEnd(text, index);
      if (index === -1) return false; // an unterminated string: JSON.parse says what is wrong
    } else if (code === 0x7b || code === 0x5b) {
      if (++depth > limit) return true;
    } else if (code === 0x7d || code === 0x5d) {
      depth--;
    }
  }
  return false;
}

/** How many times `char` occurs in `text`, counting no further than `stop`. */
function countUpTo(text: string, char: string, stop: number): number {
  let count = 0;
  for (let at = text.indexOf(char); at !== -1 && count < stop; at = text.indexOf(char, at + 1)) {
    count++;
  }
  return count;
}

/** The index of the quote closing the string opened at `open` (-1 when none does). */
function stringEnd(text: string, open: number): number {
  let quote = text.indexOf('"', open + 1);
  while (quote !== -1) {
    // A quote preceded by an odd number of backslashes is escaped: part of the string.
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote;
    quote = text.indexOf('"', quote + 1);
  }
  return -1;
}

/**
 * The path (`config.a.0.b`) to the first value nested deeper than `limit`, found without
 * recursion, its segments past the 8th elided. Undefined when nothing is that deep.
 */
export function deepPath(value: unknown, limit = MAX_JSON_DEPTH): string | undefined {
  const stack: { value: unknown; path: string[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: current, path } = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (path.length >= limit) return formatPath(path);
    for (const [key, child] of Object.entries(current))
      stack.push({ value: child, path: [...path, key] });
  }
  return undefined;
}

function formatPath(path: string[]): string {
  return path.length > 8 ? `${path.slice(0, 8).join('.')}...` : path.join('.');
}
