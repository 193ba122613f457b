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

export function parseJsonText(text: string, label: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`${label}: not valid JSON (${(error as Error).message}).`);
  }
}

export async function parseYamlText(text: string, label: string): Promise<unknown> {
  const { parseDocument } = await import('yaml');
  // maxAliasCount bounds alias expansion (a "billion laughs" file is an error, not a hang).
  const document = parseDocument(text, { prettyErrors: true });
  const [first] = document.errors;
  if (first) {
    const where = first.linePos?.[0];
    throw new UsageError(
      `${label}: not valid YAML${where ? ` at line ${where.line}, column ${where.col}` : ''} (${first.message.split('\n')[0]}).`,
    );
  }
  try {
    return document.toJS({ maxAliasCount: MAX_YAML_ALIASES }) as unknown;
  } catch (error) {
    throw new UsageError(`${label}: ${(error as Error).message}`);
  }
}
