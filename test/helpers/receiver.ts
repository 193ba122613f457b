// A real webhook receiver for end-to-end tests: an HTTP server on 127.0.0.1 (port 0) that
// records every request (method, path, headers, raw body, arrival time) and answers as told:
// a given status, after a delay, or failing the next N requests.
import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import { closeServer, listenLocally } from './local-server.js';
import { HANG_TIMEOUT_MS, Wakeup } from './waiting.js';

export interface ReceivedRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  /** Header names in lower case. */
  headers: IncomingHttpHeaders;
  /** The body exactly as received. */
  rawBody: Buffer;
  /** rawBody as UTF-8. */
  body: string;
  /** Date.now() when the whole body had arrived. */
  receivedAt: number;
  /** The status this request was answered with (or would have been, had the client waited). */
  answeredWith: number;
  /** The body parsed as JSON (throws if it is not JSON). */
  json<T = any>(): T;
  /** A header as one string (the first value when repeated). */
  header(name: string): string | undefined;
}

export interface Receiver {
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  /** origin + /hooks: where webhooks in tests point. */
  readonly url: string;
  /** Every request so far, in arrival order. */
  readonly requests: ReceivedRequest[];
  /** The status every request gets from now on (default 200). */
  respondWith(status: number): void;
  /** Answers only after this many ms (0 = at once). */
  delay(ms: number): void;
  /**
   * Holds every answer from now on until release(): requests are recorded as they arrive, and
   * stay in flight for as long as the test needs, however slow the machine (a delay is a guess).
   */
  hold(): void;
  /** Answers the held requests (as told when they arrived) and stops holding. */
  release(): void;
  /** The next `count` requests get `status` (default 500), then the usual answer again. */
  failNext(count: number, status?: number): void;
  /**
   * Resolves true once `predicate` holds on the requests so far (checked on every arrival),
   * false after `timeoutMs` (by default HANG_TIMEOUT_MS: a guard against a hang, which the load
   * of a shared machine does not reach; a short one only where nothing should arrive).
   */
  waitFor(
    predicate: (requests: ReceivedRequest[]) => boolean,
    timeoutMs?: number,
  ): Promise<boolean>;
  /**
   * Waits until at least `count` requests arrived in all; returns them (throws after
   * `timeoutMs`, by default HANG_TIMEOUT_MS).
   */
  waitForCount(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /** Forgets the requests recorded so far. */
  clear(): void;
  close(): Promise<void>;
}

/** Starts a receiver; pass the test's `t` (or anything with teardown) to close it afterwards. */
export async function startReceiver(owner?: {
  teardown(fn: () => Promise<void> | void): void;
}): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const arrivals = new Wakeup();
  const pending = new Set<NodeJS.Timeout>();
  let status = 200;
  let delayMs = 0;
  let failures = 0;
  let failureStatus = 500;
  let holding = false;
  const held: (() => void)[] = [];

  const answer = (res: ServerResponse, code: number) => {
    if (res.destroyed || res.writableEnded) return;
    res.statusCode = code;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ received: code >= 200 && code < 300 }));
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      let code = status;
      if (failures > 0) {
        failures -= 1;
        code = failureStatus;
      }
      const body = rawBody.toString('utf8');
      const headers = req.headers;
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers,
        rawBody,
        body,
        receivedAt: Date.now(),
        answeredWith: code,
        json: () => JSON.parse(body),
        header(name) {
          const value = headers[name.toLowerCase()];
          return Array.isArray(value) ? value[0] : value;
        },
      });
      arrivals.wake();
      if (holding) {
        held.push(() => answer(res, code));
      } else if (delayMs > 0) {
        const timer = setTimeout(() => {
          pending.delete(timer);
          answer(res, code);
        }, delayMs);
        pending.add(timer);
      } else {
        answer(res, code);
      }
    });
  });
  const origin = await listenLocally(server);
  let closed: Promise<void> | undefined;

  const receiver: Receiver = {
    origin,
    url: `${origin}/hooks`,
    requests,
    respondWith(code) {
      status = code;
    },
    delay(ms) {
      delayMs = ms;
    },
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      for (const answerHeld of held.splice(0)) answerHeld();
    },
    failNext(count, code = 500) {
      failures = count;
      failureStatus = code;
    },
    waitFor(predicate, timeoutMs = HANG_TIMEOUT_MS) {
      return arrivals
        .until(() => closed !== undefined || predicate(requests), timeoutMs)
        .then((held) => held && predicate(requests));
    },
    async waitForCount(count, timeoutMs = HANG_TIMEOUT_MS) {
      if (!(await receiver.waitFor((all) => all.length >= count, timeoutMs))) {
        throw new Error(
          `receiver got ${requests.length} request(s), expected ${count} within ${timeoutMs} ms`,
        );
      }
      return requests.slice(0, count);
    },
    clear() {
      requests.length = 0;
    },
    close() {
      closed ??= (() => {
        for (const timer of pending) clearTimeout(timer);
        pending.clear();
        held.length = 0;
        const done = closeServer(server);
        arrivals.wake();
        return done;
      })();
      return closed;
    },
  };
  owner?.teardown(() => receiver.close());
  return receiver;
}
