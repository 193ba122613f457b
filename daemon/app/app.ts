// Builds the whole daemon (store, services, REST routes, control channel) without listening,
// so tests can build one on a temp dir and use app.inject(); server.ts does the listening.
import Fastify, {
  type FastifyServerOptions,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import findMyWay from 'find-my-way';
import type { Logger } from 'pino';
import { ID_PREFIXES, randomBase62 } from '../../shared/ids.js';
import { VERSION } from '../../shared/package-info.js';
import { toIso } from '../time/clock.js';
import { createControlRouter } from '../control/router.js';
import { controlContextFactory } from '../control/procedure.js';
import { singleCallLane } from '../control/single-call.js';
import { controlInputGuard, controlRequestGuard } from '../control/request-guard.js';
import { identityRoute } from '../control/identity.js';
import type { DaemonStatus, StoreSwap } from '../control/deps.js';
import { MemoryTrimmer } from '../platform/memory-trim.js';
import { writeSnapshot } from '../store/snapshot.js';
import { AccessGuard } from '../auth/access.js';
import {
  answerClientError,
  installErrorHandling,
  sendError,
  toApiError,
} from '../http/error-handler.js';
import { installJsonBodyParser } from '../http/json-body.js';
import { registerRoutes } from '../http/register.js';
import { RequestLogController } from '../http/request-log.js';
import type { RouteDef } from '../http/route.js';
import type { ApiTag } from '../http/rest-module.js';
import { serverUrls, type ServerUrls } from '../domain/urls.js';
import { publicRoutes, systemTag } from './public.routes.js';
import { REST_MODULES } from './resources.js';
import { FixedWindowLimiter } from '../ratelimit/limiter.js';
import { SharedWindowLimiter } from '../ratelimit/shared-limiter.js';
import { storeKind } from '../store/db.js';
import { DEFAULT_ENTERPRISE_MULTIPLIER, RatePlans } from '../ratelimit/plans.js';
import type { StoreSetting } from '../../shared/store-url.js';
import { dataDirFiles } from '../../shared/paths.js';
import { buildServices, type ServiceOptions, type Services } from './services.js';
import { logFailures } from './failure-log.js';
import { MAX_KNOWLEDGE_BYTES } from '../agents/knowledge/knowledge.service.js';
import multipart from '@fastify/multipart';
import formbody from '@fastify/formbody';
import cookie from '@fastify/cookie';
import { oauthModule, oauthScopeErrorHandler } from '../oauth/oauth.routes.js';
import { dashboardRoutes } from '../dashboard/ui.routes.js';
import { DashboardSessions } from '../dashboard/sessions.js';
import { StoredSessionRows } from '../dashboard/session.repository.js';
import { Locator } from '../dashboard/locate.js';

export const MAX_BODY_BYTES = 1024 * 1024;
/** Control-channel requests: a fixture with its knowledge files (40 MiB, base64). */
export const MAX_CONTROL_BODY_BYTES = 64 * 1024 * 1024;

export interface AppOptions extends ServiceOptions {
  controlToken: string;
  /** Drawn at each start and recorded in daemon.json: proved at GET /control/identity. */
  daemonId?: string;
  /** The host's server (daemon/process/app-host.ts) routes requests to this app: see Fastify's option. */
  serverFactory?: FastifyServerOptions['serverFactory'];
  /** svc state import|reset: given by the host, which can swap the store under the app. */
  storeSwap?: StoreSwap;
  logger?: Logger;
  enterpriseRateMultiplier?: number;
  onShutdownRequest?: () => void;
}

export interface SvcApp {
  app: FastifyInstance;
  services: Services;
  urls: ServerUrls;
  routes: readonly RouteDef[];
  /** The tags of the routes' modules, as the OpenAPI document describes them. */
  tags: readonly ApiTag[];
  /** Starts timers and housekeeping; call once the server listens. */
  start(): void;
  /** Stops accepting requests, lets in-flight work finish, closes the store. */
  close(): Promise<void>;
  /** Stops the services (runs parked, timers stopped) and closes the store; HTTP stays up. */
  drain(): Promise<void>;
}

export async function buildApp(options: AppOptions): Promise<SvcApp> {
  const startedAt = Date.now();
  const urls = options.urls ?? serverUrls('127.0.0.1', 7717);
  // Errors Fastify raises before routing (a URL that cannot be decoded, an over-long path
  // parameter) reach frameworkErrors, not the error handler: answer them in the spec's form too.
  let frameworkError: (
    error: FastifyError,
    request: FastifyRequest,
    reply: FastifyReply,
  ) => void = () => undefined;
  // At debug, every request line; at info, a per-second budget of them (see request-log.ts).
  const requestLog = new RequestLogController(options.logger);
  const app: FastifyInstance = Fastify({
    frameworkErrors: (error, request, reply) =>
      frameworkError(error, request as FastifyRequest, reply as FastifyReply),
    clientErrorHandler: answerClientError,
    ...(options.logger
      ? { loggerInstance: options.logger as FastifyBaseLogger }
      : { logger: false }),
    bodyLimit: MAX_BODY_BYTES,
    logController: requestLog,
    // No child logger per request: the request line and error logs carry req_id themselves.
    childLoggerFactory: (logger) => logger,
    genReqId: requestIdGenerator(),
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    ...(options.serverFactory ? { serverFactory: options.serverFactory } : {}),
  });
  const services = buildServices({ ...options, urls }, app.log);
  // Failures said at warn in the daemon log (svc logs --level warn).
  if (options.logger) logFailures(options.logger, services);
  const {
    clock,
    clockService,
    timers,
    housekeeping,
    workspaces,
    keys,
    credentials,
    events,
    deliveries,
    stubs,
  } = services;

  const plans = new RatePlans(options.enterpriseRateMultiplier ?? DEFAULT_ENTERPRISE_MULTIPLIER);
  // Several daemons may serve a PostgreSQL sandbox: they count in the store, so a client's limit
  // does not multiply with them; SQLite's one daemon counts in memory (no statement a request).
  const limiter =
    storeKind(services.db) === 'postgres'
      ? new SharedWindowLimiter(services.db, clock)
      : new FixedWindowLimiter(clock);
  const guard = new AccessGuard(credentials, workspaces, limiter, plans, clock);

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });

  installJsonBodyParser(app);
  const routeDeps = { ...services, guard };
  const routes = REST_MODULES.flatMap((module) => module.routes(routeDeps));
  const oauth = oauthModule.routes({
    oauth: services.oauth,
    workspaces,
    limiter,
    plans,
    clock,
    urls,
  });
  const tags = [...REST_MODULES.map((module) => module.tag), oauthModule.tag, systemTag];
  const allRoutes: RouteDef[] = [
    ...routes,
    ...oauth,
    ...publicRoutes(() => ({ routes: allRoutes, tags }), urls, VERSION),
  ];
  registerRoutes(
    app,
    allRoutes.filter((route) => !oauth.includes(route) && !route.upload),
    guard,
    clock,
  );

  const methodsByPath = methodFinder(allRoutes);
  installErrorHandling(app, clock, urls, methodsByPath, options.dataDir);
  frameworkError = (error, request, reply) => {
    reply.header('X-Request-Id', request.id);
    sendError(request, reply, toApiError(error, options.dataDir), clock, urls);
  };
  // The upload routes alone take multipart bodies: the plugin's three async hooks (request,
  // validation, response) would otherwise run on every request.
  await app.register(async (scope) => {
    await scope.register(multipart, {
      limits: { fileSize: MAX_KNOWLEDGE_BYTES, files: 1, fields: 10, fieldSize: 10_000, parts: 12 },
    });
    registerRoutes(
      scope,
      allRoutes.filter((route) => route.upload),
      guard,
      clock,
    );
  });
  // The OAuth endpoints alone take form bodies and cookies, so no other route's parsing changes.
  await app.register(async (scope) => {
    await scope.register(formbody);
    await scope.register(cookie);
    scope.setErrorHandler(oauthScopeErrorHandler(clock, urls, options.dataDir));
    registerRoutes(scope, oauth, guard, clock);
  });

  const status = (): DaemonStatus => ({
    pid: process.pid,
    version: VERSION,
    environment: options.environment,
    url: urls.app,
    data_dir: options.dataDir,
    store: storeStatus(
      options.store,
      options.databaseFile ?? dataDirFiles(options.dataDir).database,
    ),
    started_at: toIso(startedAt),
    uptime_ms: Date.now() - startedAt,
    clock: { now: clock.iso(), offset_ms: clock.offset },
    pending_timers: timers.pending(),
    daemons: services.cluster.views(),
    dead_timers: timers.dead(),
    default_workspace_id: workspaces.defaultWorkspaceId,
    operator_user_id: workspaces.operatorUser.id,
    memory: memoryFigures(),
  });
  // Team mode: a daemon taken over by another (its lease ran out) stops; its work is theirs.
  services.cluster.onLost(() => options.onShutdownRequest?.());
  // The dashboard (/ui): svc dashboard mints its login links. Sessions live in memory (SQLite,
  // one daemon), or in the store, one cookie for the sandbox's daemons (team mode: a login on one
  // works on all; the default workspace's id names the sandbox).
  const dashboardSessions = services.cluster.shared
    ? new DashboardSessions(
        Date.now,
        new StoredSessionRows(services.db),
        `svc_ui_${workspaces.defaultWorkspaceId}`,
      )
    : new DashboardSessions();
  const dashboardLocator = new Locator(services);
  await dashboardRoutes(app, { services, urls, sessions: dashboardSessions, clock, status });

  const router = createControlRouter({
    workspaces,
    keys,
    clock,
    clockService,
    timers,
    engine: services.engine,
    hooks: services.hooks,
    events,
    deliveries,
    stubs,
    agents: services.agents,
    executions: services.executions,
    runs: services.runs,
    triggers: services.triggers,
    secrets: services.secrets,
    oauth: services.oauth,
    fixtures: services.fixtures,
    state: {
      export: (file, force) => {
        // The keys' last-use times held in memory go into the snapshot too, or the imported
        // sandbox lists a key as used up to a minute earlier than the one it came from.
        services.keys.usage.flush();
        return writeSnapshot(
          services.db,
          file,
          { svcVersion: VERSION, environment: options.environment, createdAt: clock.iso() },
          {
            dataDir: options.dataDir,
            force,
          },
        );
      },
      swap: options.storeSwap,
    },
    faults: services.faults,
    recorder: services.openaiBrain,
    cassettes: services.cassettes,
    brain: () => ({
      mode: services.brain.mode,
      cassette_dir: services.brain.cassetteDir,
      cassettes_in: services.brain.cassettesIn,
      recording: services.openaiBrain.recordingTo,
      replay_cassette: services.brain.replayCassette ?? null,
    }),
    daemon: {
      environment: options.environment,
      status,
      requestShutdown: () => options.onShutdownRequest?.(),
    },
    dashboard: {
      login: (input) => {
        const next = dashboardLocator.landing(input);
        const { token, expiresAt } = dashboardSessions.mintLoginToken();
        const landing = next === '/ui' ? '' : `&next=${encodeURIComponent(next)}`;
        return {
          url: `${urls.app}${next}`,
          login_url: `${urls.app}/ui/login?token=${token}${landing}`,
          expires_at: toIso(expiresAt),
        };
      },
    },
  });
  // The guards run only for the control channel's routes (an encapsulated scope), not for REST.
  await app.register(async (control) => {
    if (options.daemonId) identityRoute(control, options.daemonId);
    control.addHook('onRequest', controlRequestGuard(options.controlToken));
    // Fixtures carry their knowledge documents: a larger body than REST's 1 MiB, read only once
    // the token was checked (onRequest runs before the body is read).
    control.addHook('onRoute', (route) => {
      route.bodyLimit = MAX_CONTROL_BODY_BYTES;
    });
    control.addHook('preHandler', controlInputGuard);
    const createContext = controlContextFactory(options.controlToken, options.dataDir);
    control.addHook('preHandler', singleCallLane(router, createContext));
    await control.register(fastifyTRPCPlugin, {
      prefix: '/trpc',
      trpcOptions: { router, createContext },
    });
  });

  // Work stops first (runs parked), then timers and the store: for a shutdown with HTTP closed in
  // between, for a store swap (drain) with HTTP left to the host.
  const trimmer = new MemoryTrimmer(
    services.checkpointer ? [services.outbound, services.checkpointer] : [services.outbound],
  );
  let workStopped: Promise<void> | undefined;
  const stopWork = () =>
    (workStopped ??= (async () => {
      housekeeping.stop();
      trimmer.stop();
      services.executions.releaseWaiters();
      await services.engine.stop();
    })());
  let drained: Promise<void> | undefined;
  const drain = () =>
    (drained ??= (async () => {
      await stopWork();
      await timers.stop();
      services.alarms.clear();
      await services.outbound.close();
      // The keys' last-use times held since the last minute's flush.
      services.keys.usage.flush();
      await services.checkpointer?.stop();
      // Team mode: what it held goes to the other daemons; its row says it stopped.
      services.cluster.leave();
      services.db.close();
    })());
  let closed = false;
  return {
    app,
    services,
    urls,
    routes: allRoutes,
    tags,
    start() {
      // A run state this svc cannot read (a newer svc's) refuses the start before anything moves.
      services.engine.checkStoredStates();
      // Schedules that fell due while no daemon ran fire once, before the timers run (not
      // while another daemon of the sandbox is live: it fires them, team mode).
      services.triggers.catchUp(() => services.cluster.othersLive());
      // Registered once it listens (its address is known), before it claims any work.
      services.cluster.join(urls.app);
      timers.start();
      housekeeping.start();
      services.checkpointer?.start();
      trimmer.start();
      services.engine.resume();
    },
    async close() {
      if (closed) return;
      closed = true;
      await stopWork();
      await app.close();
      requestLog.close();
      await drain();
    },
    drain,
  };
}

/** req_ + a per-process random part + a counter: unique, and cheap on the hot path. */
function requestIdGenerator(): () => string {
  const prefix = ID_PREFIXES.request + randomBase62(10);
  let counter = 0;
  return () => prefix + (counter++).toString(36).padStart(6, '0');
}

/** For 405: which methods a path would have matched. */
function methodFinder(routes: readonly RouteDef[]): (url: string) => string[] {
  const router = findMyWay({ ignoreTrailingSlash: true, maxParamLength: 200 });
  const byPath = new Map<string, string[]>();
  for (const route of routes) {
    const methods = byPath.get(route.path) ?? [];
    methods.push(route.method);
    byPath.set(route.path, methods);
  }
  for (const [path, methods] of byPath) {
    router.on('GET', path, () => undefined, { methods });
  }
  return (url) => {
    const path = url.split('?')[0] ?? url;
    const found = router.find('GET', path);
    return found ? ((found.store as { methods: string[] }).methods ?? []) : [];
  };
}

function memoryFigures(): DaemonStatus['memory'] {
  const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
  return { rss, heap_used: heapUsed, heap_total: heapTotal, external };
}

/** Where the sandbox lives, as svc status shows it (never a password). */
function storeStatus(store: StoreSetting | undefined, databaseFile: string): DaemonStatus['store'] {
  return store?.kind === 'postgres'
    ? { kind: 'postgres', location: store.display, sandbox: store.sandbox }
    : { kind: 'sqlite', location: databaseFile, sandbox: null };
}
