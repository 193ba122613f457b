// Structured logs (pino). Credentials never reach them: the Authorization header is not logged,
// api_key values are cut out of URLs, and known secret fields are redacted wherever they appear.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import pino, { type DestinationStream, type Logger } from 'pino';

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
 * started), and with `stdout` also to standard output (foreground). Lines are buffered and
 * written in batches (at least every 200 ms), so logging costs little per request.
 */
export function createLogger(
  level: LogLevel,
  file: string,
  options: { stdout?: boolean } = {},
): Logger {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const toFile = bufferedDestination(file);
  let destination: DestinationStream = toFile;
  if (options.stdout) {
    const toStdout = bufferedDestination(1);
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
  return pino(
    {
      level,
      base: { pid: process.pid },
      timestamp: isoTimestamp,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}

/** pino's isoTime, formatted once per millisecond (a busy daemon logs several lines in one). */
let lastStamp = { ms: Number.NaN, text: '' };
function isoTimestamp(): string {
  const ms = Date.now();
  if (ms !== lastStamp.ms) lastStamp = { ms, text: `,"time":"${new Date(ms).toISOString()}"` };
  return lastStamp.text;
}

function bufferedDestination(dest: string | number) {
  const destination = pino.destination({ dest, sync: false, minLength: 8192 });
  setInterval(() => destination.flush(), FLUSH_INTERVAL_MS).unref();
  return destination;
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
