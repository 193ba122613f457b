// One log line per request, written when it completes: method, URL with credentials cut out,
// status and time. Fastify's default two lines would log raw URLs (api_key in the query).
//
// At `info` the lines are sampled by rate: up to REQUEST_LINES_PER_SECOND a second are written,
// so everything a person or a test suite sends shows in `svc daemon logs`, while a load test
// pays for a line only now and then (a line costs ~4 µs of a ~25 µs read). Successful requests
// and refused ones (4xx) have a budget each, so a refusal shows even amid a flood of successes,
// and a flood of refusals (a rate-limit test's 429s) is sampled too. The lines left out are
// counted and said in one line at the end of their second. Errors and 5xx answers are always
// written; at `debug` and `trace` every line is. A stream the client closed early is a `debug`
// line.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { redactUrl } from '../platform/logger.js';

/** At `info`, at most this many request lines of each kind (succeeded, refused) a second. */
export const REQUEST_LINES_PER_SECOND = 1000;

const WINDOW_MS = 1000;

/**
 * Counts request lines in one-second windows of real time: take() says whether this one may
 * be written. The lines left out of a window are reported once (report) when the window is
 * over, from a timer, or by close() at a stop.
 */
export class RequestLineBudget {
  private windowEnds = Number.NEGATIVE_INFINITY;
  private written = 0;
  private skipped = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly perSecond: number,
    private readonly report: (skipped: number) => void,
    private readonly now: () => number = Date.now,
  ) {}

  take(): boolean {
    const now = this.now();
    if (now >= this.windowEnds) {
      this.close();
      this.windowEnds = now + WINDOW_MS;
      this.written = 0;
    }
    if (this.written < this.perSecond) {
      this.written += 1;
      return true;
    }
    if (this.skipped === 0) {
      // Said when the window ends even if no request comes after it.
      this.timer = setTimeout(() => this.close(), this.windowEnds - now);
      this.timer.unref();
    }
    this.skipped += 1;
    return false;
  }

  /** Reports the lines left out so far (at the end of a window, and at a stop). */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.skipped === 0) return;
    const skipped = this.skipped;
    this.skipped = 0;
    this.report(skipped);
  }
}

export class RequestLogController extends LogController {
  /** The logger is at `debug` or `trace`: every request line is written. */
  private readonly everyLine: boolean;
  /** A budget each, so a flood of successes never crowds a refusal (4xx) out of the log. */
  private readonly succeeded: RequestLineBudget;
  private readonly refused: RequestLineBudget;

  /** Without a logger (an app built with none) nothing is written. */
  constructor(
    private readonly log: Logger | undefined,
    perSecond = REQUEST_LINES_PER_SECOND,
    now: () => number = Date.now,
  ) {
    super({ requestIdLogLabel: 'req_id' });
    this.everyLine = log?.isLevelEnabled('debug') ?? false;
    const budget = (kind: string) =>
      new RequestLineBudget(
        perSecond,
        (skipped) =>
          log?.info(
            { skipped, requests: kind, per_second: perSecond },
            `${kind} request lines left out (more than ${perSecond} a second at info; --log-level debug writes every one)`,
          ),
        now,
      );
    this.succeeded = budget('succeeded');
    this.refused = budget('refused');
  }

  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (!this.log) return;
    const status = reply.statusCode;
    // Errors and 5xx answers are always written: the daemon failed, that is never noise.
    if (!error && status < 500 && !this.everyLine) {
      if (!(status < 400 ? this.succeeded : this.refused).take()) return;
    }
    const line = {
      req_id: request.id,
      method: request.method,
      url: redactUrl(request.url),
      status,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (error) this.log.error({ ...line, err: error }, 'request errored');
    else this.log.info(line, 'request');
  }

  /**
   * A response stream that ended early: a client that closed it (Ctrl-C on `svc events tail`,
   * a browser leaving the dashboard) is ordinary, so at `debug`, not Fastify's `info`; any
   * other stream error stays a warning.
   */
  override streamError(error: Error & { code?: string }, request: FastifyRequest): void {
    if (!this.log) return;
    if (error.code === 'ERR_STREAM_PREMATURE_CLOSE') {
      this.log.debug({ req_id: request.id }, 'stream closed prematurely');
    } else {
      this.log.warn(
        { req_id: request.id, err: error },
        'response terminated with an error with headers already sent',
      );
    }
  }

  /** Writes the count of lines left out since the last one said (at a stop). */
  close(): void {
    this.succeeded.close();
    this.refused.close();
  }
}
