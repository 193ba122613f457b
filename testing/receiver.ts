// sb.receiver(): a webhook receiver on loopback that records what svc sends, checks each
// delivery's X-Svc-Signature (shared/signature.ts) against the signing secrets of the
// sandbox's webhooks pointing at it, and lets a test await a delivery instead of polling.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseDuration } from '../shared/duration.js';
import { verifySignature, type VerifyResult } from '../shared/signature.js';

export interface Received {
  /** X-Svc-Event-Type (a delivery), else null (a workflow's webhook step, another caller). */
  type: string | null;
  eventId: string | null;
  deliveryId: string | null;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** The body parsed as JSON (undefined when it is not JSON); any, so a test reads its fields. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** A delivery's signature check; null for requests that are not deliveries. */
  signature: VerifyResult | null;
}

export type Answer = number | ((request: Received) => number | Promise<number>);

export interface NextOptions {
  type?: string;
  filter?: (request: Received) => boolean;
  /** '5s', '500ms' or milliseconds; default 5s. */
  timeout?: string | number;
}

export interface Receiver {
  /** http://127.0.0.1:<port>/hooks: where a webhook or a step points. */
  readonly url: string;
  /**
   * The first request (received already or yet to come, each handed out once) that matches;
   * rejects at the timeout naming what did arrive, or when a matching delivery's signature fails.
   */
  next(options?: NextOptions): Promise<Received>;
  /** Every request so far, in arrival order. */
  all(): Received[];
  /** The status each request gets from now on, or a function deciding it (default 200). */
  respondWith(answer: Answer): void;
  close(): Promise<void>;
}

interface Waiter {
  matches(request: Received): boolean;
  resolve(request: Received): void;
  reject(error: Error): void;
}

export async function startReceiver(secrets: (url: string) => string[]): Promise<Receiver> {
  const received: Received[] = [];
  const taken = new Set<Received>();
  const waiters = new Set<Waiter>();
  let answer: Answer = 200;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on(
      'end',
      () =>
        void handle(req.method ?? 'GET', req.url ?? '/', req.headers, Buffer.concat(chunks), res),
    );
  });
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;

  async function handle(
    method: string,
    path: string,
    headers: IncomingHttpHeaders,
    raw: Buffer,
    res: ServerResponse,
  ) {
    const rawBody = raw.toString('utf8');
    const deliveryId = header(headers, 'x-svc-delivery-id');
    const request: Received = {
      type: header(headers, 'x-svc-event-type'),
      eventId: header(headers, 'x-svc-event-id'),
      deliveryId,
      method,
      path,
      headers,
      rawBody,
      body: parseJson(rawBody),
      signature: deliveryId ? check(rawBody, header(headers, 'x-svc-signature')) : null,
    };
    received.push(request);
    let status = 500;
    try {
      status = typeof answer === 'number' ? answer : await answer(request);
    } finally {
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    }
    for (const waiter of waiters) {
      if (!taken.has(request) && waiter.matches(request)) {
        taken.add(request);
        waiter.resolve(request);
      }
    }
  }

  function check(rawBody: string, signature: string | null): VerifyResult {
    const hooks = secrets(url);
    let result: VerifyResult = { valid: false, reason: 'no_matching_signature' };
    for (const secret of hooks) {
      result = verifySignature(rawBody, signature, secret);
      if (result.valid) return result;
    }
    return result;
  }

  return {
    url,
    all: () => [...received],
    respondWith(next) {
      answer = next;
    },
    next(options = {}) {
      const timeoutMs = durationMs(options.timeout ?? '5s');
      const what = `request${options.type ? ` of type ${options.type}` : ''}${options.filter ? ' that passes the filter' : ''}`;
      const matches = (request: Received) =>
        (!options.type || request.type === options.type) &&
        (!options.filter || options.filter(request));
      return new Promise<Received>((resolve, reject) => {
        const done = (request: Received) => {
          clearTimeout(timer);
          waiters.delete(waiter);
          if (request.signature && !request.signature.valid) {
            reject(
              new Error(
                `Receiver ${url}: delivery ${request.deliveryId} (${request.type}) has a bad X-Svc-Signature (${request.signature.reason}): it was not signed with the secret of a webhook of this sandbox that points here.`,
              ),
            );
          } else resolve(request);
        };
        const waiter: Waiter = { matches, resolve: done, reject };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          const seen = received.map((r) => r.type ?? `${r.method} ${r.path}`);
          reject(
            new Error(
              `Receiver ${url}: no ${what} within ${options.timeout ?? '5s'}; received ${seen.length ? seen.join(', ') : 'nothing'}.`,
            ),
          );
        }, timeoutMs);
        const ready = received.find((request) => !taken.has(request) && matches(request));
        if (ready) {
          taken.add(ready);
          done(ready);
        } else waiters.add(waiter);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const waiter of waiters) waiter.reject(new Error(`Receiver ${url} closed.`));
        waiters.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function durationMs(value: string | number): number {
  if (typeof value === 'number') return value;
  const ms = parseDuration(value);
  if (ms === null) throw new TypeError(`Not a duration: "${value}" (use 500ms, 5s, 15m, 1h).`);
  return ms;
}

function header(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
