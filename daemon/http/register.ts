// Registers RouteDefs with Fastify: the access gate as an onRequest hook (before the body is
// read), request validation, and the envelope around what the handler returns.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Clock } from '../time/clock.js';
import { dataEnvelope, listEnvelope } from '../../shared/schemas/common.js';
import { serializerSchema, type JsonSchema } from './json-schema.js';
import { deferredSerializer } from './serializers.js';
import { parseRequestPart } from './validation.js';
import { JsonText, type Page } from '../domain/pages.js';
import type { RequestContext, RouteDef, RouteGuard } from './route.js';

declare module 'fastify' {
  interface FastifyRequest {
    ctx: RequestContext | null;
  }
}

const NoQuery = z.strictObject({});
/** What a route without query parameters gets when none were sent (most requests). */
const NO_QUERY: Readonly<Record<string, never>> = Object.freeze({});

export function registerRoutes(
  app: FastifyInstance,
  routes: readonly RouteDef[],
  guard: RouteGuard,
  clock: Clock,
): void {
  // A plugin scope (e.g. the OAuth routes with their form parser) registers its routes too.
  if (!app.hasRequestDecorator('ctx')) app.decorateRequest('ctx', null);
  for (const def of routes) registerRoute(app, def, guard, clock);
}

/**
 * The serializer schema of each route's answer, by its item schema and envelope. A route's
 * schemas are module constants, so a process that builds many apps (a test sandbox per test,
 * svc/testing) converts each once instead of once per app.
 */
const serializerSchemas = new WeakMap<z.ZodType, Map<string, JsonSchema>>();

function responseSchema(def: RouteDef): JsonSchema | undefined {
  if (def.kind !== 'object' && def.kind !== 'list') return undefined;
  let byKind = serializerSchemas.get(def.response);
  if (!byKind) serializerSchemas.set(def.response, (byKind = new Map()));
  let schema = byKind.get(def.kind);
  if (!schema) {
    const envelope =
      def.kind === 'object' ? dataEnvelope(def.response) : listEnvelope(def.response);
    schema = serializerSchema(envelope);
    byKind.set(def.kind, schema);
  }
  return schema;
}

/**
 * What Fastify is given as an object or list route's response schema: it only looks for a
 * `content` key in it; the serializer is the route's own (serializerCompiler below).
 */
const ANSWER_SCHEMA = Object.freeze({
  description: "the route's answer envelope, serialized by its zod schema (register.ts)",
});

function registerRoute(app: FastifyInstance, def: RouteDef, guard: RouteGuard, clock: Clock): void {
  const status = def.status ?? 200;
  const auth = def.auth;
  const serialized = def.kind === 'object' || def.kind === 'list';

  app.route({
    method: def.method,
    url: def.path,
    ...(def.bodyLimit ? { bodyLimit: def.bodyLimit } : {}),
    schema: serialized
      ? {
          response: Object.fromEntries(
            [status, ...(def.alsoStatus ?? [])].map((code) => [code, ANSWER_SCHEMA]),
          ),
        }
      : {},
    // Built on the route's first answer (serializers.ts): a daemon starts without converting
    // and compiling the schemas of routes it is never asked.
    ...(serialized
      ? { serializerCompiler: () => deferredSerializer(() => responseSchema(def)!) }
      : {}),
    onRequest:
      auth.kind === 'credential'
        ? (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
            try {
              request.ctx = guard.check(request, reply, auth, def.rateLimit);
              done();
            } catch (error) {
              done(error as Error);
            }
          }
        : undefined,
    // Object and list routes answer without a promise of their own when their handler has its
    // result at once (most reads): Fastify sends a plain return value straight away, where an
    // async handler costs a promise and a microtask per request. Raw handlers stay async, as
    // Fastify treats what they return (or not) differently in the two forms.
    handler:
      def.kind === 'raw'
        ? async (request, reply) => {
            const input = handlerInput(def, request, reply);
            reply.code(status);
            if (def.contentType) reply.type(def.contentType);
            return def.handler(input);
          }
        : (request, reply) => {
            const input = handlerInput(def, request, reply);
            reply.code(status);
            if (def.kind === 'object') {
              const data = def.handler(input);
              return isPromise(data)
                ? data.then((resolved) => objectAnswer(resolved, request, clock))
                : objectAnswer(data, request, clock);
            }
            const page = def.handler(input);
            return isPromise(page)
              ? page.then((resolved) => listAnswer(resolved, request, clock, reply))
              : listAnswer(page, request, clock, reply);
          },
  });
}

/** The request's validated parts and context, as a route handler takes them. */
function handlerInput(def: RouteDef, request: FastifyRequest, reply: FastifyReply) {
  const params = def.params
    ? parseRequestPart(def.params, request.params, 'params', def.fieldCodes)
    : request.params;
  // A route that takes no query parameters and got none has nothing to validate.
  const query =
    def.query === undefined && !hasKeys(request.query)
      ? NO_QUERY
      : parseRequestPart(
          def.query ?? NoQuery,
          withoutApiKey(request.query),
          'query',
          def.fieldCodes,
        );
  const body = def.body
    ? parseRequestPart(def.body, request.body, 'body', def.fieldCodes)
    : undefined;
  return { body, query, params, ctx: request.ctx!, request, reply };
}

/** A thenable, judged as Fastify judges a handler's return value (any realm's promise too). */
function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

function answerMeta(request: FastifyRequest, clock: Clock) {
  return { request_id: request.id, timestamp: clock.iso() };
}

function objectAnswer(data: unknown, request: FastifyRequest, clock: Clock) {
  return { data, meta: answerMeta(request, clock) };
}

/** A page as the list envelope; JSON-text items (events) are sent as they are stored. */
function listAnswer(
  page: Page<unknown>,
  request: FastifyRequest,
  clock: Clock,
  reply: FastifyReply,
) {
  const meta = answerMeta(request, clock);
  if (page.items[0] instanceof JsonText)
    return reply.type('application/json; charset=utf-8').send(listJson(page, meta));
  const nextCursor = page.hasMore ? lastId(page.items) : null;
  return {
    data: page.items,
    has_more: page.hasMore,
    total_count: page.totalCount,
    meta: { ...meta, has_more: page.hasMore, next_cursor: nextCursor },
  };
}

/** The list envelope around items that are already JSON text. */
function listJson(page: Page<unknown>, meta: { request_id: string; timestamp: string }): string {
  const items = page.items as JsonText[];
  const nextCursor = page.hasMore
    ? ((JSON.parse(items.at(-1)!.json) as { id?: string }).id ?? null)
    : null;
  return (
    `{"data":[${items.map((item) => item.json).join(',')}],"has_more":${page.hasMore},"total_count":${page.totalCount},` +
    `"meta":${JSON.stringify({ ...meta, has_more: page.hasMore, next_cursor: nextCursor })}}`
  );
}

function hasKeys(value: unknown): boolean {
  for (const _ in value as object) return true;
  return false;
}

function withoutApiKey(query: unknown): unknown {
  if (!query || typeof query !== 'object' || !('api_key' in query)) return query;
  const { api_key: _apiKey, ...rest } = query as Record<string, unknown>;
  return rest;
}

function lastId(items: readonly unknown[]): string | null {
  const last = items.at(-1) as { id?: unknown; execution_id?: unknown } | undefined;
  const id = last?.id ?? last?.execution_id;
  return typeof id === 'string' ? id : null;
}
