// Holds the running app behind one listening HTTP server, so that the store can be swapped
// (`svc state import|reset`) without the daemon going away: the server stays, its requests go
// to the current app. A swap stops taking new requests (they wait, then go to the new app),
// lets the requests in flight finish, drains and closes the services and the database, replaces
// the database file, and builds the whole app again on it: every cache, timer and run in memory
// comes from the new store, none survives from the old one.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { existsSync, renameSync, rmSync } from 'node:fs';
import type { Logger } from 'pino';
import { buildApp, type AppOptions, type SvcApp } from '../app/app.js';
import { answerClientError } from '../http/error-handler.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** How long a swap waits for requests in flight before it goes ahead anyway. */
const DRAIN_WAIT_MS = 10_000;

interface Generation {
  svc: SvcApp;
  handler: Handler;
  inFlight: Set<ServerResponse>;
  /** A response's 'close' listener: one function for all of them, no closure per request. */
  untrack: (this: ServerResponse) => void;
}

export class AppHost {
  readonly server: Server;
  private current!: Generation;
  private waiting: [IncomingMessage, ServerResponse][] | undefined;
  private swapping: Promise<unknown> | undefined;

  constructor(
    private readonly options: Omit<AppOptions, 'serverFactory'>,
    private readonly databaseFile: string,
    private readonly logger: Logger | undefined,
  ) {
    this.server = createServer((req, res) => this.dispatch(req, res));
    this.server.on('clientError', answerClientError);
    this.server.keepAliveTimeout = 72_000;
  }

  get svc(): SvcApp {
    return this.current.svc;
  }

  async build(): Promise<SvcApp> {
    this.current = await this.generation();
    return this.current.svc;
  }

  private async generation(): Promise<Generation> {
    let handler: Handler | undefined;
    const svc = await buildApp({
      ...this.options,
      // Fastify routes requests through the handler it gives here; the host's server calls it.
      serverFactory: (fastifyHandler) => {
        handler = fastifyHandler as Handler;
        return createServer();
      },
    });
    await svc.app.ready();
    const inFlight = new Set<ServerResponse>();
    return {
      svc,
      handler: handler!,
      inFlight,
      untrack() {
        inFlight.delete(this);
      },
    };
  }

  private dispatch(req: IncomingMessage, res: ServerResponse): void {
    if (this.waiting) {
      this.waiting.push([req, res]);
      return;
    }
    const generation = this.current;
    generation.inFlight.add(res);
    res.on('close', generation.untrack);
    generation.handler(req, res);
  }

  /**
   * Swaps the store: `replace` runs once the old app is closed and puts the new database file in
   * place. If the new app cannot start, the old database comes back and the error is thrown.
   */
  async swap(replace: () => void): Promise<void> {
    if (this.swapping) {
      throw new Error('Another import or reset is under way; try again when it has finished.');
    }
    const run = this.doSwap(replace);
    this.swapping = run;
    try {
      await run;
    } finally {
      this.swapping = undefined;
    }
  }

  private async doSwap(replace: () => void): Promise<void> {
    const old = this.current;
    this.waiting = [];
    const started = Date.now();
    // The request that asked for the swap (and live streams) stay open: wait for the rest.
    while ([...old.inFlight].some((res) => !exempt(res)) && Date.now() - started < DRAIN_WAIT_MS) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await old.svc.drain();
    const backup = `${this.databaseFile}.before-swap`;
    rmSync(backup, { force: true });
    for (const suffix of ['-wal', '-shm']) rmSync(this.databaseFile + suffix, { force: true });
    if (existsSync(this.databaseFile)) renameSync(this.databaseFile, backup);
    try {
      replace();
      this.current = await this.generation();
    } catch (error) {
      this.logger?.error({ err: error }, 'store swap failed; the previous store is back');
      rmSync(this.databaseFile, { force: true });
      for (const suffix of ['-wal', '-shm']) rmSync(this.databaseFile + suffix, { force: true });
      if (existsSync(backup)) renameSync(backup, this.databaseFile);
      this.current = await this.generation();
      throw error;
    } finally {
      this.current?.svc.start();
      this.resume();
      this.retire(old);
    }
    rmSync(backup, { force: true });
  }

  private resume(): void {
    const waiting = this.waiting ?? [];
    this.waiting = undefined;
    for (const [req, res] of waiting) this.dispatch(req, res);
  }

  /** Ends the old app's live streams (their services are gone) and closes it. */
  private retire(old: Generation): void {
    for (const res of old.inFlight) {
      if (isStream(res)) res.destroy();
    }
    void old.svc.app.close().catch(() => undefined);
  }

  /** Stops listening, lets requests in flight finish (up to 10 s), then closes the app. */
  async close(): Promise<void> {
    await this.swapping?.catch(() => undefined);
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    const generation = this.current;
    for (const res of generation.inFlight) if (isStream(res)) res.destroy();
    const started = Date.now();
    while (generation.inFlight.size > 0 && Date.now() - started < DRAIN_WAIT_MS) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await generation.svc.close();
    this.server.closeAllConnections();
    await closed;
  }
}

function isStream(res: ServerResponse): boolean {
  return String(res.getHeader('content-type') ?? '').includes('text/event-stream');
}

function exempt(res: ServerResponse): boolean {
  const url = res.req?.url ?? '';
  return isStream(res) || url.startsWith('/trpc/state.');
}
