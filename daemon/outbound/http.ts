// Every HTTP call the daemon makes to the outside (webhook deliveries, the webhook test
// endpoint, the OpenAI-compatible brain, workflow webhook steps) goes through OutboundHttp. The
// calls are made in a worker thread (http-worker.ts, with HttpCaller: ky, the URL policy, the
// address check, timeouts, caps): building and sending a request and reading its answer is
// several times the CPU of handing it over, and the daemon's own thread serves the API, runs
// the engine and writes the store. Measured on the five-step workflow bench (one webhook call
// per run): about a sixth of the main thread's time per run moved off it.
import { Worker } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { workerScript } from '../worker-script.js';
import type { UrlPolicy } from './url-policy.js';

/** Bytes of a response body read at most, unless the call asks otherwise. */
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

export interface OutboundRequest {
  url: string;
  /** GET unless given. */
  method?: string | undefined;
  headers?: Record<string, string> | undefined;
  /** Sent as is (set the content-type header yourself). */
  body?: string | undefined;
  /** The whole call, connection included. */
  timeoutMs: number;
  /** A longer body fails the call with reason 'too_large'. */
  maxResponseBytes?: number | undefined;
  /** The name of the URL in error messages that point at a parameter (`url`, `brain.base_url`). */
  param?: string | undefined;
}

/** What the other side answered: any status, 3xx included (redirects are never followed). */
export interface OutboundResponse {
  type: 'response';
  status: number;
  body: string;
  timeMs: number;
}

/**
 * Why there is no answer: the URL is refused by the policy ('invalid_url'), the name resolves
 * to a refused address ('refused_address'), no answer in time ('timeout'), the connection
 * failed ('connect'), or the answer was longer than allowed ('too_large').
 */
export interface OutboundFailure {
  type: 'failed';
  reason: 'invalid_url' | 'refused_address' | 'timeout' | 'connect' | 'too_large';
  /** One sentence for a delivery log or an error message. */
  message: string;
  /** The status when the failure came after it (too_large), else null. */
  status: number | null;
  timeMs: number;
}

export type OutboundResult = OutboundResponse | OutboundFailure;
/** A call handed to the worker, and its answer. */
export interface WorkerCall {
  id: number;
  call: OutboundRequest;
}
export interface WorkerAnswer {
  id: number;
  result: OutboundResult;
}

export class OutboundHttp {
  /** Started at the first call: most daemon runs never make one. */
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (result: OutboundResult) => void; started: number }
  >();

  constructor(private readonly policy: UrlPolicy) {}

  /**
   * One HTTP call: never throws, never retries, never follows a redirect. Callers that keep
   * schedules (deliveries, workflow steps) decide what a failure means. The timeout covers the
   * whole call, the answer's body included.
   */
  request(call: OutboundRequest): Promise<OutboundResult> {
    return new Promise((resolve) => {
      const id = this.nextId++;
      const worker = this.thread();
      // While calls are under way the worker keeps the process alive; idle, it does not.
      if (this.pending.size === 0) worker.ref();
      this.pending.set(id, { resolve, started: performance.now() });
      worker.postMessage({ id, call } satisfies WorkerCall);
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
    this.failPending('The daemon is stopping.');
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const { script, eval: isEval } = workerScript('http-worker', import.meta.url);
    const worker = new Worker(script, { eval: isEval, workerData: this.policy });
    worker.on('message', ({ id, result }: WorkerAnswer) => {
      const waiting = this.pending.get(id);
      this.pending.delete(id);
      if (this.pending.size === 0) worker.unref();
      waiting?.resolve(result);
    });
    // A worker that dies fails the calls it had; the next call starts a new one.
    const lost = (why: string) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.failPending(why);
    };
    worker.on('error', (error) => lost(`The outbound HTTP worker failed: ${error.message}`));
    worker.on('exit', () => lost('The outbound HTTP worker stopped.'));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private failPending(message: string): void {
    for (const [id, { resolve, started }] of this.pending) {
      this.pending.delete(id);
      resolve({
        type: 'failed',
        reason: 'connect',
        message,
        status: null,
        timeMs: Math.round(performance.now() - started),
      });
    }
  }
}
