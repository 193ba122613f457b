// How a route of the dashboard's JSON API is declared: a table of routes, each keyed by its method
// and path ('GET /runs/:execution_id') with its input schema (the query of a GET, the body of a
// POST) and its output schema, and one handler per route. GET needs a session; POST a session,
// the CSRF token, and a body its schema accepts. Each handler is given the workspace the page
// shows, and its answer is checked against the output schema before it is sent (as the control
// channel's `.output()`; an answer that breaks it is a 500, logged). The browser's code is
// type-checked against the same schemas (contract.ts), so a field renamed on one side fails
// `npm run typecheck` on the other. The guard of ui.routes.ts (loopback, Host, Origin) has run
// before either.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ListQuery } from '../../shared/schemas/common.js';
import { ApiError } from '../domain/errors.js';
import type { Page } from '../domain/pages.js';
import { DashboardSessions, type DashboardSession } from './sessions.js';

export const WorkspaceQuery = z.strictObject({ workspace: z.string().max(100).optional() });
export const PageQuery = ListQuery.extend({ workspace: z.string().max(100).optional() });
export const NoBody = z.strictObject({});

/** A route's schemas: `input` is the query of a GET, the JSON body of a POST. */
export interface Route<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  input: I;
  output: O;
}

/** Routes by 'GET /path' or 'POST /path' (the path under /ui/api, with :params). */
export type RouteTable = Record<`${'GET' | 'POST'} /${string}`, Route>;

export function route<I extends z.ZodType, O extends z.ZodType>(input: I, output: O): Route<I, O> {
  return { input, output };
}

/** What a handler answers: the output schema's input type (checked and sent as its output). */
type Answer<R extends Route> = z.input<R['output']> | Promise<z.input<R['output']>>;

export type Handler<R extends Route> = (
  input: z.output<R['input']>,
  workspaceId: string,
  request: FastifyRequest,
) => Answer<R>;

/** One handler for every route of a table, and none for a route it does not declare. */
export type Handlers<T extends RouteTable> = {
  [K in keyof T]: T[K] extends Route ? Handler<T[K]> : never;
};

export interface ApiKit {
  serve<T extends RouteTable>(routes: T, handlers: Handlers<T>): void;
}

export interface KitNeeds {
  requireSession(request: FastifyRequest): DashboardSession;
  workspaceOf(input: { workspace?: string | undefined }): string;
}

export function apiKit(scope: FastifyInstance, needs: KitNeeds): ApiKit {
  const read = (path: string, { input, output }: Route, handler: Handler<Route>) => {
    scope.get(path, async (request, reply) => {
      needs.requireSession(request);
      const query = parse(input, request.query) as { workspace?: string };
      void reply.header('cache-control', 'no-store');
      return checked(path, output, await handler(query, needs.workspaceOf(query), request));
    });
  };
  const act = (path: string, { input, output }: Route, handler: Handler<Route>) => {
    scope.post(path, async (request, reply) => {
      const session = needs.requireSession(request);
      const csrf = request.headers['x-csrf-token'];
      if (!DashboardSessions.csrfMatches(session, typeof csrf === 'string' ? csrf : undefined)) {
        throw new ApiError(
          'csrf_token_invalid',
          'Missing or wrong CSRF token: reload the dashboard page and try again.',
        );
      }
      const workspace = parse(WorkspaceQuery, request.query);
      void reply.header('cache-control', 'no-store');
      const body = parse(input, request.body ?? {});
      return checked(path, output, await handler(body, needs.workspaceOf(workspace), request));
    });
  };
  return {
    serve(routes, handlers) {
      for (const [key, schemas] of Object.entries(routes) as [string, Route][]) {
        const [method, path] = key.split(' ') as ['GET' | 'POST', string];
        const handler = handlers[key as keyof typeof handlers] as Handler<Route>;
        (method === 'GET' ? read : act)(`/ui/api${path}`, schemas, handler);
      }
    },
  };
}

/**
 * The answer as its output schema says (fields it does not name are not sent). An answer that
 * breaks its schema is the daemon's bug, never data the page would misread: a plain error, so
 * the page gets the generic 500 and the daemon's log the route and the field.
 */
function checked(path: string, output: z.ZodType, answer: unknown): unknown {
  const result = output.safeParse(answer);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new Error(
    `The dashboard's answer to ${path} breaks its output schema at ${issue.path.join('.') || 'the top'}: ${issue.message}`,
  );
}

/** The path parameters of a route (`:execution_id` ...), always present when it matched. */
export function params(request: FastifyRequest): Record<string, string> {
  return request.params as Record<string, string>;
}

export function parse<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const param = issue.path.join('.') || undefined;
  throw new ApiError('invalid_parameter', `${param ?? 'input'}: ${issue.message}`, { param });
}

/** A page as the REST lists send it: data, has_more, total_count and the next cursor. */
export function listOf<T>(page: Page<T>) {
  const last = page.items.at(-1) as { id?: string; execution_id?: string } | undefined;
  return {
    data: page.items,
    has_more: page.hasMore,
    total_count: page.totalCount,
    next_cursor: page.hasMore ? (last?.id ?? last?.execution_id ?? null) : null,
  };
}

/** The schema of listOf's answer for items of `item`. */
export function ListOf<I extends z.ZodType>(item: I) {
  return z.object({
    data: z.array(item),
    has_more: z.boolean(),
    total_count: z.number().int(),
    next_cursor: z.string().nullable(),
  });
}
