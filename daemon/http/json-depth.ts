// Nesting depth of a JSON text, measured before parsing: a document nested thousands deep parses
// fine but overflows the stack of whatever walks it later (JSON.stringify, validation), so every
// JSON body is refused past MAX_JSON_DEPTH levels of objects and arrays.

export const MAX_JSON_DEPTH = 64;

/** Whether `text` opens more than `limit` nested objects/arrays (brackets inside strings do not count). */
export function exceedsDepth(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c)
        index++; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x7b || code === 0x5b) {
      if (++depth > limit) return true;
    } else if (code === 0x7d || code === 0x5d) {
      depth--;
    }
  }
  return false;
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
