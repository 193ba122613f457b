// Refuses a control-channel request without the control token before tRPC sees it. tRPC runs
// procedure middleware only once a subscription's event stream has started (200 and then an
// error event), so subscriptions (events.stream, deliveries.stream) must be refused here, with
// the same status and tRPC error body as the other procedures. Inputs nested too deep are
// refused here too.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { exceedsDepth, MAX_JSON_DEPTH } from '../domain/json-depth.js';
import { isLoopback } from '../http/loopback.js';
import { isAuthorized } from './procedure.js';

const PREFIX = '/trpc/';

export function controlRequestGuard(controlToken: string) {
  const expected = Buffer.from(controlToken);
  return (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    if (!request.url.startsWith(PREFIX)) {
      done();
      return;
    }
    const path = request.url.slice(PREFIX.length).split('?')[0] ?? '';
    if (!isLoopback(request.socket.remoteAddress)) {
      void reply
        .code(403)
        .send(
          trpcError(
            'FORBIDDEN',
            403,
            -32003,
            'The control channel answers loopback clients only.',
            path,
          ),
        );
      return;
    }
    if (!isAuthorized(request.headers.authorization, expected)) {
      void reply
        .code(401)
        .send(
          trpcError(
            'UNAUTHORIZED',
            401,
            -32001,
            'Missing or wrong control token (it is in the data dir, file control-token).',
            path,
          ),
        );
      return;
    }
    done();
  };
}

/**
 * tRPC parses its inputs itself (the POST body as text, or `?input=`): the same nesting limit as
 * REST bodies applies to them, checked before tRPC parses them (400 BAD_REQUEST).
 */
export function controlInputGuard(
  request: FastifyRequest,
  reply: FastifyReply,
  done: () => void,
): void {
  if (!request.url.startsWith(PREFIX)) {
    done();
    return;
  }
  const query = request.query as Record<string, unknown> | undefined;
  const inputs = [request.body, query?.input];
  if (inputs.some((input) => typeof input === 'string' && exceedsDepth(input))) {
    const path = request.url.slice(PREFIX.length).split('?')[0] ?? '';
    void reply
      .code(400)
      .send(
        trpcError(
          'BAD_REQUEST',
          400,
          -32600,
          `The input is nested more than ${MAX_JSON_DEPTH} levels deep. Flatten it.`,
          path,
        ),
      );
    return;
  }
  done();
}

function trpcError(
  code: string,
  httpStatus: number,
  rpcCode: number,
  message: string,
  path: string,
) {
  return { error: { message, code: rpcCode, data: { code, httpStatus, path } } };
}
