// Errors of the store that callers above it may tell apart, whichever adapter raised them.

/** The schema was written by a newer svc than this one (either store). */
export class SchemaTooNewError extends Error {
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `The database has schema version ${found} but this svc knows only up to ${known}. ` +
        'It was written by a newer svc: upgrade svc, or use another --data-dir.',
    );
  }
}

/**
 * The store cannot be reached (PostgreSQL down, restarting, the network between). The statement
 * did not run (or its transaction was rolled back by the server); retrying later may succeed:
 * the adapter connects again on the next statement.
 */
export class StoreUnavailableError extends Error {
  readonly code = 'STORE_UNAVAILABLE';

  constructor(
    /** Where the store is, e.g. `localhost:5432/svc` (never the password). */
    readonly where: string,
    readonly reason: string,
  ) {
    super(
      `The store at ${where} cannot be reached (${reason}). Check that PostgreSQL is running there.`,
    );
    this.name = 'StoreUnavailableError';
  }
}
