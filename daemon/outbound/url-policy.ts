// Which URLs the daemon may call out to. The sandbox allows http:// (receivers on localhost);
// production requires https:// and refuses loopback and private addresses unless the daemon
// runs with --allow-private-network.
import { isIP } from 'node:net';
import { ApiError } from '../domain/errors.js';
import type { Environment } from '../keys/key-material.js';

export interface UrlPolicy {
  environment: Environment;
  allowPrivateNetwork: boolean;
}

export function checkOutboundUrl(raw: string, policy: UrlPolicy, param = 'url'): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ApiError(
      'invalid_url',
      `'${truncate(raw)}' is not a valid URL. Use an absolute https:// URL.`,
      { param },
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ApiError('invalid_url', `The URL must use https:// (got ${url.protocol}).`, {
      param,
    });
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
  const version = isIP(host);
  if (version === 4) {
    const [a, b] = host.split('.').map(Number) as [number, number];
    return (
      a === 127 ||
      a === 10 ||
      a === 0 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 169 && b === 254) ||
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  if (version === 6) {
    return (
      host === '::1' ||
      host === '::' ||
      host.startsWith('fc') ||
      host.startsWith('fd') ||
      host.startsWith('fe80') ||
      host.startsWith('::ffff:')
    );
  }
  return false;
}

function truncate(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
