// What a cassette is, wherever it is kept (a file of the cassette folder, or a row of the
// sandbox's store in team mode): its names, its JSON document and how an untrusted one is read.
// A cassette's text is bounded in size (16 MiB) and in nesting (64 levels, as REST bodies are:
// measured before it is parsed), and validated with a zod schema; a malformed one fails the
// execution with one sentence naming the cassette and the entry.
import { isAbsolute, normalize, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import { ApiError } from '../../domain/errors.js';
import { exceedsDepth, MAX_JSON_DEPTH } from '../../domain/json-depth.js';

/** What identifies a request: its model, messages and tools, without ids and times. */
export interface CassetteRequest {
  model: string;
  messages: { role: string; content: string }[];
  tools: unknown;
}

export interface Interaction {
  key: string;
  request: CassetteRequest;
  /** The endpoint's answer: status and body (parsed JSON, or the text). */
  response: { status: number; body: unknown };
}

export interface CassetteData {
  svc_cassette: 1;
  interactions: Interaction[];
}

export const emptyCassette = (): CassetteData => ({ svc_cassette: 1, interactions: [] });

/** The largest cassette read or stored: a bigger one is refused rather than held in memory. */
export const MAX_CASSETTE_BYTES = 16 * 1024 * 1024;

/** A cassette's name, checked: as given (for messages), its file, and its key in the store. */
export interface CassetteName {
  /** As the agent or svc agents record gave it (support.json). */
  name: string;
  /** Its file in the cassette folder (absolute). */
  file: string;
  /** Relative to the folder, `/`-separated, normalized: the row's name in the store. */
  key: string;
  /** The field named in errors (brain.cassette, cassette). */
  param: string;
}

const CassetteSchema = z.object({
  svc_cassette: z.literal(1).optional(),
  interactions: z
    .array(
      z.object({
        key: z.string().min(1),
        request: z.object({
          model: z.string(),
          messages: z.array(z.object({ role: z.string(), content: z.string() })),
          tools: z.unknown().optional(),
        }),
        response: z.object({ status: z.number().int().min(100).max(599), body: z.unknown() }),
      }),
    )
    .default([]),
});

/** A zod issue path as written in JSON terms: interactions[3].response. */
function issuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path)
    out += typeof part === 'number' ? `[${part}]` : `${out ? '.' : ''}${String(part)}`;
  return out || 'the top level';
}

/**
 * Where a cassette is kept, as its errors say how to mend it: a file of the cassette folder,
 * or a row of the sandbox's store (team mode).
 */
export type CassettePlace = 'folder' | 'store';

export function cassetteError(
  name: string,
  why: string,
  place: CassettePlace = 'folder',
): ApiError {
  return new ApiError(
    'external_api_error',
    place === 'folder'
      ? `Cassette '${name}' ${why}; fix the file or record it again with svc agents record.`
      : `Cassette '${name}' in the sandbox's store ${why}; load a good copy of the file with svc agents cassette load FILE --name ${name}, or record it again with svc agents record.`,
    { extras: { cassette: name } },
  );
}

/** The error of a cassette over MAX_CASSETTE_BYTES. */
export function tooLarge(name: string, bytes: number, place: CassettePlace): ApiError {
  return cassetteError(
    name,
    `is ${bytes} bytes, more than the ${MAX_CASSETTE_BYTES} bytes (16 MiB) a cassette may hold: split it into several cassettes`,
    place,
  );
}

/** Reads a cassette's text (untrusted): bounded in depth, parsed, validated. */
export function parseCassette(name: string, text: string, place: CassettePlace): CassetteData {
  // Bounded as REST bodies are: a document nested thousands deep parses, then overflows the
  // stack of whatever walks it (JSON.stringify of a recorded answer: a 500).
  if (exceedsDepth(text)) {
    throw cassetteError(
      name,
      `nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep, as no recorded answer does`,
      place,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw cassetteError(name, 'is not a JSON document', place);
  }
  const parsed = CassetteSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw cassetteError(name, `is malformed at ${issuePath(issue.path)}: ${issue.message}`, place);
  }
  return { svc_cassette: 1, interactions: parsed.data.interactions as Interaction[] };
}

/** Adds an interaction to a cassette's document, or replaces the one of the same key. */
export function withInteraction(data: CassetteData, interaction: Interaction): CassetteData {
  const index = data.interactions.findIndex((each) => each.key === interaction.key);
  if (index < 0) data.interactions.push(interaction);
  else data.interactions[index] = interaction;
  return data;
}

/**
 * The file of a cassette name, inside `dir`. `param` names the field in errors
 * (brain.cassette, cassette).
 */
export function cassetteFile(dir: string, name: string, param = 'brain.cassette'): string {
  return cassetteName(dir, name, param).file;
}

/**
 * A cassette name checked: relative to the cassette folder, a .json file, never leading out of
 * the folder (absolute, or with ..): an API key that may set an agent's brain must not make the
 * daemon read or write files elsewhere.
 */
export function cassetteName(dir: string, name: string, param = 'brain.cassette'): CassetteName {
  const refuse = (why: string) =>
    new ApiError('invalid_parameter', `Cassette '${name}': ${why}`, { param });
  if (name.trim() === '' || name.includes('\0'))
    throw refuse('give a file name such as support.json.');
  if (isAbsolute(name) || /^[A-Za-z]:/.test(name)) {
    throw refuse(
      'a cassette is named relative to the cassette folder (SVC_CASSETTE_DIR, default <data dir>/cassettes), not by an absolute path.',
    );
  }
  if (!name.endsWith('.json')) throw refuse('a cassette is a .json file.');
  const base = resolve(dir);
  const file = resolve(base, normalize(name));
  const inside = relative(base, file);
  if (
    inside === '' ||
    inside.startsWith('..') ||
    isAbsolute(inside) ||
    inside.split(sep).includes('..')
  ) {
    throw refuse('the name leads out of the cassette folder (no .. in cassette names).');
  }
  return { name, file, key: inside.split(sep).join('/'), param };
}

/** Refuses a cassette name that is absolute, climbs out of the folder, or is not .json. */
export function checkCassetteName(name: string, param = 'brain.cassette'): void {
  cassetteFile(sep === '/' ? '/cassettes' : 'C:\\cassettes', name, param);
}
