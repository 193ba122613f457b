// A statement the store could not run because PostgreSQL cannot be reached (down, restarting,
// the network between): nothing was changed, and the adapter connects again on the next
// statement. The client gets 503 service_unavailable with Retry-After, not a 500: the request
// may be sent again as it was once the store is back.
import { ApiError } from '../domain/errors.js';
import { StoreUnavailableError } from './store-errors.js';

/** Seconds a client is asked to wait: a PostgreSQL restart takes a few. */
export const STORE_RETRY_AFTER_SECONDS = 5;

export function isStoreUnavailable(error: unknown): error is StoreUnavailableError {
  return (
    error instanceof StoreUnavailableError ||
    (error as { code?: unknown } | null | undefined)?.code === 'STORE_UNAVAILABLE'
  );
}

/** The answer to a request the store could not serve now (503, Retry-After). */
export function storeUnavailable(error: StoreUnavailableError): ApiError {
  const where = typeof error.where === 'string' ? error.where : 'the PostgreSQL store';
  return new ApiError(
    'service_unavailable',
    `The sandbox's store (PostgreSQL at ${where}) cannot be reached just now; nothing was changed. Retry after ${STORE_RETRY_AFTER_SECONDS} seconds.`,
    { headers: { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) } },
  );
}
