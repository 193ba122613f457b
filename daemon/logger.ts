// Structured logs (pino). Credentials never reach them: the Authorization header is not logged,
// api_key values are cut out of URLs, and known secret fields are redacted wherever they appear.
import pino, { type Logger } from 'pino';

export const REDACTED_PATHS = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'key',
  '*.key',
  'secret',
  '*.secret',
  'client_secret',
  '*.client_secret',
  'token',
  '*.token',
  'access_token',
  '*.access_token',
  'refresh_token',
  '*.refresh_token',
  'password',
  '*.password',
  'credentials',
  '*.credentials',
];

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
