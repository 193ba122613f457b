// PostgreSQL's errors as the rest of the daemon knows store errors: with the `code` SQLite
// gives the same failure (a constraint, a full disk), so that a check such as isStorageFull
// (storage-full.ts) holds for both stores. The SQLSTATE stays on the error as `sqlState`.
import type { Failure } from './protocol.js';

/** SQLSTATE -> the code SQLite gives the same failure. */
const SQLITE_CODES: Record<string, string> = {
  '23505': 'SQLITE_CONSTRAINT_UNIQUE',
  '23503': 'SQLITE_CONSTRAINT_FOREIGNKEY',
  '23502': 'SQLITE_CONSTRAINT_NOTNULL',
  '23514': 'SQLITE_CONSTRAINT_CHECK',
  // disk_full: the transaction is rolled back, what was committed stays (as SQLITE_FULL).
  '53100': 'SQLITE_FULL',
  // A text with a NUL character (U+0000), which PostgreSQL's text cannot hold (SQLite's can):
  // a request's fault, answered 400 (store-errors.ts isTextRefused), not a server error.
  '22021': 'STORE_TEXT_REFUSED',
  '22P05': 'STORE_TEXT_REFUSED',
};

export class PostgresError extends Error {
  readonly code: string;

  constructor(
    message: string,
    readonly sqlState: string | undefined,
    readonly constraint: string | undefined,
  ) {
    super(message);
    this.name = 'PostgresError';
    const code = sqlState === undefined ? undefined : SQLITE_CODES[sqlState];
    // A primary key is a unique constraint named <table>_pkey.
    this.code =
      code === 'SQLITE_CONSTRAINT_UNIQUE' && constraint?.endsWith('_pkey')
        ? 'SQLITE_CONSTRAINT_PRIMARYKEY'
        : (code ?? `PG_${sqlState ?? 'ERROR'}`);
  }
}

export function postgresError(failure: Failure): PostgresError {
  return new PostgresError(failure.message, failure.code, failure.constraint);
}
