// The dashboard's JSON API as one table: every route of the *.api.ts files, keyed by method and
// path, with its schemas. ui.routes.ts serves the route files; the browser's code
// (daemon/dashboard/web, checked by `npm run typecheck` through web/tsconfig.json) takes its types
// from the table below: which paths exist, their :params, their query or body, and their answer.
// A route renamed or an output field renamed here fails the browser's type-check.
import { z } from 'zod';
import { ClockState, DeliveryActivity } from '../../shared/schemas/control-output.js';
import { Event } from '../../shared/schemas/events.js';
import { WORKFLOW_EXECUTION_STATUSES } from '../../shared/schemas/workflows.js';
import { agentsRoutes } from './agents.api.js';
import type { Route } from './api-kit.js';
import { driveRoutes } from './drive.api.js';
import { faultsRoutes } from './faults.api.js';
import { findRoutes } from './find.api.js';
import { historyRoutes } from './history.api.js';
import { keysRoutes } from './keys.api.js';
import { replayRoutes } from './replay.api.js';
import { secretsRoutes } from './secrets.api.js';
import { sessionRoutes } from './session.api.js';
import { templatesRoutes } from './templates.api.js';
import { triggerRoutes } from './trigger.api.js';
import { watchRoutes } from './watch.api.js';
import { workflowRoutes } from './workflow.api.js';

export const uiRoutes = {
  ...sessionRoutes,
  ...watchRoutes,
  ...findRoutes,
  ...workflowRoutes,
  ...driveRoutes,
  ...keysRoutes,
  ...faultsRoutes,
  ...secretsRoutes,
  ...triggerRoutes,
  ...replayRoutes,
  ...agentsRoutes,
  ...historyRoutes,
  ...templatesRoutes,
};

type Routes = typeof uiRoutes;
type PathOf<K, M extends string> = K extends `${M} ${infer P}` ? P : never;

/** The paths the browser may GET, and POST (under /ui/api, with their :params). */
export type GetPath = PathOf<keyof Routes, 'GET'>;
export type PostPath = PathOf<keyof Routes, 'POST'>;

type RouteOf<K> = K extends keyof Routes ? (Routes[K] extends Route ? Routes[K] : never) : never;
type GetRoute<P extends GetPath> = RouteOf<`GET ${P}`>;
type PostRoute<P extends PostPath> = RouteOf<`POST ${P}`>;

/** The names of a path's :params. */
type ParamNames<P> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;
type ParamsArg<P> = [ParamNames<P>] extends [never]
  ? { params?: undefined }
  : { params: Record<ParamNames<P>, string> };

/**
 * A GET's query: the names its schema takes (the workspace is the page's, added by lib.js);
 * values as a URL carries them, an empty or missing one left out.
 */
type QueryArg<R extends Route> = {
  query?: {
    [K in Exclude<keyof z.input<R['input']>, 'workspace'>]?: string | number | boolean | null;
  };
};

/** The second argument of lib.js `get(path, args)`. */
export type GetArgs<P extends GetPath> = ParamsArg<P> & QueryArg<GetRoute<P>>;
/** The second argument of lib.js `post(path, args)`: the params and the JSON body. */
export type PostArgs<P extends PostPath> = ParamsArg<P> & { body?: z.input<PostRoute<P>['input']> };

/** What a GET or a POST answers. */
export type GetAnswer<P extends GetPath> = z.output<GetRoute<P>['output']>;
export type PostAnswer<P extends PostPath> = z.output<PostRoute<P>['output']>;

/**
 * The live stream (GET /ui/api/stream, server-sent events): each message's `event:` name and the
 * schema of its `data:` JSON. ui.routes.ts sends only these (its `send` is typed by them), and
 * lib.js hands each to the pages typed by them (LiveArgs): a page that reads a field a message
 * does not have fails `npm run typecheck`. test/e2e/dashboard-stream.test.ts parses real
 * messages with these schemas.
 */
export const liveMessages = {
  /** An event committed in the page's workspace (the eventPublished hook). */
  event: Event,
  /** A run of the workspace changed (runChanged). */
  run: z.strictObject({
    execution_id: z.string(),
    workflow_id: z.string(),
    workspace_id: z.string(),
    status: z.enum(WORKFLOW_EXECUTION_STATUSES),
  }),
  /** A webhook delivery attempt of the workspace was stored (deliveryAttempted). */
  delivery: DeliveryActivity,
  /** The sandbox clock moved (clockMoved): where it stands now. */
  clock: ClockState,
};

export type LiveType = keyof typeof liveMessages;
/** The data of a live message of type `K`. */
export type LiveData<K extends LiveType> = z.output<(typeof liveMessages)[K]>;
/**
 * What a page's live listener is called with: a message's type and its data, or ('open', null)
 * when the stream (re)connects. A union of tuples, so that testing the type narrows the data.
 */
export type LiveArgs =
  { [K in LiveType]: [type: K, data: LiveData<K>] }[LiveType] | [type: 'open', data: null];
