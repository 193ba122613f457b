// The one error type of the REST API. Raise it anywhere; the error handler serialises it.
import { ERROR_CODES, type ErrorCode } from '../../shared/errors.js';

export interface ApiErrorOptions {
  param?: string;
  /** Extra fields placed in the error body next to code and message (spec "extras"). */
  extras?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Overrides the table's status where the spec allows two (e.g. 400 or 422). */
  status?: number;
}

export class ApiError extends Error {
  readonly status: number;
  readonly param: string | undefined;
  readonly extras: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: ApiErrorOptions = {},
  ) {
    // No stack trace: an ApiError is an answer to the client (never shown with a stack), thrown
    // on every 4xx; capturing the stack was 13-15% of the main thread under a flood of them.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'ApiError';
    this.status = options.status ?? ERROR_CODES[code].status;
    this.param = options.param;
    this.extras = options.extras ?? {};
    this.headers = options.headers ?? {};
  }
}

export function missingFields(fields: string[], message?: string): ApiError {
  return new ApiError(
    'missing_required_field',
    message ?? `Missing required field${fields.length > 1 ? 's' : ''}: ${fields.join(', ')}.`,
    { param: fields[0], extras: { required_fields: fields } },
  );
}

export function invalidParameter(param: string, message: string): ApiError {
  return new ApiError('invalid_parameter', message, { param });
}
