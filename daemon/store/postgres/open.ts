// Opens a sandbox of the PostgreSQL store: connects (in the adapter's worker thread), creates
// the sandbox's schema if it is new, brings it up to date and answers the port (Db) on it.
import type { Db } from '../db.js';
import type { MigrationContext } from '../migrations.js';
import { migratePostgres, POSTGRES_MIGRATIONS, type PostgresMigration } from './migrations.js';
import { PostgresDb } from './postgres-db.js';

export interface OpenPostgresOptions {
  /** postgres://user[:password]@host[:port]/database */
  url: string;
  /** The sandbox: a schema of that database, created if missing. */
  schema: string;
  context?: MigrationContext;
  /** For tests of migrations; default all. */
  migrations?: readonly PostgresMigration[];
}

/**
 * Throws StoreUnavailableError when PostgreSQL cannot be reached (naming host:port/database,
 * never the password), SchemaTooNewError when the sandbox was written by a newer svc.
 */
export function openPostgresDatabase(options: OpenPostgresOptions): Db {
  const db = new PostgresDb({
    url: options.url,
    schema: options.schema,
    where: where(options.url),
  });
  try {
    db.exec(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(options.schema)}`);
    migratePostgres(db, options.schema, options.migrations ?? POSTGRES_MIGRATIONS, options.context);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** host:port/database of a postgres:// URL, for messages. */
export function where(url: string): string {
  try {
    const parsed = new URL(url);
    const host = parsed.hostname || parsed.searchParams.get('host') || 'localhost';
    const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || parsed.username;
    return `${host}:${parsed.port || '5432'}/${database}`;
  } catch {
    return 'the PostgreSQL store (its URL does not parse)';
  }
}

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
