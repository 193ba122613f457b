// Webhook signatures: `X-Svc-Signature: t=<unix seconds>,v1=<hex>` where v1 is the lowercase
// hex HMAC-SHA256 of `<t>.<raw body>` keyed by the whole webhook secret (whsec_...).
// verifySignature is the receiver helper the package exports.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Svc-Signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;

export function computeSignature(
  secret: string,
  timestamp: number,
  rawBody: string | Buffer,
): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

/** The header value for a body signed now (or at the given unix time). */
export function signatureHeader(
  secret: string,
  rawBody: string | Buffer,
  timestamp = Math.floor(Date.now() / 1000),
): string {
  return `t=${timestamp},v1=${computeSignature(secret, timestamp, rawBody)}`;
}

export type VerifyResult =
  | { valid: true; timestamp: number }
  | {
      valid: false;
      reason:
        | 'missing_header'
        | 'malformed_header'
        | 'timestamp_out_of_tolerance'
        | 'no_matching_signature';
    };

export interface VerifyOptions {
  /** Seconds a timestamp may differ from now; default 300. */
  toleranceSeconds?: number;
  /** Unix seconds to compare with; default the real time now. */
  now?: number;
}

/**
 * Verifies a delivery: parses the header (several v1= values are accepted, e.g. during secret
 * rotation), rejects timestamps outside the tolerance, and compares signatures in constant time.
 * Pass the raw body exactly as received, before any JSON parsing.
 */
export function verifySignature(
  rawBody: string | Buffer,
  header: string | null | undefined,
  secret: string,
  options: VerifyOptions = {},
): VerifyResult {
  if (!header) return { valid: false, reason: 'missing_header' };
  let timestamp: number | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const [key, value] = part.trim().split('=', 2);
    if (!key || value === undefined) continue;
    if (key === 't' && /^\d+$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) candidates.push(value.toLowerCase());
  }
  if (timestamp === undefined || candidates.length === 0)
    return { valid: false, reason: 'malformed_header' };
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) {
    return { valid: false, reason: 'timestamp_out_of_tolerance' };
  }
  const expected = Buffer.from(computeSignature(secret, timestamp, rawBody), 'hex');
  const matches = candidates.some((candidate) => {
    const given = Buffer.from(candidate, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matches ? { valid: true, timestamp } : { valid: false, reason: 'no_matching_signature' };
}
