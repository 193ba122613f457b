// A REST route as data: method, path, who may call it, its schemas and its handler. The app
// registers these with Fastify and the OpenAPI document is generated from the same list.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { ErrorCode } from '../../shared/errors.js';
import type { OAuthErrorCode } from '../../shared/schemas/oauth.js';
import type { Scope } from '../../shared/scopes.js';
import type { Credential } from '../domain/credential.js';
import type { Operation } from '../ratelimit/plans.js';
import type { JsonText, Page } from '../domain/pages.js';
import type { Workspace } from '../domain/workspace.js';
import type { FieldCodes } from './validation.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export type RouteAuth =
  | { kind: 'public' }
  | {
      kind: 'credential';
      /** The scope the operation needs; null means any valid credential. */
      scope: Scope | null;
      /** Tenant-scoped routes need X-Tenant-ID naming a workspace the credential may use. */
      tenant: boolean;
    };

/** A route of one workspace (X-Tenant-ID) that a credential with `scope` may call. */
export function tenantRoute(scope: Scope) {
  return { kind: 'credential', scope, tenant: true } as const;
}

export interface RouteRateLimit {
  operation: Operation;
  /** Path parameter whose value splits the bucket (e.g. per agent: "agent_id"). */
  perParam?: string;
}

export interface RequestContext {
  credential: Credential;
  workspace: Workspace;
}

/**
 * What every credential route asks before its handler: who calls, in which workspace, within
 * which rate limit. The HTTP platform owns this port; auth/access.ts implements it.
 */
export interface RouteGuard {
  check(
    request: FastifyRequest,
    reply: FastifyReply,
    auth: Extract<RouteAuth, { kind: 'credential' }>,
    rateLimit: RouteRateLimit | undefined,
  ): RequestContext;
}

export interface HandlerInput<B, Q, P> {
  body: B;
  query: Q;
  params: P;
  ctx: RequestContext;
  request: FastifyRequest;
  reply: FastifyReply;
}

/**
 * Meta key of a query parameter that the handler requires and checks itself (answering in its
 * own form, e.g. the consent step's HTML page): the platform leaves it optional, the document
 * says it is required.
 */
export const REQUIRED_BY_HANDLER = 'x-required-by-handler';

interface RouteBase<B, Q, P> {
  method: HttpMethod;
  /** Fastify path syntax: /v1/events/:event_id */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  auth: RouteAuth;
  rateLimit?: RouteRateLimit;
  body?: z.ZodType<B>;
  query?: z.ZodType<Q>;
  params?: z.ZodType<P>;
  /** Per-field error codes for validation failures (e.g. invalid_autonomy_level). */
  fieldCodes?: FieldCodes;
  /** Error codes this route raises besides the ones every route of its kind can raise. */
  errors?: ErrorCode[];
  bodyLimit?: number;
  /** Success status: 200, 201 (created) or 202 (accepted for later). */
  status?: 200 | 201 | 202;
  /** Other success statuses the handler may set with reply.code() (same body schema). */
  alsoStatus?: (200 | 201 | 202)[];
  /** A multipart/form-data upload: one `file` part and these text fields (the handler reads them). */
  upload?: z.ZodType;
  /** An application/x-www-form-urlencoded body (the handler reads and checks it; documented). */
  form?: z.ZodType;
  /**
   * A JSON body the handler takes as it comes (a hook's payload: any JSON value, or none):
   * documented, not validated by the platform. `body` is for bodies the platform validates.
   */
  payload?: z.ZodType;
  /**
   * A page for people (the OAuth consent step): its errors are HTML pages too, and `redirect`
   * says when it answers 302 instead.
   */
  html?: { redirect?: string };
  /** Protocol errors answered as RFC 6749 `{error, error_description}` (the OAuth endpoints). */
  oauthErrors?: OAuthErrorCode[];
}

export interface ObjectRoute<B, Q, P, R> extends RouteBase<B, Q, P> {
  kind: 'object';
  response: z.ZodType<R>;
  handler(input: HandlerInput<B, Q, P>): R | Promise<R>;
}

export interface ListRoute<B, Q, P, R> extends RouteBase<B, Q, P> {
  kind: 'list';
  response: z.ZodType<R>;
  handler(input: HandlerInput<B, Q, P>): Page<R | JsonText> | Promise<Page<R | JsonText>>;
}

/** A route answering without the envelope (the OpenAPI document, health). */
export interface RawRoute<B, Q, P, R> extends RouteBase<B, Q, P> {
  kind: 'raw';
  response: z.ZodType<R>;
  contentType?: string;
  handler(input: HandlerInput<B, Q, P>): R | Promise<R>;
}

export type RouteDef<B = unknown, Q = unknown, P = unknown, R = unknown> =
  ObjectRoute<B, Q, P, R> | ListRoute<B, Q, P, R> | RawRoute<B, Q, P, R>;

/** Identity functions that keep the handler's input types tied to the schemas. */
export function objectRoute<B = undefined, Q = undefined, P = undefined, R = unknown>(
  def: Omit<ObjectRoute<B, Q, P, R>, 'kind'>,
): RouteDef {
  return { ...def, kind: 'object' } as RouteDef;
}

export function listRoute<B = undefined, Q = undefined, P = undefined, R = unknown>(
  def: Omit<ListRoute<B, Q, P, R>, 'kind'>,
): RouteDef {
  return { ...def, kind: 'list' } as RouteDef;
}

export function rawRoute<B = undefined, Q = undefined, P = undefined, R = unknown>(
  def: Omit<RawRoute<B, Q, P, R>, 'kind'>,
): RouteDef {
  return { ...def, kind: 'raw' } as RouteDef;
}
