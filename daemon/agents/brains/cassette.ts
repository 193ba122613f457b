// Cassettes: real model answers recorded once (svc agents record) and replayed offline by the
// `replay` brain. A cassette is one JSON document kept with lowdb (atomic writes), holding each
// request the openai brain sent, normalized, and the answer it got. The key of a request is a
// hash of its normalized form (model, messages, tools), so the same question finds the same
// answer on any machine, whatever the ids and times in it.
//
// Paths: a cassette is named relative to the cassette folder (SVC_CASSETTE_DIR, default
// <data dir>/cassettes). Absolute names and names that climb out of it (..) are refused: an API
// key that may set an agent's brain must not make the daemon read or write files elsewhere. The
// check is made again on real paths (realpath) before reading and writing, so a symbolic link
// inside the folder cannot lead out of it either.
//
// A cassette file is untrusted input: it is bounded in size (checked with stat, read with
// fs.promises so a large one never blocks the daemon) and in nesting (64 levels, as REST bodies
// are: measured before it is parsed), and validated with a zod schema, and a malformed one fails
// the execution with one sentence naming the file and the entry.
// Nothing in a cassette is a path, a key or a secret: keys are never part of a request body,
// and known key values are replaced by [redacted] wherever they would appear.
import { createHash } from 'node:crypto';
import { mkdir, readFile, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
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

const EMPTY = (): CassetteData => ({ svc_cassette: 1, interactions: [] });

/** The largest cassette file read: a bigger one is refused rather than held in memory. */
export const MAX_CASSETTE_BYTES = 16 * 1024 * 1024;

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

function cassetteError(name: string, why: string): ApiError {
  return new ApiError(
    'external_api_error',
    `Cassette '${name}' ${why}; fix the file or record it again with svc agents record.`,
    { extras: { cassette: name } },
  );
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

/** Whether `path` is `root` or inside it. */
function isInside(root: string, path: string): boolean {
  const inside = relative(root, path);
  return inside === '' || (!inside.startsWith('..') && !isAbsolute(inside));
}

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

/** A loaded cassette: its document and each interaction by key, with its index for errors. */
interface Loaded {
  data: CassetteData;
  byKey: Map<string, { interaction: Interaction; index: number }>;
}

/**
 * The cassettes of this daemon, each read once (asynchronously, by load()) and then kept: the
 * replay brain answers inline from a loaded cassette, like the simulated brain; appends are
 * written atomically through lowdb.
 */
export class Cassettes {
  private readonly loaded = new Map<string, Loaded>();
  private readonly loading = new Map<string, Promise<Loaded>>();
  private readonly writers = new Map<string, Low<CassetteData>>();

  constructor(readonly dir: string) {}

  file(name: string, param?: string): string {
    return cassetteFile(this.dir, name, param);
  }

  /** Whether the cassette is in memory, so findLoaded() answers without reading. */
  isLoaded(name: string): boolean {
    return this.loaded.has(this.file(name));
  }

  /** The recorded answer for this key in a loaded cassette (see isLoaded), if it has one. */
  findLoaded(name: string, key: string): { interaction: Interaction; index: number } | undefined {
    return this.loaded.get(this.file(name))?.byKey.get(key);
  }

  /** The recorded answer for this key, reading the cassette first if needed. */
  async find(name: string, key: string): Promise<Interaction | undefined> {
    return (await this.load(name)).byKey.get(key)?.interaction;
  }

  /** Adds (or replaces) the answer of a request and writes the cassette. */
  async record(name: string, interaction: Interaction): Promise<void> {
    const file = this.file(name, 'cassette');
    const cached = await this.load(name, 'cassette');
    let writer = this.writers.get(file);
    if (!writer) {
      // The folders are made only where the real path stays inside the cassette folder.
      await mkdir(this.dir, { recursive: true });
      await this.checkRealPath(name, file, 'cassette');
      await mkdir(dirname(file), { recursive: true });
      await this.checkRealPath(name, file, 'cassette');
      writer = new Low<CassetteData>(new JSONFile<CassetteData>(file), EMPTY());
      writer.data = cached.data;
      this.writers.set(file, writer);
    }
    const existing = cached.byKey.get(interaction.key);
    if (existing) Object.assign(existing.interaction, interaction);
    else {
      cached.data.interactions.push(interaction);
      cached.byKey.set(interaction.key, {
        interaction,
        index: cached.data.interactions.length - 1,
      });
    }
    await writer.write();
  }

  /** Reads a cassette once (concurrent callers share the read); a missing file is empty. */
  async load(name: string, param = 'brain.cassette'): Promise<Loaded> {
    const file = this.file(name, param);
    const cached = this.loaded.get(file);
    if (cached) return cached;
    let pending = this.loading.get(file);
    if (!pending) {
      pending = this.read(name, file, param).finally(() => this.loading.delete(file));
      this.loading.set(file, pending);
    }
    const loaded = await pending;
    this.loaded.set(file, loaded);
    return loaded;
  }

  private async read(name: string, file: string, param: string): Promise<Loaded> {
    const data = await this.readData(name, file, param);
    return {
      data,
      byKey: new Map(
        data.interactions.map((interaction, index) => [interaction.key, { interaction, index }]),
      ),
    };
  }

  private async readData(name: string, file: string, param: string): Promise<CassetteData> {
    const real = await this.checkRealPath(name, file, param);
    if (real === undefined) return EMPTY();
    let text: string;
    try {
      const info = await stat(real);
      if (!info.isFile()) throw cassetteError(name, 'is not a file');
      if (info.size > MAX_CASSETTE_BYTES) {
        throw cassetteError(
          name,
          `is ${info.size} bytes, more than the ${MAX_CASSETTE_BYTES} bytes (16 MiB) a cassette may hold: split it into several cassettes`,
        );
      }
      text = await readFile(real, 'utf8');
    } catch (error) {
      if (isMissing(error)) return EMPTY();
      throw error;
    }
    // Bounded as REST bodies are: a document nested thousands deep parses, then overflows the
    // stack of whatever walks it (JSON.stringify of a recorded answer: a 500).
    if (exceedsDepth(text)) {
      throw cassetteError(
        name,
        `nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep, as no recorded answer does`,
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw cassetteError(name, 'is not a JSON document');
    }
    const parsed = CassetteSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw cassetteError(name, `is malformed at ${issuePath(issue.path)}: ${issue.message}`);
    }
    return { svc_cassette: 1, interactions: parsed.data.interactions as Interaction[] };
  }

  /**
   * Refuses a cassette whose real path (symbolic links resolved) leaves the real cassette
   * folder. For a file not there yet, its nearest existing folder is checked. Returns the
   * real path of the file, or undefined when it does not exist.
   */
  private async checkRealPath(
    name: string,
    file: string,
    param: string,
  ): Promise<string | undefined> {
    let root: string;
    try {
      root = await realpath(this.dir);
    } catch (error) {
      if (isMissing(error)) return undefined; // No folder: no cassette in it yet.
      throw error;
    }
    let probe = file;
    let real: string | undefined;
    for (;;) {
      try {
        real = await realpath(probe);
        break;
      } catch (error) {
        if (!isMissing(error) || dirname(probe) === probe) throw error;
        probe = dirname(probe);
      }
    }
    if (!isInside(root, real)) {
      throw new ApiError(
        'invalid_parameter',
        `Cassette '${name}': the file leads out of the cassette folder through a symbolic link; cassettes are read and written only inside the cassette folder.`,
        { param },
      );
    }
    return probe === file ? real : undefined;
  }
}

/** Where cassettes live: SVC_CASSETTE_DIR, else <data dir>/cassettes. */
export function cassetteDir(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.SVC_CASSETTE_DIR ? resolve(env.SVC_CASSETTE_DIR) : join(dataDir, 'cassettes');
}
