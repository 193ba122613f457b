// Builds the whole daemon (store, services, REST routes, control channel) without listening,
// so tests can build one on a temp dir and use app.inject(); server.ts does the listening.
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import findMyWay from 'find-my-way';
import type { Logger } from 'pino';
import { join } from 'node:path';
import { ID_PREFIXES, randomBase62 } from '../shared/ids.js';
import { VERSION } from '../shared/package-info.js';
import { CredentialService } from './auth/credential.service.js';
import { meRoutes } from './auth/me.routes.js';
import { OffsetClock, toIso } from './clock/clock.js';
import { ClockService } from './clock/clock.service.js';
import { createControlRouter, controlContextFactory } from './control/router.js';
import type { DaemonStatus } from './control/deps.js';
import { EventRepository } from './events/event.repository.js';
import { eventRoutes } from './events/event.routes.js';
import { EventService } from './events/event.service.js';
import { AccessGuard } from './http/access.js';
import {
  answerClientError,
  installErrorHandling,
  sendError,
  toApiError,
} from './http/error-handler.js';
import { installJsonBodyParser } from './http/json-body.js';
import { registerRoutes } from './http/register.js';
import { RequestLogController } from './http/request-log.js';
import type { RouteDef } from './http/route.js';
import { serverUrls, type ServerUrls } from './http/urls.js';
import { Housekeeping } from './housekeeping.js';
import type { Environment } from './keys/key-material.js';
import { KeyRepository } from './keys/key.repository.js';
import { KeyService } from './keys/key.service.js';
import { publicRoutes } from './public.routes.js';
import { FixedWindowLimiter } from './ratelimit/limiter.js';
import { RatePlans } from './ratelimit/plans.js';
import { CommitQueue } from './store/commit-queue.js';
import { checkpoint, openDatabase, type Db } from './store/database.js';
import { SettingsRepository } from './store/settings.repository.js';
import { TimerRepository } from './timers/timer.repository.js';
import { TimerService } from './timers/timer.service.js';
import { WorkspaceRepository } from './workspaces/workspace.repository.js';
import { WorkspaceService } from './workspaces/workspace.service.js';
import { DeliveryRepository } from './webhooks/delivery.repository.js';
import { DeliveryService } from './webhooks/delivery.service.js';
import { WebhookRepository } from './webhooks/webhook.repository.js';
import { webhookRoutes } from './webhooks/webhook.routes.js';
import { WebhookService } from './webhooks/webhook.service.js';
import { IntegrationRepository } from './integrations/integration.repository.js';
import { integrationRoutes } from './integrations/integration.routes.js';
import { IntegrationService } from './integrations/integration.service.js';
import multipart from '@fastify/multipart';
import { AgentRepository } from './agents/agent.repository.js';
import { agentRoutes } from './agents/agent.routes.js';
import { AgentService } from './agents/agent.service.js';
import { agentSettingsFromEnv, type AgentSettings } from './agents/agent-settings.js';
import { AnalyticsService } from './agents/analytics.service.js';
import { OpenAiBrain } from './agents/brains/openai.js';
import { SimulatedBrain } from './agents/brains/simulated.js';
import { ConversationService } from './agents/conversation.service.js';
import { ExecutionRepository } from './agents/execution.repository.js';
import { ExecutionService } from './agents/execution.service.js';
import { KnowledgeRepository } from './agents/knowledge.repository.js';
import { KnowledgeService, MAX_KNOWLEDGE_BYTES } from './agents/knowledge/knowledge.service.js';
import { MessageRepository } from './agents/message.repository.js';
import { StubRepository } from './agents/stub.repository.js';
import { StubService } from './agents/stub.service.js';
import { Thinker } from './agents/thinker.js';

export const MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_ENTERPRISE_MULTIPLIER = 100;

export interface AppOptions {
  dataDir: string;
  environment: Environment;
  controlToken: string;
  /** Defaults to <dataDir>/svc.db. */
  databaseFile?: string;
  logger?: Logger;
  enterpriseRateMultiplier?: number;
  /** Known before listening when the port is fixed; server.ts updates it after listen. */
  urls?: ServerUrls;
  onShutdownRequest?: () => void;
  /** Production: allow outbound calls to loopback/private addresses. */
  allowPrivateNetwork?: boolean;
  /** Training period, execution timeout and brain; defaults from SVC_AGENT_* variables. */
  agentSettings?: AgentSettings;
}

export interface Services {
  db: Db;
  clock: OffsetClock;
  clockService: ClockService;
  timers: TimerService;
  workspaces: WorkspaceService;
  keys: KeyService;
  credentials: CredentialService;
  events: EventService;
  webhooks: WebhookService;
  deliveries: DeliveryService;
  integrations: IntegrationService;
  agents: AgentService;
  executions: ExecutionService;
  conversations: ConversationService;
  knowledge: KnowledgeService;
  analytics: AnalyticsService;
  stubs: StubService;
}

export interface SvcApp {
  app: FastifyInstance;
  services: Services;
  urls: ServerUrls;
  routes: readonly RouteDef[];
  /** Starts timers and housekeeping; call once the server listens. */
  start(): void;
  /** Stops accepting requests, lets in-flight work finish, closes the store. */
  close(): Promise<void>;
}

export function buildServices(
  options: AppOptions,
  log: { error(obj: object, msg: string): void },
): Services {
  const urls = options.urls ?? serverUrls('127.0.0.1', 7717);
  const db = openDatabase(options.databaseFile ?? join(options.dataDir, 'svc.db'));
  const settings = new SettingsRepository(db);
  const commits = new CommitQueue(db);
  const clock = new OffsetClock();
  const clockService = new ClockService(clock, settings, options.environment);
  clockService.load();
  const timers = new TimerService(new TimerRepository(db), clock, log);
  const workspaces = new WorkspaceService(db, new WorkspaceRepository(db), settings, clock);
  workspaces.bootstrap();
  const keyRepository = new KeyRepository(db);
  const keys = new KeyService(db, keyRepository, workspaces, clock, options.environment);
  const credentials = new CredentialService(keyRepository, clock, options.environment);
  keys.onChange(() => credentials.invalidate());
  const events = new EventService(db, new EventRepository(db), clock);
  const urlPolicy = {
    environment: options.environment,
    allowPrivateNetwork: options.allowPrivateNetwork ?? false,
  };
  const deliveryRepository = new DeliveryRepository(db);
  const webhooks = new WebhookService(
    db,
    new WebhookRepository(db),
    deliveryRepository,
    timers,
    clock,
    urlPolicy,
  );
  events.addFanout(webhooks.fanout);
  const deliveries = new DeliveryService(db, deliveryRepository, webhooks, timers, clock);
  const integrations = new IntegrationService(db, new IntegrationRepository(db), events, clock);

  const agentSettings = options.agentSettings ?? agentSettingsFromEnv();
  const agentRepository = new AgentRepository(db);
  const executionRepository = new ExecutionRepository(db);
  const messageRepository = new MessageRepository(db);
  const agents = new AgentService(
    db,
    agentRepository,
    events,
    timers,
    clock,
    agentSettings,
    urls,
    urlPolicy,
  );
  const knowledge = new KnowledgeService(new KnowledgeRepository(db), clock);
  const stubs = new StubService(new StubRepository(db), clock);
  const brains = { simulated: new SimulatedBrain(), openai: new OpenAiBrain(agentSettings.openai) };
  const thinker = new Thinker(agents, stubs, knowledge, brains, agentSettings);
  const executions = new ExecutionService(
    db,
    commits,
    executionRepository,
    agentRepository,
    agents,
    thinker,
    events,
    timers,
    clock,
    agentSettings,
  );
  const conversations = new ConversationService(
    db,
    messageRepository,
    agentRepository,
    agents,
    thinker,
    clock,
  );
  const analytics = new AnalyticsService(agents, executionRepository, messageRepository, clock);
  return {
    db,
    clock,
    clockService,
    timers,
    workspaces,
    keys,
    credentials,
    events,
    webhooks,
    deliveries,
    integrations,
    agents,
    executions,
    conversations,
    knowledge,
    analytics,
    stubs,
  };
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
  const app: FastifyInstance = Fastify({
    frameworkErrors: (error, request, reply) =>
      frameworkError(error, request as FastifyRequest, reply as FastifyReply),
    clientErrorHandler: answerClientError,
    ...(options.logger
      ? { loggerInstance: options.logger as FastifyBaseLogger }
      : { logger: false }),
    bodyLimit: MAX_BODY_BYTES,
    logController: new RequestLogController(),
    genReqId: requestIdGenerator(),
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  });
  const services = buildServices({ ...options, urls }, app.log);
  const {
    clock,
    clockService,
    timers,
    workspaces,
    keys,
    credentials,
    events,
    webhooks,
    deliveries,
    integrations,
    stubs,
  } = services;

  const plans = new RatePlans(options.enterpriseRateMultiplier ?? DEFAULT_ENTERPRISE_MULTIPLIER);
  const guard = new AccessGuard(
    credentials,
    workspaces,
    new FixedWindowLimiter(clock),
    plans,
    clock,
  );
  const housekeeping = new Housekeeping(
    [
      { name: 'events', run: () => events.purgeExpired() },
      { name: 'agent executions', run: () => services.executions.purgeExpired() },
      {
        name: 'wal checkpoint',
        run: () => {
          checkpoint(services.db);
          return 0;
        },
      },
    ],
    app.log,
  );
  clockService.onChange(async () => {
    await timers.runDue();
    housekeeping.run();
  });

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });

  installJsonBodyParser(app);
  await app.register(multipart, {
    limits: { fileSize: MAX_KNOWLEDGE_BYTES, files: 1, fields: 10, fieldSize: 10_000, parts: 12 },
  });
  const routes: RouteDef[] = [
    ...meRoutes(),
    ...eventRoutes(events),
    ...webhookRoutes(webhooks, deliveries),
    ...integrationRoutes(integrations),
    ...agentRoutes(services),
  ];
  const allRoutes: RouteDef[] = [...routes, ...publicRoutes(() => allRoutes, urls, VERSION)];
  registerRoutes(app, allRoutes, guard, clock);

  const methodsByPath = methodFinder(allRoutes);
  installErrorHandling(app, clock, urls, methodsByPath);
  frameworkError = (error, request, reply) => {
    reply.header('X-Request-Id', request.id);
    sendError(request, reply, toApiError(error), clock, urls);
  };

  const router = createControlRouter({
    workspaces,
    keys,
    clock,
    clockService,
    events,
    deliveries,
    stubs,
    agents: services.agents,
    daemon: {
      environment: options.environment,
      status: (): DaemonStatus => ({
        pid: process.pid,
        version: VERSION,
        environment: options.environment,
        url: urls.app,
        data_dir: options.dataDir,
        started_at: toIso(startedAt),
        uptime_ms: Date.now() - startedAt,
        clock: { now: clock.iso(), offset_ms: clock.offset },
        pending_timers: timers.pending(),
        default_workspace_id: workspaces.defaultWorkspaceId,
        operator_user_id: workspaces.operatorUser.id,
      }),
      requestShutdown: () => options.onShutdownRequest?.(),
    },
  });
  await app.register(fastifyTRPCPlugin, {
    prefix: '/trpc',
    trpcOptions: { router, createContext: controlContextFactory(options.controlToken) },
  });

  let closed = false;
  return {
    app,
    services,
    urls,
    routes: allRoutes,
    start() {
      timers.start();
      housekeeping.start();
    },
    async close() {
      if (closed) return;
      closed = true;
      housekeeping.stop();
      services.executions.releaseWaiters();
      await app.close();
      await timers.stop();
      services.db.close();
    },
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
