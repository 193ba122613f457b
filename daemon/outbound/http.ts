// Every HTTP call the daemon makes to the outside (webhook deliveries, the webhook test
// endpoint, the OpenAI-compatible brain, workflow webhook steps) goes through OutboundHttp. The
// calls are made in a worker thread (http-worker.ts, with HttpCaller: undici's dispatcher, the
// URL policy, the address check, timeouts, caps): building and sending a request and reading its
// answer is several times the CPU of handing it over, and the daemon's own thread serves the API,
// runs the engine and writes the store. Measured on the five-step workflow bench (one webhook call
// per run): about a sixth of the main thread's time per run moved off it. The worker starts
// with the first call and exits after IDLE_MS without one (an isolate of its own, 10-20 MB
// after a burst of calls, that an idle daemon need not hold); the next call starts a new one.
import { Worker } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { workerScript } from '../platform/worker-script.js';
import type { FaultCall, InjectedFault } from '../faults/fault.service.js';
import type { UrlPolicy } from './url-policy.js';

/** What makes the calls when OutboundHttp runs them in its own thread (HttpCaller). */
export interface InThreadCaller {
  request(call: OutboundRequest): Promise<OutboundResult>;
  close(): Promise<void>;
}

/** Bytes of a response body read at most, unless the call asks otherwise. */
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
/** Time without a call under way after which the worker exits. */
export const IDLE_MS = 10_000;

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

/**
 * Who a call is made for, so that sandbox fault rules (svc faults) can target it. Stays in this
 * thread: it is not part of the call handed to the worker.
 */
export interface CallScope {
  workspaceId: string;
  webhookId?: string | undefined;
  workflowId?: string | undefined;
  stepId?: string | undefined;
  /** The delivery's or the step's attempt, 1 for the first. */
  attempt: number;
  /** What a rule's --match reads (the event type of a delivery, a run's input). */
  matchText(): string;
  /** Wraps a wait that only a later time on the daemon clock ends (a step's --latency). */
  untilDue?: (<T>(waiting: Promise<T>) => Promise<T>) | undefined;
}

/** The sandbox's fault rules, as the outbound module asks them (FaultService). */
export interface FaultInjector {
  decide(call: FaultCall): InjectedFault | undefined;
  delay(ms: number): Promise<void>;
}

/** What the other side answered: any status, 3xx included (redirects are never followed). */
export interface OutboundResponse {
  type: 'response';
  status: number;
  body: string;
  timeMs: number;
  /** The fault rule (flt_...) that produced or delayed this answer, in the sandbox. */
  injectedFault?: string | undefined;
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
  /** The fault rule (flt_...) that produced this failure, in the sandbox. */
  injectedFault?: string | undefined;
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

/** How OutboundHttp makes its calls (app/services.ts passes them by name). */
export interface OutboundOptions {
  /** How long the worker stays after its last call. */
  idleMs?: number | undefined;
  /**
   * A caller (HttpCaller) that makes the calls in this thread instead of a worker: for a test
   * sandbox (svc/testing), where a worker per sandbox, started at its first call, cost more
   * than all of its calls (20 sandboxes at once: first deliveries after 30 s).
   */
  inThread?: InThreadCaller | undefined;
  /** Sandbox fault rules (faults/fault.service.ts): a call made with a scope is put to them first. */
  faults?: FaultInjector | undefined;
}

export class OutboundHttp {
  /** Started at the first call: most daemon runs never make one. */
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (result: OutboundResult) => void; started: number }
  >();

  private readonly idleMs: number;
  private readonly inThread: InThreadCaller | undefined;
  /** Sandbox: calls made with a scope are first put to the fault rules. */
  private readonly faults: FaultInjector | undefined;
  /** Set while no call is under way: ends the worker when it fires. */
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly policy: UrlPolicy,
    options: OutboundOptions = {},
  ) {
    this.idleMs = options.idleMs ?? IDLE_MS;
    this.inThread = options.inThread;
    this.faults = options.faults;
  }

  /** Whether a worker thread runs now (from the first call until idle). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /**
   * One HTTP call: never throws, never retries, never follows a redirect. Callers that keep
   * schedules (deliveries, workflow steps) decide what a failure means. The timeout covers the
   * whole call, the answer's body included. With a scope, a sandbox fault rule may answer
   * instead of the other side (see inject): the caller cannot tell, but for `injectedFault`.
   */
  request(call: OutboundRequest, scope?: CallScope): Promise<OutboundResult> {
    const fault =
      scope &&
      this.faults?.decide({
        point: 'http',
        url: call.url,
        workspaceId: scope.workspaceId,
        webhookId: scope.webhookId,
        workflowId: scope.workflowId,
        stepId: scope.stepId,
        attempt: scope.attempt,
        matchText: scope.matchText,
      });
    return fault ? this.inject(call, scope, fault) : this.send(call);
  }

  /**
   * The result a real call with this fault would have had: after the latency (on the daemon
   * clock), the status as the answer, a timeout failure that took the call's whole timeout
   * (answered at once: the sandbox does not hold the call for it in real time), a reset
   * connection, or, with a latency alone, the real call.
   */
  private async inject(
    call: OutboundRequest,
    scope: CallScope,
    fault: InjectedFault,
  ): Promise<OutboundResult> {
    const latency = fault.latencyMs ?? 0;
    if (latency > 0) {
      const waiting = this.faults!.delay(latency);
      await (scope.untilDue ? scope.untilDue(waiting) : waiting);
    }
    let result: OutboundResult;
    if (fault.status !== null) {
      result = {
        type: 'response',
        status: fault.status,
        body: JSON.stringify({
          error: { type: 'injected_fault', message: `Injected by svc fault rule ${fault.id}.` },
        }),
        timeMs: latency,
      };
    } else if (fault.timeout) {
      result = {
        type: 'failed',
        reason: 'timeout',
        message: `No answer within ${formatSeconds(call.timeoutMs)}.`,
        status: null,
        timeMs: latency + call.timeoutMs,
      };
    } else if (fault.reset) {
      result = {
        type: 'failed',
        reason: 'connect',
        message: 'Could not connect: ECONNRESET.',
        status: null,
        timeMs: latency,
      };
    } else {
      const real = await this.send(call);
      result = { ...real, timeMs: real.timeMs + latency };
    }
    return { ...result, injectedFault: fault.id };
  }

  private send(call: OutboundRequest): Promise<OutboundResult> {
    if (this.inThread) return this.inThread.request(call);
    return new Promise((resolve) => {
      const id = this.nextId++;
      const worker = this.thread();
      clearTimeout(this.idleTimer);
      // While calls are under way the worker keeps the process alive; idle, it does not.
      if (this.pending.size === 0) worker.ref();
      this.pending.set(id, { resolve, started: performance.now() });
      worker.postMessage({ id, call } satisfies WorkerCall);
    });
  }

  /** Asks the worker, if one runs, to collect its garbage (MemoryTrimmer). */
  trim(): void {
    this.worker?.postMessage('trim');
  }

  async close(): Promise<void> {
    await this.inThread?.close();
    clearTimeout(this.idleTimer);
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
      if (this.pending.size === 0) this.idle(worker);
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

  private idle(worker: Worker): void {
    worker.unref();
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.worker !== worker || this.pending.size > 0) return;
      this.worker = undefined;
      void worker.terminate();
    }, this.idleMs);
    this.idleTimer.unref();
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

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
