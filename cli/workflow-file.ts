// Workflow files for `svc workflows create|update -f FILE`: JSON or YAML (by extension; anything
// else is tried as JSON, then YAML, since YAML reads JSON too), `-` for stdin. Also turns the
// API's validation error param (`steps[2].config.if_false`) into a location a user finds in the
// file: the step's id and the field. A `__proto__` or `constructor.prototype` key is refused
// here, named.
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { findForbiddenKey, forbiddenKeyReason } from '../shared/forbidden-keys.js';
import { parseJsonText, parseYamlText, readStdin } from './document-text.js';
import { UsageError } from './errors.js';

export type WorkflowDocument = Record<string, unknown>;

export async function readWorkflowFile(file: string): Promise<WorkflowDocument> {
  let text: string;
  try {
    text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`-f ${file}: cannot read the file (${(error as Error).message}).`);
  }
  if (Buffer.byteLength(text) > MAX_WORKFLOW_FILE_BYTES) {
    throw new UsageError(
      `-f ${file}: the file is larger than 1 MiB, the API's body limit. Split it into several workflows.`,
    );
  }
  return parseWorkflowText(text, file);
}

/** Parses a workflow document; `name` (a file name) picks the format by its extension. */
export async function parseWorkflowText(text: string, name: string): Promise<WorkflowDocument> {
  const extension = extname(name).toLowerCase();
  let value: unknown;
  if (extension === '.json') {
    value = await parseJsonText(text, `-f ${name}`);
  } else if (extension === '.yaml' || extension === '.yml') {
    value = await parseYamlText(text, `-f ${name}`);
  } else {
    let json = true;
    try {
      JSON.parse(text);
    } catch {
      json = false;
    }
    // Read again through parseJsonText, which refuses a key given twice (JSON.parse keeps one).
    value = json
      ? await parseJsonText(text, `-f ${name}`)
      : await parseYamlText(text, `-f ${name}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError(
      `-f ${name}: a workflow file holds one object (name, steps, trigger, settings...), not ${describe(value)}.`,
    );
  }
  // The daemon would refuse such a key too, but as part of "the request body"; here the message
  // says where it is in the file.
  const forbidden = findForbiddenKey(value);
  if (forbidden) throw new UsageError(`-f ${name}: ${forbiddenKeyReason(forbidden)}`);
  return value as WorkflowDocument;
}

/** A workflow file's size at most: the daemon's request body limit. */
const MAX_WORKFLOW_FILE_BYTES = 1024 * 1024;

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  return `a ${typeof value}`;
}

/**
 * Where an API `param` such as `steps[2].config.if_false` points in the document: `step
 * "check" (steps[2]), field config.if_false`. Undefined when the param names no step.
 */
export function locateParam(document: WorkflowDocument, param: string): string | undefined {
  const match = /^steps\[(\d+)\](?:\.(.+))?$/.exec(param);
  if (!match) return undefined;
  const index = Number(match[1]);
  const steps = Array.isArray(document.steps) ? (document.steps as unknown[]) : [];
  const step = steps[index];
  const id =
    step && typeof step === 'object' && typeof (step as { id?: unknown }).id === 'string'
      ? (step as { id: string }).id
      : undefined;
  const at = id ? `step "${id}" (steps[${index}])` : `steps[${index}]`;
  return match[2] ? `${at}, field ${match[2]}` : at;
}

/** Reads `--input`: inline JSON, or @file.json; must be an object (the run's trigger payload). */
export async function readRunInput(text: string | undefined): Promise<Record<string, unknown>> {
  if (text === undefined) return {};
  let source = text;
  let where = '--input';
  if (text.startsWith('@')) {
    where = `--input ${text}`;
    try {
      source = await readFile(text.slice(1), 'utf8');
    } catch (error) {
      throw new UsageError(`${where}: cannot read the file (${(error as Error).message}).`);
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(source) as unknown;
  } catch {
    throw new UsageError(
      `${where} takes a JSON object, e.g. --input '{"order_id": "A-1"}' or --input @input.json.`,
    );
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError(`${where} takes a JSON object (the run's trigger.payload).`);
  }
  return value as Record<string, unknown>;
}
