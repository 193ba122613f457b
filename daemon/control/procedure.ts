// The control channel's tRPC instance and its one kind of procedure: loopback callers with the
// control token only, service errors answered with their svc code (router.ts builds ControlRouter with them).
import { timingSafeEqual } from 'node:crypto';
import { initTRPC, TRPCError } from '@trpc/server';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiError } from '../domain/errors.js';
import { isLoopback } from '../http/loopback.js';
import { issuesToError } from '../http/validation.js';
import { insufficientStorage, isStorageFull } from '../store/storage-full.js';
import { isStoreUnavailable, storeUnavailable } from '../store/store-unavailable.js';

export interface ControlContext {
  authorized: boolean;
  loopback: boolean;
  /** Named in the answer to a change the full disk could not take. */
  dataDir: string;
}

export function controlContextFactory(controlToken: string, dataDir: string) {
  const expected = Buffer.from(controlToken);
  // tRPC's adapter passes more than the request (CreateFastifyContextOptions); only it is read.
  return ({ req }: { req: FastifyRequest }): ControlContext => ({
    authorized: isAuthorized(req.headers.authorization, expected),
    loopback: isLoopback(req.socket.remoteAddress),
    dataDir,
  });
}

/** Whether an Authorization header carries the control token (compared in constant time). */
export function isAuthorized(header: string | undefined, expected: Buffer): boolean {
  const given = Buffer.from((header ?? '').replace(/^Bearer\s+/i, ''));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export const t = initTRPC.context<ControlContext>().create({
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    return {
      ...shape,
      data: {
        ...shape.data,
        svc_code: cause instanceof ApiError ? cause.code : undefined,
        svc_param: cause instanceof ApiError ? cause.param : undefined,
        stack: undefined,
      },
    };
  },
});

/** Only a loopback caller with the control token gets in; service errors keep their code. */
export const operator = t.procedure.use(async ({ ctx, next, getRawInput }) => {
  if (!ctx.loopback)
    throw new TRPCError({
      code: 'FORBIDDEN',
      message: 'The control channel answers loopback clients only.',
    });
  if (!ctx.authorized) {
    throw new TRPCError({
      code: 'UNAUTHORIZED',
      message: 'Missing or wrong control token (it is in the data dir, file control-token).',
    });
  }
  const result = await next();
  if (result.ok) return result;
  if (isStorageFull(result.error.cause)) {
    // As on the REST API (507): the CLI says the disk is full, not "internal error".
    const cause = insufficientStorage(ctx.dataDir);
    throw new TRPCError({ code: trpcCode(cause.status), message: cause.message, cause });
  }
  if (isStoreUnavailable(result.error.cause)) {
    // As on the REST API (503): the CLI says to retry, not "internal error".
    const cause = storeUnavailable(result.error.cause);
    throw new TRPCError({ code: trpcCode(cause.status), message: cause.message, cause });
  }
  const cause = (await inputError(result.error.cause, getRawInput)) ?? result.error.cause;
  if (cause instanceof ApiError) {
    throw new TRPCError({ code: trpcCode(cause.status), message: cause.message, cause });
  }
  return result;
});

/**
 * An input its schema refused, as the REST API words a body's fields (one sentence naming the
 * field and the bound it missed, code and param), instead of tRPC's message: zod's issues as JSON.
 */
async function inputError(
  cause: unknown,
  getRawInput: () => Promise<unknown>,
): Promise<ApiError | undefined> {
  if (!(cause instanceof z.core.$ZodError)) return undefined;
  return issuesToError(cause.issues, await getRawInput(), 'body', {});
}

export function trpcCode(status: number): TRPCError['code'] {
  if (status === 404) return 'NOT_FOUND';
  if (status === 408) return 'TIMEOUT';
  if (status === 409) return 'CONFLICT';
  if (status === 401) return 'UNAUTHORIZED';
  if (status === 403) return 'FORBIDDEN';
  if (status === 429) return 'TOO_MANY_REQUESTS';
  if (status === 503) return 'SERVICE_UNAVAILABLE';
  if (status >= 500) return 'INTERNAL_SERVER_ERROR';
  return 'BAD_REQUEST';
}
