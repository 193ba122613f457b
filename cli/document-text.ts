// Reading the documents users hand the CLI (workflow files, fixture files): standard input, and
// JSON or YAML text parsed into a value, with errors that say where. `label` starts each error
// message (`-f flow.yaml`, `sandbox.yaml`).
import { UsageError } from './errors.js';

/** Alias expansions a document may use (the yaml package's own default, stated). */
export const MAX_YAML_ALIASES = 100;

export function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk: string) => (text += chunk));
    process.stdin.on('end', () => resolve(text));
    process.stdin.on('error', reject);
  });
}

/** JSON text; a key given twice in one object is refused (JSON.parse would keep the last). */
export async function parseJsonText(text: string, label: string): Promise<unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`${label}: not valid JSON (${(error as Error).message}).`);
  }
  const { findDuplicateJsonKey, describeDuplicate } = await import('./duplicate-keys.js');
  const duplicate = findDuplicateJsonKey(text);
  if (duplicate) throw new UsageError(`${label}: ${describeDuplicate(duplicate)}`);
  return value;
}

/**
 * A fixture's `${agents.x.id}` inside a flow map (`{ a: ${...} }`) reads as a second map: the
 * parser's own message says "flow-map-start", which does not say what to do.
 */
function referenceHint(text: string, line: number | undefined): string {
  const source = line === undefined ? undefined : text.split('\n')[line - 1];
  if (!source || !/\{[^}]*:\s*\$\{/.test(source)) return '';
  return " Inside { ... }, quote a ${...} reference: workspace: '${workspaces.acme.id}'.";
}

export async function parseYamlText(text: string, label: string): Promise<unknown> {
  const { LineCounter, parseDocument } = await import('./yaml.js');
  const { findDuplicateKey, describeDuplicate } = await import('./duplicate-keys.js');
  // Keys given twice are found below, to name both places (the yaml package names the second).
  const lines = new LineCounter();
  const document = parseDocument(text, {
    prettyErrors: true,
    uniqueKeys: false,
    lineCounter: lines,
  });
  const [first] = document.errors;
  if (first) {
    const where = first.linePos?.[0];
    throw new UsageError(
      `${label}: not valid YAML${where ? ` at line ${where.line}, column ${where.col}` : ''} (${first.message.split('\n')[0]}).${referenceHint(text, where?.line)}`,
    );
  }
  const duplicate = findDuplicateKey(document, lines);
  if (duplicate) throw new UsageError(`${label}: ${describeDuplicate(duplicate)}`);
  // maxAliasCount bounds alias expansion (a "billion laughs" file is an error, not a hang).
  try {
    return document.toJS({ maxAliasCount: MAX_YAML_ALIASES }) as unknown;
  } catch (error) {
    throw new UsageError(`${label}: ${(error as Error).message}`);
  }
}
