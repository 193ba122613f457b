// Cassettes: real model answers recorded once (svc agents record) and replayed offline by the
// `replay` brain. A cassette is one JSON document kept with lowdb (atomic writes), holding each
// request the openai brain sent, normalized, and the answer it got. The key of a request is a
// hash of its normalized form (model, messages, tools), so the same question finds the same
// answer on any machine, whatever the ids and times in it.
//
// Paths: a cassette is named relative to the cassette folder (SVC_CASSETTE_DIR, default
// <data dir>/cassettes). Absolute names and names that climb out of it (..) are refused: an API
// key that may set an agent's brain must not make the daemon read or write files elsewhere.
// Nothing in a cassette is a path, a key or a secret: keys are never part of a request body,
// and known key values are replaced by [redacted] wherever they would appear.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { Low, LowSync } from 'lowdb';
import { JSONFile, JSONFileSync } from 'lowdb/node';
import { ApiError } from '../../domain/errors.js';

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

const EMPTY = (): CassetteData => ({ svc_cassette: 1, interactions: [] });

/** svc ids (prefix_ + 20 base62) and ISO 8601 instants: different on every run. */
const ID = /\b[a-z]{2,5}_[0-9A-Za-z]{20}\b/g;
const INSTANT = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})\b/g;

export function normalizeRequest(body: {
  model?: unknown;
  messages?: unknown;
  tools?: unknown;
}): CassetteRequest {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return {
    model: String(body.model ?? ''),
    messages: messages.map((message: { role?: unknown; content?: unknown }) => ({
      role: String(message.role ?? ''),
      content: String(message.content ?? '')
        .replace(ID, '<id>')
        .replace(INSTANT, '<time>'),
    })),
    tools: body.tools ?? null,
  };
}

/** The request's key in a cassette: 24 hex characters of a SHA-256 of its normalized JSON. */
export function requestKey(request: CassetteRequest): string {
  return createHash('sha256').update(JSON.stringify(request)).digest('hex').slice(0, 24);
}

/** Replaces each secret value found in a JSON value's strings with [redacted]. */
export function redact<T>(value: T, secrets: readonly string[]): T {
  const live = secrets.filter((secret) => secret.length >= 4);
  if (live.length === 0) return value;
  const text = JSON.stringify(value);
  let out = text;
  for (const secret of live)
    out = out.split(JSON.stringify(secret).slice(1, -1)).join('[redacted]');
  return out === text ? value : (JSON.parse(out) as T);
}

/**
 * The file of a cassette name, inside `dir`. `param` names the field in errors
 * (brain.cassette, cassette).
 */
export function cassetteFile(dir: string, name: string, param = 'brain.cassette'): string {
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
  return file;
}

/** Refuses a cassette name that is absolute, climbs out of the folder, or is not .json. */
export function checkCassetteName(name: string, param = 'brain.cassette'): void {
  cassetteFile(sep === '/' ? '/cassettes' : 'C:\\cassettes', name, param);
}

/**
 * The cassettes of this daemon, each loaded once: lookups are synchronous (the replay brain
 * answers inline, like the simulated one), appends are written atomically through lowdb.
 */
export class Cassettes {
  private readonly loaded = new Map<
    string,
    { data: CassetteData; byKey: Map<string, Interaction> }
  >();
  private readonly writers = new Map<string, Low<CassetteData>>();

  constructor(readonly dir: string) {}

  file(name: string, param?: string): string {
    return cassetteFile(this.dir, name, param);
  }

  /** The recorded answer for this key, if the cassette has one (a missing file has none). */
  find(name: string, key: string): Interaction | undefined {
    return this.load(name).byKey.get(key);
  }

  /** Adds (or replaces) the answer of a request and writes the cassette. */
  async record(name: string, interaction: Interaction): Promise<void> {
    const file = this.file(name, 'cassette');
    const cached = this.load(name);
    let writer = this.writers.get(file);
    if (!writer) {
      mkdirSync(dirname(file), { recursive: true });
      writer = new Low<CassetteData>(new JSONFile<CassetteData>(file), EMPTY());
      writer.data = cached.data;
      this.writers.set(file, writer);
    }
    const existing = cached.byKey.get(interaction.key);
    if (existing) Object.assign(existing, interaction);
    else {
      cached.data.interactions.push(interaction);
      cached.byKey.set(interaction.key, interaction);
    }
    await writer.write();
  }

  private load(name: string) {
    const file = this.file(name);
    let cached = this.loaded.get(file);
    if (!cached) {
      let data = EMPTY();
      if (existsSync(file)) {
        const reader = new LowSync<CassetteData>(new JSONFileSync<CassetteData>(file), EMPTY());
        try {
          reader.read();
        } catch {
          throw new ApiError(
            'invalid_parameter',
            `Cassette '${name}' is not a JSON document; record it again with svc agents record.`,
            { param: 'brain.cassette' },
          );
        }
        data = { svc_cassette: 1, interactions: reader.data.interactions ?? [] };
      }
      cached = { data, byKey: new Map(data.interactions.map((entry) => [entry.key, entry])) };
      this.loaded.set(file, cached);
    }
    return cached;
  }
}

/** Where cassettes live: SVC_CASSETTE_DIR, else <data dir>/cassettes. */
export function cassetteDir(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.SVC_CASSETTE_DIR ? resolve(env.SVC_CASSETTE_DIR) : join(dataDir, 'cassettes');
}
