// Structured logs (pino). Credentials never reach them: the Authorization header is not logged,
// api_key values are cut out of URLs, and known secret fields are redacted wherever they appear.
import pino, { type Logger } from 'pino';

/**
 * Fields redacted wherever a log call passes them at the top level or one level down. Exact
 * paths only: wildcard redaction costs more than the rest of a request line.
 */
export const REDACTED_PATHS = [
  'authorization',
  'key',
  'secret',
  'client_secret',
  'token',
  'access_token',
  'refresh_token',
  'password',
  'credentials',
].flatMap((field) => [field, `headers.${field}`, `body.${field}`, `input.${field}`]);

/** How often buffered log lines are written out at the latest. */
const FLUSH_INTERVAL_MS = 200;

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** Logs to a file (background daemon) or stdout (foreground); buffered, flushed on exit. */
export function createLogger(level: LogLevel, file?: string): Logger {
  const destination = file
    ? pino.destination({ dest: file, mkdir: true, sync: false })
    : pino.destination({ dest: 1, sync: false });
  return pino(
    {
      level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}

/** Removes credential values from a URL's query string before it is logged. */
export function redactUrl(url: string): string {
  return url.replace(
    /([?&](?:api_key|access_token|token|client_secret|code|refresh_token)=)[^&#]*/gi,
    '$1[redacted]',
  );
}
