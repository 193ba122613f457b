// Structured logs (pino). Credentials never reach them: the Authorization header is not logged,
// api_key values are cut out of URLs, and known secret fields are redacted wherever they appear.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import pino, { type DestinationStream, type Logger } from 'pino';
import { LogFile } from './log-file.js';

/**
 * Fields redacted when a log call passes them. Exact top-level paths only: wildcard redaction
 * costs more than the rest of a request line, and nothing logs nested request data.
 */
export const REDACTED_PATHS = [
  'authorization',
  'headers.authorization',
  'key',
  'secret',
  'client_secret',
  'token',
  'access_token',
  'refresh_token',
  'password',
  'credentials',
];

/** How often buffered log lines are written out at the latest. */
const FLUSH_INTERVAL_MS = 200;

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/**
 * Logs to the data dir's log file, always (so `svc daemon logs` works however the daemon was
 * started), and with `stdout` also to standard output (foreground). Lines are gathered and
 * written in batches (at least every 200 ms), so logging costs little per request. A write that
 * fails (a full disk) drops its lines and never stops the daemon (log-file.ts). Throws if the
 * log file cannot be opened (start-up: entry.ts says why in one line).
 */
export function createLogger(
  level: LogLevel,
  file: string,
  options: { stdout?: boolean } = {},
): Logger {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const logFile = new LogFile(file);
  const toFile = batched(logFile);
  let destination: DestinationStream = toFile;
  if (options.stdout) {
    const stdout = pino.destination({ dest: 1, sync: true });
    // The file has every line; this copy is for the person watching. A failed write to it (the
    // terminal went away) must not stop the daemon: without a listener, 'error' would.
    stdout.on('error', () => undefined);
    const toStdout = batched(stdout);
    // logger.flush() (at shutdown) reaches both streams only through this.
    destination = Object.assign(
      pino.multistream([
        { stream: toFile, level: 'trace' },
        { stream: toStdout, level: 'trace' },
      ]),
      {
        flush(done?: (error?: Error) => void) {
          toFile.flush();
          toStdout.flush(done);
        },
      },
    );
  }
  const logger = pino(
    {
      level,
      base: { pid: process.pid },
      timestamp: isoTimestamp,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
  releases.set(logger, () => {
    release(toFile);
    logFile.close();
  });
  fileFlushes.set(logger, () => toFile.flushSync());
  return logger;
}

/** How each logger made here writes its gathered lines to its file at once. */
const fileFlushes = new WeakMap<Logger, () => void>();

/**
 * Writes the lines a logger has gathered to its file now, instead of within 200 ms: for a
 * reader of the file in the same process (svc/testing's sb.logs()).
 */
export function flushLoggerToFile(logger: Logger): void {
  fileFlushes.get(logger)?.();
}

/** How each logger made here lets go of its timers, exit flush and file. */
const releases = new WeakMap<Logger, () => void>();

/**
 * Writes out a logger's last lines and closes its file, its flush timer and its part of the
 * exit flush: for a process that makes many loggers (svc/testing, one per sandbox). The
 * logger must not be used after.
 */
export function releaseLogger(logger: Logger): void {
  releases.get(logger)?.();
  releases.delete(logger);
}

/** pino's isoTime, formatted once per millisecond (a busy daemon logs several lines in one). */
let lastStamp = { ms: Number.NaN, text: '' };
function isoTimestamp(): string {
  const ms = Date.now();
  if (ms !== lastStamp.ms) lastStamp = { ms, text: `,"time":"${new Date(ms).toISOString()}"` };
  return lastStamp.text;
}

/**
 * The batchers of this process, each flushed on a timer and written out at exit. One timer and
 * one exit listener serve them all: a listener each would pass Node's limit of 10 (a warning)
 * in a test process with a sandbox per test.
 */
const open = new Set<LineBatcher>();
let flushTimer: NodeJS.Timeout | undefined;

function flushAll(): void {
  for (const batcher of open) batcher.flush();
}

function flushAllSync(): void {
  for (const batcher of open) batcher.flushSync();
}

function batched(out: BatchOut): LineBatcher {
  // Synchronous writes of whole batches: one write(2) per ~70 request lines, and none left in
  // flight. An asynchronous write still under way when flushSync() ran (the process exiting)
  // could land after the lines written behind it, or not at all.
  const batcher = new LineBatcher(out);
  if (open.size === 0) {
    flushTimer = setInterval(flushAll, FLUSH_INTERVAL_MS).unref();
    // pino writes its own destinations out when the process exits; the lines still gathered
    // here go after them.
    process.once('exit', flushAllSync);
  }
  open.add(batcher);
  return batcher;
}

/** Writes a batcher's lines out and takes it off the timer and the exit flush. */
function release(batcher: LineBatcher): void {
  batcher.flushSync();
  open.delete(batcher);
  if (open.size === 0) {
    clearInterval(flushTimer);
    flushTimer = undefined;
    process.off('exit', flushAllSync);
  }
}

/** Where a LineBatcher's batches go: the log file (LogFile) or sonic-boom (stdout). */
export interface BatchOut {
  write(text: string): unknown;
  flush(done?: (error?: Error) => void): void;
  flushSync(): void;
}

/** About this many characters of lines go to the file in one write. */
const BATCH_CHARS = 8192;

/**
 * Gathers log lines and hands them to sonic-boom a batch at a time. sonic-boom's own buffering
 * (minLength) measures the UTF-8 length of everything it holds on every line written: measured
 * 3.6-3.9 µs per request line, against 1.4 µs when it is given 8 KiB batches.
 */
export class LineBatcher implements DestinationStream {
  private lines: string[] = [];
  private chars = 0;

  constructor(private readonly out: BatchOut) {}

  write(line: string): boolean {
    this.lines.push(line);
    // Characters, not bytes: only the batch size depends on it.
    this.chars += line.length;
    if (this.chars >= BATCH_CHARS) this.release();
    return true;
  }

  /** Hands the lines gathered so far to the file. */
  flush(done?: (error?: Error) => void): void {
    this.release();
    this.out.flush(done);
  }

  /** Writes every line out before returning (at exit). */
  flushSync(): void {
    this.release();
    this.out.flushSync();
  }

  private release(): void {
    if (this.lines.length === 0) return;
    this.out.write(this.lines.join(''));
    this.lines = [];
    this.chars = 0;
  }
}

/** Removes credential values from a URL's query string before it is logged. */
export function redactUrl(url: string): string {
  // Most URLs have no query string: nothing to look at.
  if (!url.includes('?')) return url;
  return url.replace(
    /([?&](?:api_key|access_token|token|client_secret|code|code_verifier|refresh_token)=)[^&#]*/gi,
    '$1[redacted]',
  );
}
