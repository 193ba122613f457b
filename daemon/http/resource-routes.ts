// The five CRUD routes of a resource (list, create, get, update, delete), declared once: their
// method, path, operation id, summary, scopes, rate limit, id parameter, not-found error and
// response schema follow from the resource. Each resource's routes file passes its handlers
// and what differs (a description, an error, a rate limit) and places the routes where it
// wants them among its own.
import type { z } from 'zod';
import type { ErrorCode } from '../../shared/errors.js';
import { DeletedObject, type DeletedView } from '../../shared/schemas/common.js';
import type { Scope } from '../../shared/scopes.js';
import type { JsonText, Page } from '../domain/pages.js';
import {
  listRoute,
  objectRoute,
  tenantRoute,
  type HandlerInput,
  type RouteDef,
  type RouteRateLimit,
} from './route.js';
import type { FieldCodes } from './validation.js';

export interface Resource<I, P, Q, C, U> {
  tag: string;
  /** The collection, e.g. /v1/webhooks; an item is at /v1/webhooks/:webhook_id. */
  path: string;
  idParam: string;
  /** The resource's name in operation ids and summaries: Webhook -> listWebhooks, "a webhook". */
  name: { singular: string; plural: string; article: 'a' | 'an' };
  scopes: { read: Scope; write: Scope };
  /** The bucket of every route unless one says otherwise. */
  rateLimit?: RouteRateLimit;
  /** Raised by get, update and delete for an id that is not in the workspace. */
  notFound: ErrorCode;
  item: z.ZodType<I>;
  params: z.ZodType<P>;
  listQuery: z.ZodType<Q>;
  createBody: z.ZodType<C>;
  /** Absent for a resource without an update route. */
  updateBody?: z.ZodType<U>;
}

/** What a route of the resource may say besides the defaults. */
export interface RouteExtras {
  operationId?: string;
  summary?: string;
  description?: string;
  rateLimit?: RouteRateLimit;
  /** Error codes besides the not-found one. */
  errors?: ErrorCode[];
  fieldCodes?: FieldCodes;
}

type Handler<B, Q, P, R> = (input: HandlerInput<B, Q, P>) => R | Promise<R>;

export function resourceRoutes<I, P, Q, C, U>(resource: Resource<I, P, Q, C, U>) {
  const { singular, plural, article } = resource.name;
  const title = (word: string) => word[0]!.toUpperCase() + word.slice(1);
  const one = `${article} ${singular}`;
  const itemPath = `${resource.path}/:${resource.idParam}`;
  const read = tenantRoute(resource.scopes.read);
  const write = tenantRoute(resource.scopes.write);
  /** The parts every route shares; `undefined` fields are left out, as if never written. */
  const common = (
    verb: string,
    noun: string,
    summary: string,
    extras: RouteExtras,
    notFound: boolean,
  ) => {
    const errors = [...(notFound ? [resource.notFound] : []), ...(extras.errors ?? [])];
    const rateLimit = extras.rateLimit ?? resource.rateLimit;
    return {
      operationId: extras.operationId ?? `${verb}${title(noun)}`,
      summary: extras.summary ?? summary,
      ...(extras.description === undefined ? {} : { description: extras.description }),
      tag: resource.tag,
      ...(rateLimit === undefined ? {} : { rateLimit }),
      ...(extras.fieldCodes === undefined ? {} : { fieldCodes: extras.fieldCodes }),
      ...(errors.length > 0 ? { errors } : {}),
    };
  };
  return {
    list: (
      handler: Handler<undefined, Q, undefined, Page<I | JsonText>>,
      extras: RouteExtras = {},
    ): RouteDef =>
      listRoute<undefined, Q, undefined, I>({
        method: 'GET',
        path: resource.path,
        ...common('list', plural, `List ${plural}`, extras, false),
        auth: read,
        query: resource.listQuery,
        response: resource.item,
        handler,
      }),
    create: (handler: Handler<C, undefined, undefined, I>, extras: RouteExtras = {}): RouteDef =>
      objectRoute<C, undefined, undefined, I>({
        method: 'POST',
        path: resource.path,
        ...common('create', singular, `Create ${one}`, extras, false),
        auth: write,
        status: 201,
        body: resource.createBody,
        response: resource.item,
        handler,
      }),
    get: (handler: Handler<undefined, undefined, P, I>, extras: RouteExtras = {}): RouteDef =>
      objectRoute<undefined, undefined, P, I>({
        method: 'GET',
        path: itemPath,
        ...common('get', singular, `Retrieve ${one}`, extras, true),
        auth: read,
        params: resource.params,
        response: resource.item,
        handler,
      }),
    update: (handler: Handler<U, undefined, P, I>, extras: RouteExtras = {}): RouteDef =>
      objectRoute<U, undefined, P, I>({
        method: 'PATCH',
        path: itemPath,
        ...common('update', singular, `Update ${one}`, extras, true),
        auth: write,
        params: resource.params,
        body: resource.updateBody,
        response: resource.item,
        handler,
      }),
    delete: (
      handler: Handler<undefined, undefined, P, DeletedView>,
      extras: RouteExtras = {},
    ): RouteDef =>
      objectRoute<undefined, undefined, P, DeletedView>({
        method: 'DELETE',
        path: itemPath,
        ...common('delete', singular, `Delete ${one}`, extras, true),
        auth: write,
        params: resource.params,
        response: DeletedObject,
        handler,
      }),
  };
}
