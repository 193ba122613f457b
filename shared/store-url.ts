// Where a daemon keeps its sandbox: the SQLite file in its data dir (the default), or a schema
// of a PostgreSQL database (team mode: --store postgres://user@host:5432/db, or SVC_STORE_URL).
// The CLI checks the flags with it before it starts a daemon (a usage error, exit 2), the daemon
// again when it reads its settings, and `svc status` shows the store as it describes it here.
import { createHash } from 'node:crypto';
import { basename } from 'node:path';

/** The daemon's store: its data dir's SQLite file, or one sandbox (schema) of a PostgreSQL. */
export type StoreSetting =
  | { kind: 'sqlite' }
  | {
      kind: 'postgres';
      /** The URL to connect with, password included, without the ?sandbox= parameter. */
      url: string;
      /** The same without its password: what logs and `svc status` show. */
      display: string;
      /** The sandbox: the PostgreSQL schema that holds its tables. */
      sandbox: string;
      /** True when no --sandbox named it: the data dir's own (see dataDirSandbox). */
      private: boolean;
    };

export class StoreSettingError extends Error {}

/**
 * How a daemon was told its PostgreSQL store, as its runtime file keeps it for `svc daemon
 * restart` (which otherwise would start it again on the data dir's SQLite file). Never the
 * password: a URL that carried one says so, and restart asks for the store again.
 */
export interface RecordedStore {
  /** The URL without its password. */
  url: string;
  /** The sandbox --sandbox (or ?sandbox=) named; absent for the data dir's private one. */
  sandbox?: string;
  /** The URL given carried a password, which is not kept. */
  password: boolean;
}

export function recordedStore(store: StoreSetting): RecordedStore | undefined {
  if (store.kind !== 'postgres') return undefined;
  return {
    url: store.display,
    ...(store.private ? {} : { sandbox: store.sandbox }),
    password: new URL(store.url).password !== '',
  };
}

/** PostgreSQL keeps identifiers to 63 bytes. */
const MAX_IDENTIFIER = 63;
const SANDBOX_NAME = /^[a-z_][a-z0-9_]*$/;
/** Schemas PostgreSQL keeps for itself or every database has. */
const RESERVED = new Set(['public', 'information_schema']);

/**
 * Reads --store / SVC_STORE_URL and --sandbox / SVC_SANDBOX (flags win; `?sandbox=NAME` in the
 * URL names it too, and must agree with --sandbox). No URL: the data dir's SQLite file.
 */
export function resolveStoreSetting(
  input: { store?: string | undefined; sandbox?: string | undefined },
  dataDir: string,
): StoreSetting {
  const raw = input.store?.trim();
  if (!raw) {
    if (input.sandbox !== undefined) {
      throw new StoreSettingError(
        `--sandbox (SVC_SANDBOX) names a sandbox of a PostgreSQL store; give the store too: --store postgres://user@host:5432/db (or SVC_STORE_URL). Without one the sandbox is the data dir's own SQLite file.`,
      );
    }
    return { kind: 'sqlite' };
  }
  const url = parseStoreUrl(raw);
  const fromUrl = url.searchParams.get('sandbox') ?? undefined;
  url.searchParams.delete('sandbox');
  if (fromUrl !== undefined && input.sandbox !== undefined && fromUrl !== input.sandbox) {
    throw new StoreSettingError(
      `The store URL names sandbox ${fromUrl} and --sandbox (SVC_SANDBOX) names ${input.sandbox}: give one of them.`,
    );
  }
  const named = input.sandbox ?? fromUrl;
  if (named !== undefined) checkSandboxName(named);
  return {
    kind: 'postgres',
    url: url.href,
    display: displayUrl(url),
    sandbox: named ?? dataDirSandbox(dataDir),
    private: named === undefined,
  };
}

function parseStoreUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new StoreSettingError(
      `The store URL is not a URL: give postgres://user[:password]@host[:port]/database (got ${redact(raw)}).`,
    );
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new StoreSettingError(
      `The store must be a PostgreSQL URL, postgres://user[:password]@host[:port]/database (got a ${url.protocol.slice(0, -1)}: URL). Without --store, svc keeps the sandbox in its data dir (SQLite).`,
    );
  }
  if (!url.hostname) {
    throw new StoreSettingError(
      `The store URL names no host: postgres://user[:password]@host[:port]/database (got ${displayUrl(url)}).`,
    );
  }
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!database || database.includes('/')) {
    throw new StoreSettingError(
      `The store URL must name one database after the host: postgres://user[:password]@host[:port]/database (got ${displayUrl(url)}).`,
    );
  }
  if (!url.username) {
    throw new StoreSettingError(
      `The store URL names no user: postgres://user[:password]@host[:port]/database (got ${displayUrl(url)}).`,
    );
  }
  return url;
}

/** A sandbox name is a PostgreSQL schema's: lower-case letters, digits and _, up to 63. */
export function checkSandboxName(name: string): void {
  if (
    name.length === 0 ||
    name.length > MAX_IDENTIFIER ||
    !SANDBOX_NAME.test(name) ||
    name.startsWith('pg_') ||
    RESERVED.has(name)
  ) {
    throw new StoreSettingError(
      `A sandbox name is 1 to ${MAX_IDENTIFIER} lower-case letters, digits and underscores, starting with a letter or _, and not public, information_schema or pg_... (got ${JSON.stringify(name)}). E.g. --sandbox staging.`,
    );
  }
}

/**
 * The private sandbox of a data dir: `svc_` + a readable slug of the directory's name + the first
 * 10 hex digits of the SHA-256 of its absolute path. Stable (the same path gives the same name)
 * and unique to the path, so two daemons with different data dirs never share one.
 */
export function dataDirSandbox(dataDir: string): string {
  const hash = createHash('sha256').update(dataDir).digest('hex').slice(0, 10);
  const slug = basename(dataDir)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 40);
  return slug ? `svc_${slug}_${hash}` : `svc_${hash}`;
}

/** The URL without its password (and without ?sandbox=): what may be logged and shown. */
function displayUrl(url: URL): string {
  const shown = new URL(url.href);
  if (shown.password) shown.password = '';
  shown.searchParams.delete('sandbox');
  return shown.href;
}

/** A text that did not parse as a URL, with anything like user:password@ taken out. */
function redact(raw: string): string {
  return JSON.stringify(raw.replace(/\/\/[^@/]*@/, '//…@'));
}

/** How `svc status` names a store: `SQLite /path/svc.db`, `PostgreSQL postgres://svc@db/svc, sandbox qa`. */
export function storeWords(store: { kind: string; location: string; sandbox: string | null }) {
  return store.kind === 'postgres'
    ? `PostgreSQL ${store.location}, sandbox ${store.sandbox}`
    : `SQLite ${store.location}`;
}
