// The composition root of the daemon's domain: opens the store and wires every repository and
// service together, and wires the domain to itself (time/time-keeper.ts: moving the clock fires
// due timers and housekeeping). No HTTP here (app.ts builds the server around these services).
import { hostname } from 'node:os';
import type { Environment } from '../domain/environment.js';
import { AgentRepository } from '../agents/agent.repository.js';
import { AgentService } from '../agents/agent.service.js';
import { AnalyticsService } from '../agents/analytics.service.js';
import { ClockService, loadClock } from '../time/clock.service.js';
import { CommitQueue } from '../store/commit-queue.js';
import { ConversationService } from '../agents/conversation.service.js';
import { CredentialService } from '../auth/credential.service.js';
import { DeliveryRepository } from '../webhooks/deliveries/delivery.repository.js';
import { DeliveryService } from '../webhooks/deliveries/delivery.service.js';
import { EventRepository } from '../events/event.repository.js';
import { EventService } from '../events/event.service.js';
import { ExecutionRepository } from '../agents/execution.repository.js';
import { ExecutionService } from '../agents/execution.service.js';
import { IntegrationRepository } from '../integrations/integration.repository.js';
import { IntegrationService } from '../integrations/integration.service.js';
import { KeyRepository } from '../keys/key.repository.js';
import { KeyService, operatorOwner } from '../keys/key.service.js';
import { KnowledgeRepository } from '../agents/knowledge/knowledge.repository.js';
import { KnowledgeService } from '../agents/knowledge/knowledge.service.js';
import { KnowledgeExtractor } from '../agents/knowledge/extractor.js';
import { MessageRepository } from '../agents/message.repository.js';
import { OAuthRepository } from '../oauth/oauth.repository.js';
import { OAuthService } from '../oauth/oauth.service.js';
import { OffsetClock } from '../time/clock.js';
import { OpenAiBrain } from '../agents/brains/openai.js';
import { IDLE_MS, OutboundHttp } from '../outbound/http.js';
import { HttpCaller } from '../outbound/http-caller.js';
import { SettingsRepository } from '../store/settings.repository.js';
import { TeamNotices } from '../store/team-notices.js';
import { SimulatedBrain } from '../agents/brains/simulated.js';
import { ReplayBrain } from '../agents/brains/replay.js';
import { Cassettes, cassetteDir } from '../agents/brains/cassette.js';
import { CassetteFiles } from '../agents/brains/cassette-files.js';
import { CassetteRows } from '../agents/brains/cassette-rows.js';
import { StubRepository } from '../agents/stub.repository.js';
import { StubService } from '../agents/stub.service.js';
import { Thinker } from '../agents/thinker.js';
import { TimerRepository } from '../time/timer.repository.js';
import { TimerService } from '../time/timer.service.js';
import { WebhookRepository } from '../webhooks/webhook.repository.js';
import { WebhookService } from '../webhooks/webhook.service.js';
import { WorkspaceRepository } from '../workspaces/workspace.repository.js';
import { WorkspaceService } from '../workspaces/workspace.service.js';
import { agentSettingsFromEnv, type AgentSettings } from '../agents/agent-settings.js';
import { join } from 'node:path';
import { dataDirFiles } from '../../shared/paths.js';
import { checkSecretKey, loadSecretKey } from './secret-key.js';
import type { StoreSetting } from '../../shared/store-url.js';
import { Alarms } from '../time/alarms.js';
import { WorkflowEngine } from '../engine/engine.js';
import { RunRepository } from '../engine/run.repository.js';
import { StepRunner } from '../engine/steps/runner.js';
import { SecretRepository } from '../secrets/secret.repository.js';
import { SecretService } from '../secrets/secret.service.js';
import { WorkflowExecutionsService } from '../workflows/executions.service.js';
import { WorkflowRepository } from '../workflows/workflow.repository.js';
import { WorkflowService } from '../workflows/workflow.service.js';
import { TriggerRepository } from '../triggers/trigger.repository.js';
import { TriggerService } from '../triggers/trigger.service.js';
import { TemplateService } from '../templates/template.service.js';
import { loadTemplates } from '../templates/template.loader.js';
import { type WorkflowView } from '../../shared/schemas/workflows.js';
import { Checkpointer } from '../store/checkpointer.js';
import { openDatabase, restartWal, sqliteDb, writeCounter } from '../store/database.js';
import { openPostgresDatabase } from '../store/postgres/open.js';
import { storeKind, type Db } from '../store/db.js';
import { Housekeeping } from '../time/housekeeping.js';
import { timeAgenda } from '../time/time-keeper.js';
import { serverUrls, type ServerUrls } from '../domain/urls.js';
import { ApiError } from '../domain/errors.js';
import { MIGRATIONS } from '../store/migrations.js';
import { FixtureRepository } from '../fixtures/fixture.repository.js';
import { FixtureService } from '../fixtures/fixture.service.js';
import { FaultRepository } from '../faults/fault.repository.js';
import { FaultService } from '../faults/fault.service.js';
import { Hooks } from '../domain/hooks.js';
import { registerReactions } from './reactions.js';
import { DaemonRegistry } from '../cluster/daemon-registry.js';
import { memberId } from '../cluster/lease.js';
import { stepClaims } from '../cluster/step-claims.js';
import { newDaemonId } from '../../shared/daemon-identity.js';
import { VERSION } from '../../shared/package-info.js';

export interface ServiceOptions {
  dataDir: string;
  /** Drawn at each start (daemon.json); its digest names the daemon in the sandbox (team mode). */
  daemonId?: string;
  environment: Environment;
  /** Defaults to <dataDir>/svc.db. */
  databaseFile?: string;
  /** Where the sandbox lives; default the SQLite file (databaseFile). */
  store?: StoreSetting;
  /** The key that seals secrets at rest (app/secret-key.ts); default <dataDir>/secret.key. */
  secretKeyFile?: string;
  /** The daemon's addresses (links in errors); updated in place once the server listens. */
  urls?: ServerUrls;
  /** Production: allow outbound calls to loopback/private addresses. */
  allowPrivateNetwork?: boolean;
  /** Training period, execution timeout and brain; defaults from SVC_AGENT_* variables. */
  agentSettings?: AgentSettings;
  /** Where the SVC_* settings (agents, cassette folder) are read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /**
   * false: no worker threads. WAL checkpoints are made by the connection as it commits (SQLite's
   * wal_autocheckpoint) and outbound calls in this thread. For a test sandbox (svc/testing), whose
   * store stays small and whose life is short: a worker's start and stop cost more than all it
   * does there. Default true.
   */
  workerThreads?: boolean;
}

export interface Services {
  db: Db;
  /** The reactions between modules (domain/hooks.ts): fired by services, listened to by others. */
  hooks: Hooks;
  /** Team mode: what the daemons of one sandbox tell each other (a no-op on SQLite). */
  notices: TeamNotices;
  /** Group commit: changes queued in one tick share a transaction. */
  commits: CommitQueue;
  clock: OffsetClock;
  clockService: ClockService;
  timers: TimerService;
  /** Retention; app.start() starts it. */
  housekeeping: Housekeeping;
  /** The daemons serving the sandbox (team mode); app.start() joins, drain() leaves. */
  cluster: DaemonRegistry;
  /** WAL checkpoints in a worker thread (none for an in-memory store); app.start() starts it. */
  checkpointer: Checkpointer | undefined;
  workspaces: WorkspaceService;
  keys: KeyService;
  credentials: CredentialService;
  oauth: OAuthService;
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
  secrets: SecretService;
  workflows: WorkflowService;
  engine: WorkflowEngine;
  triggers: TriggerService;
  templates: TemplateService<WorkflowView>;
  runs: WorkflowExecutionsService;
  alarms: Alarms;
  /** Every outbound HTTP call goes through it (daemon/outbound/http.ts). */
  outbound: OutboundHttp;
  /** svc fixtures apply. */
  fixtures: FixtureService;
  /** Sandbox fault rules (svc faults). */
  faults: FaultService;
  /** The openai brain (svc agents record starts and stops its recording). */
  openaiBrain: OpenAiBrain;
  /** Recorded model answers (svc agents cassette load). */
  cassettes: Cassettes;
  /** The daemon's default brain and its cassettes (svc status). */
  brain: {
    mode: AgentSettings['brain'];
    cassetteDir: string;
    /** Where cassettes are kept: the folder's files, or the sandbox's store (team mode). */
    cassettesIn: 'folder' | 'store';
    replayCassette: string | undefined;
  };
}

export function buildServices(
  options: ServiceOptions,
  log: { info(obj: object, msg: string): void; error(obj: object, msg: string): void },
): Services {
  const urls = options.urls ?? serverUrls('127.0.0.1', 7717);
  // Integration credentials and webhook signing secrets are sealed with it (AES-256-GCM, key
  // file 0600, by default in the data dir); migration 4 seals rows stored before.
  const secretKey = loadSecretKey(options.secretKeyFile ?? dataDirFiles(options.dataDir).secretKey);
  const secretBox = secretKey.box;
  const databaseFile = options.databaseFile ?? join(options.dataDir, 'svc.db');
  const store = options.store ?? { kind: 'sqlite' };
  // The sandbox: the data dir's SQLite file, or a schema of a PostgreSQL (team mode), which
  // openPostgresDatabase creates and migrates; either way the same port (store/db.ts).
  const db: Db =
    store.kind === 'postgres'
      ? openPostgresDatabase({ url: store.url, schema: store.sandbox, context: { secretBox } })
      : openDatabase(databaseFile, MIGRATIONS, { secretBox });
  const settings = new SettingsRepository(db);
  try {
    checkSecretKey(
      secretKey,
      settings,
      store.kind === 'postgres'
        ? `the sandbox ${store.sandbox} (${store.display})`
        : `the store ${databaseFile}`,
    );
  } catch (error) {
    db.close();
    throw error;
  }
  // WAL checkpoints are SQLite's; PostgreSQL checkpoints itself.
  const sqliteFile = store.kind === 'sqlite' && databaseFile !== ':memory:';
  const checkpointer =
    !sqliteFile || options.workerThreads === false
      ? undefined
      : new Checkpointer(databaseFile, log, {
          catchUp: () => restartWal(db),
          writes: writeCounter(db),
          firstWorkerOnWrite: true,
        });
  // openDatabase leaves checkpoints to the worker; without one, SQLite's default (1000 pages).
  if (!checkpointer && sqliteFile) sqliteDb(db).pragma('wal_autocheckpoint = 1000');
  const commits = new CommitQueue(db);
  const hooks = new Hooks();
  // Team mode: what the daemons of one sandbox tell each other (nothing on SQLite).
  const notices = new TeamNotices(db.notifications, (error, topic) =>
    log.error({ err: error, topic }, 'A notice from another daemon of the sandbox failed here'),
  );
  const clock = new OffsetClock();
  // Before anything reads the clock; ClockService, which moves it, is built once what falls due
  // by a move is (timeAgenda, below).
  loadClock(clock, settings, options.environment);
  const cluster = new DaemonRegistry(db, {
    id: memberId(options.daemonId ?? newDaemonId()),
    version: VERSION,
    schemaVersion: MIGRATIONS.at(-1)!.version,
    log,
  });
  const timers = new TimerService(
    new TimerRepository(db, cluster.shared ? cluster.id : undefined),
    clock,
    log,
    notices,
  );
  const workspaces = new WorkspaceService(
    db,
    new WorkspaceRepository(db),
    settings,
    clock,
    notices,
  );
  workspaces.bootstrap();
  const keyRepository = new KeyRepository(db);
  const keys = new KeyService({
    db,
    repo: keyRepository,
    workspaces,
    clock,
    environment: options.environment,
    hooks,
    operatorOwner: cluster.shared ? operatorOwner(hostname(), options.dataDir) : undefined,
  });
  const oauth = new OAuthService({
    db,
    repo: new OAuthRepository(db),
    workspaces,
    clock,
    hooks,
  });
  const credentials = new CredentialService({
    keys: keyRepository,
    clock,
    environment: options.environment,
    usage: keys.usage,
    accessTokens: (hash) => oauth.accessTokenByHash(hash),
  });
  // Another daemon changed a key or token (team mode): drop the cache here too, within the
  // notification's round trip; one that lost its listening connection drops it on return.
  notices.on('credentials', () => credentials.invalidate());
  notices.onResync(() => credentials.invalidate());
  const events = new EventService({
    db,
    repo: new EventRepository(db, commits),
    clock,
    commits,
    hooks,
    notices,
  });
  const urlPolicy = {
    environment: options.environment,
    allowPrivateNetwork: options.allowPrivateNetwork ?? false,
  };
  const webhooks = new WebhookService({
    db,
    repo: new WebhookRepository(db, commits),
    clock,
    urlPolicy,
    secretBox,
    hooks,
  });
  const alarms = new Alarms(clock);
  // Sandbox fault rules, asked where real outcomes are produced: outbound HTTP, steps, agents.
  // What a rule names is looked up when a rule is added (the services are built below).
  const faults = new FaultService({
    repo: new FaultRepository(db),
    clock,
    alarms,
    existing: {
      webhook: (workspaceId, id) => void webhooks.row(workspaceId, id),
      workflowStep: (workspaceId, workflowId, stepId) => {
        const row = workflows.row(workspaceId, workflowId);
        const definition = workflows.definition(row.id, row.version);
        if (!definition?.byId.has(stepId)) {
          throw new ApiError('invalid_parameter', `Workflow ${workflowId} has no step ${stepId}.`, {
            param: 'step',
          });
        }
      },
      agent: (workspaceId, id) => void agents.row(workspaceId, id),
    },
    sandbox: options.environment === 'sandbox',
    log,
    notices,
  });
  const outbound = new OutboundHttp(urlPolicy, {
    idleMs: IDLE_MS,
    inThread: options.workerThreads === false ? new HttpCaller(urlPolicy) : undefined,
    faults,
  });
  const deliveries = new DeliveryService({
    db,
    repo: new DeliveryRepository(db, commits),
    webhooks,
    timers,
    clock,
    outbound,
    commits,
    notices,
    hooks,
  });
  const integrations = new IntegrationService({
    db,
    repo: new IntegrationRepository(db),
    events,
    clock,
    secretBox,
  });

  const agentSettings = options.agentSettings ?? agentSettingsFromEnv(options.env);
  const agentRepository = new AgentRepository(db, commits);
  const executionRepository = new ExecutionRepository(db);
  const messageRepository = new MessageRepository(db);
  const agents = new AgentService({
    db,
    repo: agentRepository,
    events,
    timers,
    clock,
    settings: agentSettings,
    urls,
    urlPolicy,
    hooks,
  });
  const knowledge = new KnowledgeService(
    new KnowledgeRepository(db),
    clock,
    new KnowledgeExtractor(agentSettings.knowledgeExtractMs),
    notices,
  );
  const stubs = new StubService(new StubRepository(db), clock);
  const secrets = new SecretService(new SecretRepository(db), secretBox, clock, notices);
  // Recorded model answers (svc agents record, the replay brain): files of one folder for all
  // agents; in team mode rows of the sandbox, which every daemon of it shares (the folder's
  // files are taken in when first used).
  const cassetteFiles = new CassetteFiles(cassetteDir(options.dataDir, options.env));
  const cassettes = new Cassettes(
    cassetteFiles.dir,
    storeKind(db) === 'postgres'
      ? new CassetteRows(db, notices, cassetteFiles, () => clock.now())
      : cassetteFiles,
  );
  // An agent's brain.api_key_secret names a workspace secret (svc secrets set).
  const openai = new OpenAiBrain(
    agentSettings.openai,
    outbound,
    (workspaceId, name) => secrets.reveal(workspaceId, name),
    cassettes,
  );
  if (agentSettings.recordTo) openai.recordTo(agentSettings.recordTo);
  const brains = {
    simulated: new SimulatedBrain(),
    openai,
    replay: new ReplayBrain(agentSettings.replay, agentSettings.openai, cassettes, openai),
  };
  const thinker = new Thinker({
    agents,
    stubs,
    knowledge,
    brains,
    settings: agentSettings,
    faults,
  });
  const executions = new ExecutionService({
    db,
    commits,
    repo: executionRepository,
    agentRepo: agentRepository,
    agents,
    thinker,
    events,
    timers,
    clock,
    settings: agentSettings,
    hooks,
  });
  const conversations = new ConversationService({
    db,
    repo: messageRepository,
    agentRepo: agentRepository,
    agents,
    thinker,
    clock,
  });
  const analytics = new AnalyticsService(agents, executionRepository, messageRepository, clock);

  const triggerRepository = new TriggerRepository(db);
  const workflows = new WorkflowService({
    db,
    repo: new WorkflowRepository(db, commits),
    events,
    clock,
    urlPolicy,
    agentExists: (workspaceId, agentId) =>
      agentRepository.get(agentId)?.workspace_id === workspaceId,
    box: secretBox,
    hooks,
    nextRunOf: (workflowId) => triggerRepository.nextRunAt(workflowId),
  });
  const runRepository = new RunRepository(db, commits);
  const engine = new WorkflowEngine({
    db,
    commits,
    repo: runRepository,
    workflows,
    events,
    timers,
    clock,
    alarms,
    steps: new StepRunner({ agents: executions, clock, urlPolicy, outbound }, faults),
    approvals: executions,
    reveal: (workspaceId, name) => secrets.reveal(workspaceId, name),
    hooks,
    claims: stepClaims(db, cluster.id),
    log,
    notices,
  });
  // A lost or stopped daemon's timers were released and its step claims dropped: run them here.
  cluster.onTakeover(() => {
    void timers.runDue();
    engine.resume();
  });
  const runs = new WorkflowExecutionsService(commits, runRepository, workflows, engine, clock);
  const triggers = new TriggerService({
    db,
    repo: triggerRepository,
    runs: engine,
    timers,
    clock,
    commits,
    box: secretBox,
  });
  const templates = new TemplateService(() => loadTemplates(), agents, {
    create: (workspace, body) => workflows.create(workspace.id, body),
  });
  const housekeeping = new Housekeeping(
    [
      { name: 'events', run: () => events.purgeExpired() },
      { name: 'agent executions', run: () => executions.purgeExpired() },
      { name: 'workflow executions', run: () => runs.purgeExpired() },
      { name: 'event trigger chains', run: () => triggers.purgeExpired() },
      { name: 'accepted hook signatures', run: () => triggers.purgeAcceptedSignatures() },
      { name: 'oauth codes and tokens', run: () => oauth.purgeExpired() },
      // Not a purge: the keys' last-use times held in memory, stored once a minute.
      {
        name: 'key last used',
        ownMemory: true,
        run: () => {
          keys.usage.flush();
          return 0;
        },
      },
    ],
    log,
    () => cluster.isHousekeeper(),
  );
  const agenda = timeAgenda({ timers, alarms, settle: () => engine.idle() });
  const clockService = new ClockService({
    clock,
    settings,
    environment: options.environment,
    agenda,
    hooks,
    notices,
  });
  registerReactions(hooks, {
    executions,
    engine,
    triggers,
    deliveries,
    credentials,
    notices,
    time: { agenda, housekeeping },
  });
  const fixtures = new FixtureService({
    repo: new FixtureRepository(db),
    environment: options.environment,
    clock,
    clockService,
    workspaces,
    keys,
    secrets,
    integrations,
    agents,
    knowledge,
    stubs,
    workflows,
    templates,
    webhooks,
    oauth,
    events,
    runs,
  });
  return {
    fixtures,
    db,
    hooks,
    notices,
    commits,
    clock,
    clockService,
    timers,
    housekeeping,
    cluster,
    checkpointer,
    workspaces,
    keys,
    credentials,
    oauth,
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
    secrets,
    workflows,
    engine,
    runs,
    alarms,
    triggers,
    templates,
    outbound,
    faults,
    openaiBrain: openai,
    cassettes,
    brain: {
      mode: agentSettings.brain,
      cassetteDir: cassettes.dir,
      cassettesIn: cassettes.place,
      replayCassette: agentSettings.replay.cassette,
    },
  };
}
