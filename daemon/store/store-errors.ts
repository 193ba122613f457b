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
 * Team mode: a daemon of a newer schema would migrate the sandbox under live daemons of the
 * older one, whose statements would then meet a schema they do not know. It refuses to join.
 */
export class SandboxInUseByOlderSchemaError extends Error {
  constructor(
    readonly sandbox: string,
    readonly found: number,
    readonly wanted: number,
    readonly daemons: readonly { address: string; host: string; pid: number }[],
  ) {
    const named = daemons
      .map((daemon) => `${daemon.address} (pid ${daemon.pid} on ${daemon.host})`)
      .join(', ');
    super(
      `The sandbox ${sandbox} has schema version ${found} and is served by daemons of that version: ${named}. ` +
        `This svc would migrate it to version ${wanted} under them, so it does not join. ` +
        'Stop those daemons (svc daemon stop on each), start this one alone (it migrates the sandbox), ' +
        'then start the others again with this version of svc.',
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

/** The store refused a text the request carried (PostgreSQL: a NUL character, U+0000). */
export function isTextRefused(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'STORE_TEXT_REFUSED';
}

/**
 * PostgreSQL aborted the transaction for a conflict with another one (deadlock_detected 40P01,
 * serialization_failure 40001): two daemons' group commits took row locks in another order. Run
 * again, it passes once the other has committed. SQLite, with one writer, never gives it.
 */
export function isTransactionConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'PG_40P01' || code === 'PG_40001';
}
