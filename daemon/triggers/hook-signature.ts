// What identifies one signed webhook-trigger request, for refusing copies of it (issue 38): the
// digest of the signature the daemon computes itself over "<t>.<raw body>", not of the header
// as sent, so that a copy with a reformatted header (spaces, upper-case hex, an extra v1=) is
// still the same request. The digest, not the signature, is stored: a row of the store (or of
// an exported snapshot) is never a header that verifies.
import { createHash } from 'node:crypto';
import { computeSignature, DEFAULT_TOLERANCE_SECONDS } from '../../shared/signature.js';
import { toIso } from '../time/clock.js';
import { ApiError } from '../domain/errors.js';

export interface SignedRequest {
  digest: string;
  /**
   * Real time (ms) from which the signature fails the timestamp check (|now - t| > tolerance in
   * whole seconds), so that forgetting the request then lets no copy through.
   */
  expiresAt: number;
}

export function signedRequest(
  secret: string,
  timestamp: number,
  rawBody: string,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
): SignedRequest {
  const signature = computeSignature(secret, timestamp, rawBody);
  return {
    digest: createHash('sha256').update(signature).digest('hex'),
    expiresAt: (timestamp + toleranceSeconds + 1) * 1000,
  };
}

/** 409 webhook_replayed for a copy of a request that started `executionId`. */
export function replayRefusal(accepted: { execution_id: string; accepted_at: number }): ApiError {
  return new ApiError(
    'webhook_replayed',
    `This signed request was already accepted at ${toIso(accepted.accepted_at)} and started run ${accepted.execution_id}; a signature starts one run only. To start the workflow again, sign the request anew with the current unix time as t (two identical bodies signed in the same second are the same request: put something that differs, such as an id, in the body).`,
    { param: 'X-Svc-Signature', extras: { execution_id: accepted.execution_id } },
  );
}
