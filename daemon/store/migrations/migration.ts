// What a schema migration is: SQL, plus an optional step in code for what SQL cannot do
// (sealing values with the data dir's SecretBox).
import type Database from 'better-sqlite3';
import type { SecretBox } from '../../platform/secret-box.js';

/** What a migration's code step may use. */
export interface MigrationContext {
  /** The data dir's cipher; absent when the database is opened without a data dir (unit tests). */
  secretBox?: SecretBox | undefined;
}

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Runs after `sql`, in the same transaction. */
  run?: (db: Database.Database, context: MigrationContext) => void;
}
