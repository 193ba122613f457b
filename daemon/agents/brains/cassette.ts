// Cassettes: real model answers recorded once (svc agents record) and replayed offline by the
// `replay` brain. A cassette is one JSON document holding each request the openai brain sent,
// normalized, and the answer it got. The key of a request is a hash of its normalized form
// (model, messages, tools), so the same question finds the same answer on any machine, whatever
// the ids and times in it.
//
// Where: a cassette is named relative to the cassette folder (SVC_CASSETTE_DIR, default
// <data dir>/cassettes), and kept as a file there (cassette-files.ts) when the daemon serves its
// sandbox alone (SQLite); in team mode (PostgreSQL) as a row of the sandbox's store
// (cassette-rows.ts), so every daemon of the sandbox records into and replays from the same one.
// Absolute names and names that climb out of the folder (..) are refused either way
// (cassette-format.ts): an API key that may set an agent's brain must not make the daemon read
// or write files elsewhere.
//
// A cassette is untrusted input, from a file or from the store (a snapshot): bounded in size
// and nesting, validated, and a malformed one fails the execution with one sentence naming the
// cassette and the entry (cassette-format.ts).
// Nothing in a cassette is a path, a key or a secret: keys are never part of a request body,
// and known key values are replaced by [redacted] wherever they would appear.
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { ApiError } from '../../domain/errors.js';
import {
  cassetteName,
  emptyCassette,
  MAX_CASSETTE_BYTES,
  parseCassette,
  tooLarge,
  type CassetteData,
  type CassetteName,
  type CassettePlace,
  type CassetteRequest,
  type Interaction,
} from './cassette-format.js';
import { CassetteFiles } from './cassette-files.js';
import type { CassetteRows } from './cassette-rows.js';

export {
  cassetteFile,
  checkCassetteName,
  MAX_CASSETTE_BYTES,
  type CassetteData,
  type CassetteRequest,
  type Interaction,
} from './cassette-format.js';

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

/** A loaded cassette: its document and each interaction by key, with its index for errors. */
interface Loaded {
  data: CassetteData;
  byKey: Map<string, { interaction: Interaction; index: number }>;
}

function indexed(data: CassetteData): Loaded {
  return {
    data,
    byKey: new Map(
      data.interactions.map((interaction, index) => [interaction.key, { interaction, index }]),
    ),
  };
}

/** Where a daemon keeps its cassettes: its folder's files, or the sandbox's store. */
export type CassetteStorage = CassetteFiles | CassetteRows;

/**
 * The cassettes of this daemon, each read once (asynchronously, by load()) and then kept: the
 * replay brain answers inline from a loaded cassette, like the simulated brain. In team mode a
 * cassette another daemon changed is dropped here (and read again when next asked).
 */
export class Cassettes {
  private readonly loaded = new Map<string, Loaded>();
  private readonly loading = new Map<string, Promise<Loaded>>();
  private readonly storage: CassetteStorage;

  /** `storage` defaults to the files of `dir`. */
  constructor(
    readonly dir: string,
    storage?: CassetteStorage,
  ) {
    this.storage = storage ?? new CassetteFiles(dir);
    if (this.storage.place === 'store') {
      this.storage.onChange((key) => {
        if (key === undefined) this.loaded.clear();
        else this.loaded.delete(key);
      });
    }
  }

  /** Where this daemon's cassettes are kept: its folder, or the sandbox's store (team mode). */
  get place(): CassettePlace {
    return this.storage.place;
  }

  /** The name checked (see cassette-format.ts): refused if it may not name a cassette. */
  name(name: string, param?: string): CassetteName {
    return cassetteName(this.dir, name, param);
  }

  file(name: string, param?: string): string {
    return this.name(name, param).file;
  }

  /** Whether the cassette is in memory, so findLoaded() answers without reading. */
  isLoaded(name: string): boolean {
    return this.loaded.has(this.name(name).key);
  }

  /** The recorded answer for this key in a loaded cassette (see isLoaded), if it has one. */
  findLoaded(name: string, key: string): { interaction: Interaction; index: number } | undefined {
    return this.loaded.get(this.name(name).key)?.byKey.get(key);
  }

  /** The recorded answer for this key, reading the cassette first if needed. */
  async find(name: string, key: string): Promise<Interaction | undefined> {
    return (await this.load(name)).byKey.get(key)?.interaction;
  }

  /**
   * Adds (or replaces) the answer of a request and writes the cassette. In the store, it is
   * added to the cassette as stored (other daemons may have recorded into it meanwhile).
   */
  async record(name: string, interaction: Interaction): Promise<void> {
    const id = this.name(name, 'cassette');
    const cached = await this.load(name, 'cassette');
    const data = await this.storage.record(id, cached.data, interaction);
    this.loaded.set(id.key, indexed(data));
  }

  /**
   * Replaces the cassette with the document `text` (a cassette file's, untrusted: checked as
   * any cassette is read). svc agents cassette load.
   */
  async replace(name: string, text: string): Promise<{ interactions: number }> {
    const id = this.name(name, 'name');
    const bytes = Buffer.byteLength(text);
    let parsed: CassetteData;
    try {
      if (bytes > MAX_CASSETTE_BYTES) throw tooLarge(id.name, bytes, 'folder');
      parsed = parseCassette(id.name, text, 'folder');
    } catch (error) {
      // The file given is the request's: a 400, not a failed call of a model.
      if (!(error instanceof ApiError)) throw error;
      throw new ApiError('invalid_parameter', error.message, { param: 'text' });
    }
    const data = await this.storage.replace(id, parsed);
    this.loaded.set(id.key, indexed(data));
    return { interactions: data.interactions.length };
  }

  /** Reads a cassette once (concurrent callers share the read); a missing one is empty. */
  async load(name: string, param = 'brain.cassette'): Promise<Loaded> {
    const id = this.name(name, param);
    const cached = this.loaded.get(id.key);
    if (cached) return cached;
    let pending = this.loading.get(id.key);
    if (!pending) {
      pending = this.read(id).finally(() => this.loading.delete(id.key));
      this.loading.set(id.key, pending);
    }
    const loaded = await pending;
    this.loaded.set(id.key, loaded);
    return loaded;
  }

  /**
   * Reads the cassette again if another daemon may have recorded into it since it was loaded
   * (team mode: a request this daemon's copy lacks is looked up in the stored one before it is
   * called missing). Answers whether it was read again.
   */
  async refresh(name: string, param = 'brain.cassette'): Promise<boolean> {
    if (this.storage.place !== 'store') return false;
    this.loaded.delete(this.name(name, param).key);
    await this.load(name, param);
    return true;
  }

  private async read(id: CassetteName): Promise<Loaded> {
    const text = await this.storage.read(id);
    return indexed(
      text === undefined ? emptyCassette() : parseCassette(id.name, text, this.storage.place),
    );
  }
}

/** Where cassette files live: SVC_CASSETTE_DIR, else <data dir>/cassettes. */
export function cassetteDir(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.SVC_CASSETTE_DIR ? resolve(env.SVC_CASSETTE_DIR) : join(dataDir, 'cassettes');
}
