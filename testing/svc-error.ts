// The errors of svc/testing: every refusal of the daemon reaches a test as an SvcError whose
// `code` is svc's own error code (wait_timeout, run_parked, invalid_parameter, ...) and whose
// message says how to fix it, whatever channel the kit used to ask (the control channel's tRPC
// client throws TRPCClientError, with the code tucked in `data.svc_code`).
import { TRPCClientError } from '@trpc/client';

export class SvcError extends Error {
  override readonly name = 'SvcError';

  constructor(
    message: string,
    /** svc's error code (shared/errors.ts, the API reference's table). */
    readonly code: string,
    /** The HTTP status svc gives that code. */
    readonly status: number | undefined,
    /** The request field it names, when it names one. */
    readonly param?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

interface ControlErrorData {
  svc_code?: string;
  svc_param?: string;
  code?: string;
  httpStatus?: number;
}

/** A control-channel failure as an SvcError; anything else as it is. */
export function toSvcError(error: unknown): unknown {
  if (!(error instanceof TRPCClientError)) return error;
  const data = (error.data ?? {}) as ControlErrorData;
  // An input the procedure's schema refused (a field misspelt in plain JS) has no svc code.
  const code =
    data.svc_code ?? (data.code === 'BAD_REQUEST' ? 'invalid_parameter' : 'internal_error');
  return new SvcError(error.message, code, data.httpStatus, data.svc_param, { cause: error });
}

/**
 * The control client with every failed call rejected as an SvcError: a proxy over tRPC's own
 * (itself a proxy of paths), so each procedure keeps its types.
 */
export function withSvcErrors<T extends object>(client: T): T {
  return new Proxy(client, {
    get(target, property) {
      const value = Reflect.get(target, property) as unknown;
      return typeof value === 'function' || (typeof value === 'object' && value !== null)
        ? withSvcErrors(value)
        : value;
    },
    apply(target, thisArg, args) {
      const result = Reflect.apply(target as (...a: unknown[]) => unknown, thisArg, args);
      return result instanceof Promise
        ? result.catch((error: unknown) => {
            throw toSvcError(error);
          })
        : result;
    },
  });
}
