// A key given twice in one mapping of a JSON or YAML document. JSON.parse keeps the last one
// silently (a fixture's first `agents.support` vanished and the apply still succeeded), and the
// yaml package names the line of the second only: this names both places, so the author sees
// which two declarations to reconcile. JSON is read through the yaml parser here, which reports
// where each key is (YAML 1.2 reads JSON text).
import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Document } from 'yaml';

export interface DuplicateKey {
  /** Where the key is, as the document nests it: `agents.support`, `steps[2].id`. */
  path: string;
  first: { line: number; col: number };
  second: { line: number; col: number };
}

/** The first key given twice in a mapping (document order), if any. */
export function findDuplicateKey(
  document: Document.Parsed,
  lines: LineCounter,
): DuplicateKey | undefined {
  const found = walk(document.contents, '');
  if (!found) return undefined;
  return {
    path: found.path,
    first: lines.linePos(found.first),
    second: lines.linePos(found.second),
  };
}

/** The same, for a text JSON.parse has accepted; undefined when none (or not read as YAML). */
export function findDuplicateJsonKey(text: string): DuplicateKey | undefined {
  const lines = new LineCounter();
  const document = parseDocument(text, { uniqueKeys: false, lineCounter: lines });
  // Valid JSON the YAML reader cannot read has not been seen; JSON.parse's value stands then.
  if (document.errors.length > 0) return undefined;
  return findDuplicateKey(document, lines);
}

/** The message: `agents.support is given twice (line 3 and line 9)...`. */
export function describeDuplicate(duplicate: DuplicateKey): string {
  const at = ({ line, col }: { line: number; col: number }) => `line ${line}, column ${col}`;
  return `${duplicate.path} is given twice (${at(duplicate.first)} and ${at(duplicate.second)}); only one would be kept, so the file is refused. Remove or rename one of them.`;
}

interface Found {
  path: string;
  first: number;
  second: number;
}

function walk(node: unknown, path: string): Found | undefined {
  if (isMap(node)) {
    const seen = new Map<string, number>();
    for (const pair of node.items) {
      const keyNode = isScalar(pair.key) ? pair.key : undefined;
      const key = keyNode ? String(keyNode.value) : undefined;
      const at = key === undefined ? path : path ? `${path}.${key}` : key;
      if (keyNode && key !== undefined) {
        const offset = keyNode.range?.[0] ?? 0;
        const earlier = seen.get(key);
        if (earlier !== undefined) return { path: at, first: earlier, second: offset };
        seen.set(key, offset);
      }
      const inner = walk(pair.value, at);
      if (inner) return inner;
    }
  } else if (isSeq(node)) {
    for (const [index, item] of node.items.entries()) {
      const inner = walk(item, `${path}[${index}]`);
      if (inner) return inner;
    }
  }
  return undefined;
}
