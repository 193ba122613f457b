// Serialises every failure into the spec's error body, in one place. Unexpected errors are
// logged with the request id and answered with a 500 that carries no internals.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import { ID_PREFIXES, randomBase62 } from '../../shared/ids.js';
import { ERROR_CODES } from '../../shared/errors.js';
import type { Clock } from '../time/clock.js';
import { ApiError } from '../domain/errors.js';
import type { ServerUrls } from '../domain/urls.js';
import { insufficientStorage, isStorageFull } from '../store/storage-full.js';
import { isStoreUnavailable, storeUnavailable } from '../store/store-unavailable.js';
import { isTextRefused } from '../store/store-errors.js';

const PROBLEM_JSON = 'application/problem+json';

export function installErrorHandling(
  app: FastifyInstance,
  clock: Clock,
  urls: ServerUrls,
  allowedMethods: (url: string) => string[],
  dataDir: string,
): void {
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    const apiError = toApiError(error, dataDir);
    if (!(error instanceof ApiError) && apiError.status >= 500) {
      if (apiError.code === 'service_unavailable') {
        request.log.warn({ err: error.message, req_id: request.id }, 'the store is unavailable');
      } else {
        request.log.error(
          { err: error, req_id: request.id },
          apiError.code === 'insufficient_storage'
            ? 'not stored: the disk is full'
            : 'unexpected error',
        );
      }
    }
    return sendError(request, reply, apiError, clock, urls);
  });

  app.setNotFoundHandler((request, reply) => {
    const methods = allowedMethods(request.url);
    if (methods.length > 0) {
      reply.header('Allow', methods.join(', '));
      return sendError(
        request,
        reply,
        new ApiError(
          'method_not_allowed',
          `${request.method} is not allowed on this path. Allowed: ${methods.join(', ')}.`,
        ),
        clock,
        urls,
      );
    }
    return sendError(
      request,
      reply,
      new ApiError(
        'not_found',
        `No route ${request.method} ${pathOnly(request.url)}. The API lives under /v1; see /openapi.json.`,
      ),
      clock,
      urls,
    );
  });
}

export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  error: ApiError,
  clock: Clock,
  urls: ServerUrls,
): FastifyReply {
  const info = ERROR_CODES[error.code];
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  reply.code(error.status);
  if (error.code === 'rate_limit_exceeded' && acceptsProblemJson(request)) {
    return reply.type(PROBLEM_JSON).send(
      JSON.stringify({
        type: 'rate_limit_exceeded',
        title: 'Too Many Requests',
        status: 429,
        detail: error.message,
      }),
    );
  }
  const body = {
    error: {
      code: error.code,
      message: error.message,
      type: info.type,
      ...(error.param === undefined ? {} : { param: error.param }),
      request_id: request.id,
      documentation_url: `${urls.app}/docs/errors#${error.code}`,
      ...error.extras,
    },
    meta: { request_id: request.id, timestamp: clock.iso() },
  };
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(body));
}

function acceptsProblemJson(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes(PROBLEM_JSON);
}

/**
 * Maps Fastify's own errors (body parsing, limits, bad URLs) onto the spec's codes, and a write
 * the data dir's full disk refused onto 507 insufficient_storage (its message names `dataDir`).
 */
export function toApiError(error: FastifyError | ApiError, dataDir?: string): ApiError {
  if (error instanceof ApiError) return error;
  if (isStorageFull(error)) return insufficientStorage(dataDir);
  if (isStoreUnavailable(error)) return storeUnavailable(error);
  if (isTextRefused(error)) {
    return new ApiError(
      'invalid_parameter',
      'A value in the request contains the NUL character (\\u0000), which the store cannot keep: remove it.',
    );
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(
        'payload_too_large',
        'The request body is too large: the limit is 1 MiB (10 MiB for uploads).',
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(
        'invalid_request_body',
        `Unsupported Content-Type. Send the body as JSON with "Content-Type: application/json".`,
        { param: 'Content-Type' },
      );
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_request_body', 'The request body is not valid JSON.');
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_ASYNC_CONSTRAINT':
      return new ApiError('not_found', 'The URL could not be decoded; check its percent-encoding.');
    case 'FST_REQ_FILE_TOO_LARGE':
      return new ApiError(
        'payload_too_large',
        'The file is over 10 MiB. Split it into smaller documents.',
        { param: 'file' },
      );
    case 'FST_FILES_LIMIT':
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
    case 'FST_PROTO_VIOLATION':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new ApiError(
        'invalid_request_body',
        'The multipart body is malformed or has too many parts: send one "file" part and a few text fields.',
      );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError(
        'not_found',
        'No such object: a path parameter is longer than any id (200 characters at most).',
      );
    default:
      break;
  }
  if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON/i.test(error.message))) {
    return new ApiError('invalid_request_body', 'The request body is not valid JSON.');
  }
  if (error.statusCode === 413) {
    return new ApiError(
      'payload_too_large',
      'The request body is too large: the limit is 1 MiB (10 MiB for uploads).',
    );
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError(
      'invalid_request_body',
      'The request could not be read. Check its headers and body.',
    );
  }
  return new ApiError(
    'internal_server_error',
    'Something went wrong inside the daemon. The request id is in the daemon log (svc daemon logs).',
  );
}

function pathOnly(url: string): string {
  const end = url.indexOf('?');
  return end === -1 ? url : url.slice(0, end);
}

/**
 * A request Node's HTTP parser rejects (not valid HTTP) never reaches Fastify: answer it with
 * the spec's error body anyway, then close the connection.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) return;
  const requestId = ID_PREFIXES.request + randomBase62(16);
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const body = JSON.stringify({
    error: {
      code: 'invalid_request_body',
      message: tooLarge
        ? 'The request headers are too large.'
        : 'The request is not valid HTTP (check the request line and headers).',
      type: 'validation_error',
      request_id: requestId,
      documentation_url: '/docs/errors#invalid_request_body',
    },
    meta: { request_id: requestId, timestamp: new Date().toISOString() },
  });
  socket.end(
    `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}
