// Which URLs the daemon may call out to. The sandbox allows http:// (receivers on localhost);
// production requires https:// and refuses loopback and private addresses unless the daemon
// runs with --allow-private-network. This checks the URL as written (when it is stored and
// before each call); daemon/outbound/http.ts checks the address each connection really uses.
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ApiError } from '../domain/errors.js';
import type { Environment } from '../domain/environment.js';

export interface UrlPolicy {
  environment: Environment;
  allowPrivateNetwork: boolean;
}

export function checkOutboundUrl(raw: string, policy: UrlPolicy, param = 'url'): string {
  const accepted = acceptedSchemes(policy.environment);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ApiError(
      'invalid_url',
      `'${truncate(raw)}' is not a valid URL. Use an absolute ${accepted} URL.`,
      { param },
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ApiError(
      'invalid_url',
      `The URL must use ${accepted} in the ${policy.environment} environment (got ${url.protocol}).`,
      { param },
    );
  }
  if (url.protocol === 'http:' && policy.environment === 'production') {
    throw new ApiError(
      'invalid_url',
      'The URL must use https:// in the production environment (http:// is accepted in the sandbox).',
      { param },
    );
  }
  if (url.username || url.password) {
    throw new ApiError(
      'invalid_url',
      'The URL must not carry credentials (user:password@). Send them in headers instead.',
      { param },
    );
  }
  if (
    policy.environment === 'production' &&
    !policy.allowPrivateNetwork &&
    isPrivateHost(url.hostname)
  ) {
    throw new ApiError(
      'invalid_url',
      `The URL points at a loopback or private address (${url.hostname}), which production refuses. Start the daemon with --allow-private-network to allow it.`,
      { param },
    );
  }
  return url.toString();
}

export function isPrivateHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local')) return true;
  return isIP(host) !== 0 && addressRange(host) !== 'unicast';
}

/**
 * The ipaddr.js range of an address (IPv4-mapped IPv6 taken as the IPv4 it carries):
 * 'unicast' is a public address; anything else (loopback, private, linkLocal, uniqueLocal,
 * carrierGradeNat, multicast, unspecified, broadcast, reserved, and IPv6 forms that embed an
 * IPv4 address such as 6to4 or rfc6052) is not called in production.
 */
export function addressRange(address: string): string {
  return ipaddr.process(address.replace(/^\[|\]$/g, '').replace(/%.*$/, '')).range();
}

/** Whether production may connect to this address (see addressRange). */
export function isPublicAddress(address: string): boolean {
  try {
    return addressRange(address) === 'unicast';
  } catch {
    return false;
  }
}

/** The schemes a URL may use, as a message names them: the sandbox also calls local receivers. */
function acceptedSchemes(environment: Environment): string {
  return environment === 'production' ? 'https://' : 'http:// or https://';
}

function truncate(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
