// The HTTP calls of OutboundHttp (http.ts), made in its worker thread with undici's dispatcher
// API: the URL policy, a check of the address each connection really uses, a timeout over the
// whole call, no redirects (a 3xx is the answer), a cap on the response body and one user agent.
//
// Not ky, which makes the CLI's calls: ky builds a WHATWG Request for every call (a second one
// to keep for retries), each given an AbortSignal, and undici's Request registers a signal with
// a FinalizationRegistry, whose entries (and what they hold) only a full collection clears. So
// every call's objects were promoted, and full collections of the worker's heap, 10-25 ms
// pauses, held the deliveries behind them (figures with ky and without: README, Performance).
//
// The address check runs when the socket connects, on the addresses the name resolves to at
// that moment (a custom lookup on an undici Agent): a DNS answer that changes between the URL
// check and the connection cannot pass, and a refused address is never connected to. Literal
// IP addresses skip DNS and are checked before connecting too; the socket's remote address is
// checked once more after connecting, before anything is sent.
import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import { performance } from 'node:perf_hooks';
import { isIP, type Socket } from 'node:net';
import type { Agent, buildConnector, Dispatcher } from 'undici';
import { VERSION } from '../../shared/package-info.js';
import { ApiError } from '../domain/errors.js';
import { addressRange, checkOutboundUrl, isPublicAddress, type UrlPolicy } from './url-policy.js';
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  type OutboundFailure,
  type OutboundRequest,
  type OutboundResult,
} from './http.js';

/** Raised inside the connector when an address is refused; turned into a 'refused_address' failure. */
class RefusedAddressError extends Error {
  readonly code = 'SVC_REFUSED_ADDRESS';
  constructor(host: string, address: string) {
    super(
      `${host} resolves to ${address} (${addressRange(address)}), an address production does not call. Start the daemon with --allow-private-network to allow it.`,
    );
  }
}

class TooLargeError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

type Undici = typeof import('undici');

const USER_AGENT = `svc/${VERSION}`;

export class HttpCaller {
  /** undici is loaded at the first call: it costs daemon start-up time that most runs never use. */
  private client?: Promise<Agent>;

  constructor(private readonly policy: UrlPolicy) {}

  private agent(): Promise<Agent> {
    this.client ??= import('undici').then((undici) => {
      const checkAddresses =
        this.policy.environment === 'production' && !this.policy.allowPrivateNetwork;
      return new undici.Agent({
        connect: checkAddresses ? guardedConnector(undici) : undefined,
        // Idle sockets are kept briefly (the receivers of a burst of deliveries are the same).
        keepAliveTimeout: 4_000,
      });
    });
    return this.client;
  }

  /**
   * One HTTP call: never throws, never retries, never follows a redirect. Callers that keep
   * schedules (deliveries, workflow steps) decide what a failure means. The timeout covers the
   * whole call, the answer's body included.
   */
  async request(call: OutboundRequest): Promise<OutboundResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const failed = (
      reason: OutboundFailure['reason'],
      message: string,
      status: number | null = null,
    ): OutboundFailure => ({ type: 'failed', reason, message, status, timeMs: elapsed() });
    let url: URL;
    try {
      url = new URL(checkOutboundUrl(call.url, this.policy, call.param));
    } catch (error) {
      return failed('invalid_url', error instanceof ApiError ? error.message : String(error));
    }
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), call.timeoutMs);
    try {
      const agent = await this.agent();
      const answer = await agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: (call.method ?? 'GET').toUpperCase() as Dispatcher.HttpMethod,
        headers: requestHeaders(call.headers),
        body: call.body,
        signal: timeout.signal,
      });
      const body = await readCapped(answer, call.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
      return { type: 'response', status: answer.statusCode, body, timeMs: elapsed() };
    } catch (error) {
      if (timeout.signal.aborted) {
        return failed('timeout', `No answer within ${formatSeconds(call.timeoutMs)}.`);
      }
      if (error instanceof TooLargeError) return failed('too_large', error.message, error.status);
      const refused = findCause(error, (cause) => cause instanceof RefusedAddressError);
      if (refused) return failed('refused_address', `Refused: ${refused.message}`);
      const cause = findCause(error, (c) => typeof (c as { code?: unknown }).code === 'string');
      const code = (cause as { code?: string } | undefined)?.code;
      // undici refuses what it cannot send (a header value with a line break, say) before
      // connecting; its message names the part.
      if (code === 'UND_ERR_INVALID_ARG') {
        return failed('connect', `The request was not sent: ${(cause as Error).message}.`);
      }
      return failed(
        'connect',
        `Could not connect: ${code ?? (error instanceof Error ? error.message : String(error))}.`,
      );
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    if (this.client) await (await this.client).close();
  }
}

/**
 * The call's headers with names in lower case (a later spelling of the same name wins) and the
 * daemon's user agent unless the call sets one. No prototype: a step's header may be named
 * anything, `__proto__` included.
 */
function requestHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const sent: Record<string, string> = Object.create(null) as Record<string, string>;
  sent['user-agent'] = USER_AGENT;
  if (headers)
    for (const [name, value] of Object.entries(headers)) sent[name.toLowerCase()] = value;
  return sent;
}

/** A connector that connects only to public addresses (see isPublicAddress). */
function guardedConnector(undici: Undici): buildConnector.connector {
  const base = undici.buildConnector({ lookup: guardedLookup, timeout: 10_000 });
  return (options, callback) => {
    const host = options.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && !isPublicAddress(host)) {
      callback(new RefusedAddressError(host, host), null);
      return;
    }
    base(options, (error, socket) => {
      if (error || !socket) {
        callback(error ?? new Error('no socket'), null);
        return;
      }
      // The address the socket really uses: a last check before anything is written to it.
      const remote = (socket as Socket).remoteAddress;
      if (remote && !isPublicAddress(remote)) {
        socket.destroy();
        callback(new RefusedAddressError(host, remote), null);
        return;
      }
      callback(null, socket);
    });
  };
}

/** dns.lookup, refusing the name when any address it resolves to is not public. */
function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) {
      callback(error, []);
      return;
    }
    const refused = addresses.find((entry) => !isPublicAddress(entry.address));
    if (refused) {
      callback(new RefusedAddressError(hostname, refused.address) as NodeJS.ErrnoException, []);
      return;
    }
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}

/** Reads the body as UTF-8, failing past maxBytes (the call's signal ends it on timeout). */
async function readCapped(answer: Dispatcher.ResponseData, maxBytes: number): Promise<string> {
  const declared = Number(answer.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    discard(answer.body);
    throw new TooLargeError(
      `The answer is ${declared} bytes, over the ${maxBytes} bytes read at most.`,
      answer.statusCode,
    );
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of answer.body as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      discard(answer.body);
      throw new TooLargeError(
        `The answer is over the ${maxBytes} bytes read at most.`,
        answer.statusCode,
      );
    }
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
}

/** Closes an answer's body unread (the connection is dropped; nobody waits on its error). */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

function findCause(error: unknown, test: (cause: unknown) => boolean): Error | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 8; depth++) {
    if (test(current)) return current as Error;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
