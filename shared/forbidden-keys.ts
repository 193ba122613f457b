// Keys no JSON or YAML document handed to svc may hold: `__proto__` anywhere, and `constructor`
// holding an object with a `prototype` key (the rule of secure-json-parse, which the daemon's
// JSON body parser applies). Copied or merged into plain objects, such keys can rewrite the
// prototype every object shares (prototype pollution). This module finds where such a key is,
// so that a refusal names it: the daemon's message for a body, the CLI's for a workflow file
// (whose YAML the daemon never sees).

export interface ForbiddenKey {
  /** Where the key is, as `steps[0].config.__proto__` (`__proto__` at the top level). */
  path: string;
  key: '__proto__' | 'constructor';
}

const has = (value: object, key: string) => Object.prototype.hasOwnProperty.call(value, key);

/** The first forbidden key in document order, or undefined when there is none. */
export function findForbiddenKey(document: unknown): ForbiddenKey | undefined {
  // Depth first without recursion (a YAML document has no depth limit); a YAML alias may share
  // a node, or even make a cycle, so each object is visited once.
  const stack: [unknown, string][] = [[document, '']];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    if (node === null || typeof node !== 'object' || seen.has(node)) continue;
    seen.add(node);
    if (has(node, '__proto__')) return { path: join(path, '__proto__'), key: '__proto__' };
    const ctor = has(node, 'constructor') ? (node as { constructor: unknown }).constructor : null;
    if (ctor !== null && typeof ctor === 'object' && has(ctor, 'prototype')) {
      return { path: join(path, 'constructor'), key: 'constructor' };
    }
    // Pushed last to first, so that the first child is looked at first.
    if (Array.isArray(node)) {
      for (let index = node.length - 1; index >= 0; index--) {
        stack.push([node[index], `${path}[${index}]`]);
      }
    } else {
      const keys = Object.keys(node);
      for (let index = keys.length - 1; index >= 0; index--) {
        const key = keys[index]!;
        stack.push([(node as Record<string, unknown>)[key], join(path, key)]);
      }
    }
  }
  return undefined;
}

/** "the key 'x.__proto__' is refused: why. How to fix." (a clause: callers say where first). */
export function forbiddenKeyReason(found: ForbiddenKey): string {
  const what =
    found.key === '__proto__'
      ? `the key '${found.path}' is refused: a __proto__ key`
      : `the key '${found.path}' holds a 'prototype' key, which is refused: constructor.prototype`;
  return `${what} could rewrite the prototype shared by all objects (prototype pollution). Rename or remove the key.`;
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}
