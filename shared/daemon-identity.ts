// How a daemon proves it is the one a data dir records, before the CLI sends it that data dir's
// control token. Each start draws a daemon id and writes it to daemon.json (mode 0600, read by
// the data dir's owner alone). The CLI asks GET /control/identity?nonce=<fresh random> and the
// daemon answers the HMAC of the nonce keyed by its id: only a process that knows the id can
// answer, and the id itself never crosses the wire, so a listener on a mistyped port learns
// nothing it could replay (a fresh nonce each time).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const IDENTITY_PATH = '/control/identity';

/** A nonce is 32 to 128 hex characters: the CLI sends 64. */
export const NONCE_PATTERN = /^[0-9a-f]{32,128}$/;

export function newDaemonId(): string {
  return randomBytes(32).toString('base64url');
}

export function newNonce(): string {
  return randomBytes(32).toString('hex');
}

export function identityProof(daemonId: string, nonce: string): string {
  return createHmac('sha256', daemonId).update(`svc-daemon-identity:${nonce}`).digest('hex');
}

/** Whether `proof` answers `nonce` for `daemonId`, compared in constant time. */
export function isIdentityProof(daemonId: string, nonce: string, proof: unknown): boolean {
  if (typeof proof !== 'string') return false;
  const expected = Buffer.from(identityProof(daemonId, nonce));
  const given = Buffer.from(proof);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
