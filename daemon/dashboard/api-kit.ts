// How a route of the dashboard's JSON API is declared: `read` (GET, a session needed) and `act`
// (POST, a session, the CSRF token, and a body checked by its schema), each given the workspace
// the page shows. The guard of ui.routes.ts (loopback, Host, Origin) has run before either.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ListQuery } from '../../shared/schemas/common.js';
import { ApiError } from '../domain/errors.js';
import type { Page } from '../domain/pages.js';
import { DashboardSessions, type DashboardSession } from './sessions.js';

export const WorkspaceQuery = z.strictObject({ workspace: z.string().max(100).optional() });
export const PageQuery = ListQuery.extend({ workspace: z.string().max(100).optional() });
export const NoBody = z.strictObject({});

type Handler<I> = (input: I, workspaceId: string, request: FastifyRequest) => unknown;

export interface ApiKit {
  read<Q extends z.ZodType<{ workspace?: string | undefined }>>(
    path: string,
    query: Q,
    handler: Handler<z.infer<Q>>,
  ): void;
  act<B extends z.ZodType>(path: string, body: B, handler: Handler<z.infer<B>>): void;
}

export interface KitNeeds {
  requireSession(request: FastifyRequest): DashboardSession;
  workspaceOf(input: { workspace?: string | undefined }): string;
}

export function apiKit(scope: FastifyInstance, needs: KitNeeds): ApiKit {
  return {
    read(path, query, handler) {
      scope.get(path, (request, reply) => {
        needs.requireSession(request);
        const input = parse(query, request.query);
        void reply.header('cache-control', 'no-store');
        return handler(input, needs.workspaceOf(input), request);
      });
    },
    act(path, body, handler) {
      scope.post(path, (request, reply) => {
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
        return handler(parse(body, request.body ?? {}), needs.workspaceOf(workspace), request);
      });
    },
  };
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
