// The dashboard's front door. Any web page the user visits can reach a server on localhost, so
// every request under /ui must come from a loopback client and name the daemon itself in `Host`
// (a DNS-rebinding page sends its own name); every state-changing request must also come from
// the dashboard's own origin and carry the session's CSRF token. Every answer forbids framing
// and inline script.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerUrls } from '../domain/urls.js';
import { isLoopback } from '../http/loopback.js';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** The Host values that name this daemon: its own address, and loopback names on its port. */
export function allowedHosts(urls: ServerUrls): Set<string> {
  const own = new URL(urls.app);
  const port = own.port || '80';
  return new Set([own.host.toLowerCase(), ...LOOPBACK_NAMES.map((name) => `${name}:${port}`)]);
}

export type Refusal = { status: 403; message: string } | undefined;

/** Why a request to the dashboard is refused before any route sees it, if it is. */
export function refuse(request: FastifyRequest, urls: ServerUrls): Refusal {
  if (!isLoopback(request.socket.remoteAddress)) {
    return { status: 403, message: 'The dashboard answers clients on this machine only.' };
  }
  const hosts = allowedHosts(urls);
  const host = (request.headers.host ?? '').toLowerCase();
  if (!hosts.has(host)) {
    return {
      status: 403,
      message: `Host "${host}" is not this daemon. Open the dashboard at ${urls.app}/ui.`,
    };
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    const origin = request.headers.origin;
    if (!origin || !sameOrigin(origin, hosts)) {
      return {
        status: 403,
        message: 'Changes are accepted only from the dashboard page itself (Origin check).',
      };
    }
  }
  return undefined;
}

function sameOrigin(origin: string, hosts: Set<string>): boolean {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' && hosts.has(url.host.toLowerCase());
  } catch {
    return false;
  }
}

export function setSecurityHeaders(reply: FastifyReply): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value);
}
