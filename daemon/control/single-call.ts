// The control channel's everyday request, one query (GET) or one mutation (POST) with a JSON
// input, answered straight from the procedure with tRPC's own parts (callTRPCProcedure,
// getErrorShape, the router's transformer and tRPC's HTTP status of an error). tRPC's Fastify
// adapter turns every request into a Fetch API Request and every answer into a Response (web
// streams, header objects, combined abort signals): measured ~215 µs of daemon CPU per call on
// Node 20, against ~19 µs for a REST health check, which made `svc events trigger` (and the
// delivery benchmark that publishes through it) cost several times its work. Anything else
// (batches, subscriptions, a method or content type tRPC would refuse, an input that is not
// JSON, an unknown procedure) goes on to tRPC's adapter, which answers it as before.
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  callTRPCProcedure,
  getErrorShape,
  getTRPCErrorFromUnknown,
  transformTRPCResponse,
  type AnyTRPCProcedure,
  type AnyTRPCRouter,
} from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';

/** What a single call's procedure type must be for each method (tRPC's own rule). */
const TYPE_OF_METHOD: Record<string, 'query' | 'mutation' | undefined> = {
  GET: 'query',
  POST: 'mutation',
};

/**
 * A preHandler for the control channel's scope: answers a single query or mutation itself and
 * leaves every other request to tRPC's route.
 */
export function singleCallLane<TContext>(
  router: AnyTRPCRouter,
  createContext: (opts: { req: FastifyRequest }) => TContext,
) {
  const config = router._def._config;
  const procedures = router._def.procedures as Record<string, AnyTRPCProcedure | undefined>;
  return (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    const call = singleCall(request, procedures, config.transformer.input.deserialize);
    if (!call) {
      done();
      return;
    }
    // Whatever answer() itself cannot turn into a tRPC answer goes to Fastify's error handling.
    answer(request, reply, call).catch((error: unknown) => reply.send(error));
  };

  async function answer(request: FastifyRequest, reply: FastifyReply, call: SingleCall) {
    const ctx = createContext({ req: request });
    let status = 200;
    let text: string;
    try {
      const data: unknown = await callTRPCProcedure({
        router,
        path: call.path,
        type: call.type,
        ctx,
        getRawInput: () => Promise.resolve(call.input),
        signal: undefined,
        batchIndex: 0,
      });
      text = JSON.stringify(transformTRPCResponse(config, { result: { data } }));
    } catch (cause) {
      // An answer that cannot be serialised lands here too: an error answer, as tRPC gives.
      const error = getTRPCErrorFromUnknown(cause);
      const shape = getErrorShape({
        config,
        ctx,
        error,
        input: call.input,
        path: call.path,
        type: call.type,
      });
      status = getHTTPStatusCodeFromError(error);
      text = JSON.stringify(transformTRPCResponse(config, { error: shape }));
    }
    // Headers as tRPC sets them; a Buffer, because Fastify adds a charset to a JSON string.
    await reply
      .code(status)
      .header('vary', 'trpc-accept, accept')
      .header('content-type', 'application/json')
      .send(Buffer.from(text));
  }
}

interface SingleCall {
  path: string;
  type: 'query' | 'mutation';
  input: unknown;
}

/** The call a request makes, if it is a plain single query or mutation; undefined otherwise. */
function singleCall(
  request: FastifyRequest,
  procedures: Record<string, AnyTRPCProcedure | undefined>,
  deserialize: (input: unknown) => unknown,
): SingleCall | undefined {
  const { method, headers } = request;
  const type = TYPE_OF_METHOD[method];
  // Set by tRPC's route (`/trpc/:path`), the one route of the control scope.
  const path = (request.params as { path?: string }).path;
  if (!type || path === undefined || procedures[path]?._def.type !== type) return undefined;
  if (headers['trpc-accept'] !== undefined || headers.accept?.includes('application/jsonl'))
    return undefined;
  const query = request.query as Record<string, unknown>;
  for (const name in query) if (name !== 'input') return undefined;
  const contentType = headers['content-type'];
  const json = contentType?.split(';', 1)[0]!.trim().toLowerCase() === 'application/json';
  if (type === 'mutation' ? !json : contentType !== undefined && !json) return undefined;
  const text = type === 'query' ? query.input : request.body;
  if (text !== undefined && typeof text !== 'string') return undefined;
  let input: unknown;
  try {
    input = text ? deserialize(JSON.parse(text)) : undefined;
  } catch {
    // tRPC reports an input that is not JSON in its own words.
    return undefined;
  }
  return { path, type, input };
}
