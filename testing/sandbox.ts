// createSandbox(): a whole svc daemon for one test, in the test's own process (no child process
// to spawn: the daemon's process shell, daemon/process/server.ts, runs here on port 0 with its
// own temp data dir, store, control token and operator). Everything a test does goes through
// the daemon's public surfaces: REST (sb.api, the typed svc/client) and the control channel
// (clock, faults, fixtures, state, settle, waits), as the CLI does.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createClient, type SvcClient } from '../client/index.js';
import { createControlClient, type ControlClient } from '../cli/control-client.js';
import { readFixture } from '../cli/fixture-file.js';
import type { Logger } from 'pino';
import {
  createLogger,
  flushLoggerToFile,
  releaseLogger,
  type LogLevel,
} from '../daemon/platform/logger.js';
import { startDaemon, type RunningDaemon } from '../daemon/process/server.js';
import { DEFAULT_ENTERPRISE_MULTIPLIER } from '../daemon/ratelimit/plans.js';
import { dataDirFiles } from '../shared/paths.js';
import { resolveStoreSetting, type StoreSetting } from '../shared/store-url.js';
import { PostgresDb } from '../daemon/store/postgres/postgres-db.js';
import { quoteIdentifier, where } from '../daemon/store/postgres/open.js';
import { SCOPES } from '../shared/scopes.js';
import type { StubInput } from '../shared/schemas/agents.js';
import type { FaultAddInput } from '../shared/schemas/faults.js';
import type { WorkflowExecutionStatus } from '../shared/schemas/workflows.js';
import type { z } from 'zod';
import { durationMs, startReceiver, type Receiver } from './receiver.js';
import { withSvcErrors } from './svc-error.js';
import { settingsEnv, type BrainOptions, type BrainProvider } from './settings.js';
import { writeMigratedStore } from './template-store.js';
import { makeSandboxDir, reapStaleSandboxDirs, removeSandboxDir } from './temp-dirs.js';

export type FaultRule = Omit<z.input<typeof FaultAddInput>, 'workspace_id'>;

export interface SandboxOptions {
  /** A fixture file (svc fixtures apply) applied once the sandbox is up. */
  fixtures?: string;
  /** A snapshot file (svc state export) the sandbox starts from instead of an empty store. */
  snapshot?: string;
  /**
   * The sandbox clock: an ISO time starts it there, frozen (only sb.clock moves it); or
   * `{ start, frozen: false }` to let it tick from there. Default: real time, ticking.
   */
  clock?: string | { start?: string; frozen?: boolean };
  /** Fault rules (svc faults add) in place from the start. */
  faults?: FaultRule[];
  /** More variables for sb.env (what the code under test reads). */
  env?: Record<string, string>;
  /** The daemon log's level (sb.logs()); default info. */
  logLevel?: LogLevel;
  /** The agents' brain: 'simulated' (the default), 'replay' or 'openai', or its settings. */
  brain?: BrainProvider | BrainOptions;
  /**
   * The daemon's SVC_* settings for this sandbox (e.g. SVC_AGENT_TIMEOUT_SECONDS). A sandbox
   * never reads them from the process environment: tests do not depend on the caller's.
   */
  svcEnv?: Record<string, string>;
  /**
   * A PostgreSQL URL (team mode): the sandbox lives in its own schema there, named after its
   * temp data dir and dropped when it stops; `?sandbox=NAME` opens that named sandbox instead,
   * which stays. Default: SVC_STORE_URL, else SQLite in the sandbox's data dir.
   */
  store?: string;
}

type Duration = string | number;

export class Sandbox {
  private receivers: Receiver[] = [];
  private stopping: Promise<void> | undefined;

  private constructor(
    private readonly daemon: RunningDaemon,
    private readonly logger: Logger,
    private readonly control: ControlClient,
    private readonly dataDir: string,
    private credential: { key: string; workspaceId: string },
    private client: SvcClient,
    private readonly extraEnv: Record<string, string>,
    private readonly store: StoreSetting,
  ) {}

  /** @internal createSandbox builds it. */
  static async start(options: SandboxOptions): Promise<Sandbox> {
    const daemonEnv = settingsEnv(options.brain, options.svcEnv);
    reapStaleSandboxDirs();
    const dataDir = makeSandboxDir();
    const files = dataDirFiles(dataDir);
    const store = resolveStoreSetting(
      { store: options.store ?? process.env.SVC_STORE_URL },
      dataDir,
    );
    if (store.kind === 'sqlite') writeMigratedStore(join(dataDir, 'svc.db'));
    let daemon: RunningDaemon | undefined;
    let logger: Logger | undefined;
    try {
      logger = createLogger(options.logLevel ?? 'info', files.log);
      daemon = await startDaemon(
        {
          host: '127.0.0.1',
          port: 0,
          dataDir,
          environment: 'sandbox',
          logLevel: options.logLevel ?? 'info',
          enterpriseRateMultiplier: DEFAULT_ENTERPRISE_MULTIPLIER,
          allowPrivateNetwork: false,
          store,
          secretKeyFile: files.secretKey,
          embedded: true,
          settingsEnv: daemonEnv,
        },
        logger,
      );
      const control = withSvcErrors(
        createControlClient(daemon.runtime.url, readFileSync(files.controlToken, 'utf8').trim()),
      );
      if (options.snapshot) await control.state.import.mutate({ file: resolve(options.snapshot) });
      const credential = await newCredential(control);
      const sandbox = new Sandbox(
        daemon,
        logger,
        control,
        dataDir,
        credential,
        apiClient(daemon.runtime.url, credential),
        options.env ?? {},
        store,
      );
      if (options.fixtures) await sandbox.fixtures.apply(options.fixtures);
      if (options.clock !== undefined) {
        const { start, frozen = true } =
          typeof options.clock === 'string' ? { start: options.clock } : options.clock;
        if (start) await sandbox.clock.set(start, { frozen });
        else if (frozen) await sandbox.clock.freeze();
      }
      for (const rule of options.faults ?? []) await sandbox.faults.add(rule);
      return sandbox;
    } catch (error) {
      await daemon?.shutdown('sandbox failed to start').catch(() => undefined);
      if (store.kind === 'postgres' && store.private) dropSandbox(store);
      if (logger) releaseLogger(logger);
      removeSandboxDir(dataDir);
      throw error;
    }
  }

  /** The daemon's address, e.g. http://127.0.0.1:41234 (the REST API is under /v1). */
  get url(): string {
    return this.daemon.runtime.url;
  }

  /** An API key with every scope in the sandbox's workspace. */
  get key(): string {
    return this.credential.key;
  }

  get workspaceId(): string {
    return this.credential.workspaceId;
  }

  /** The typed REST client (svc/client), with the key and workspace on every request. */
  get api(): SvcClient {
    return this.client;
  }

  /** What code under test needs to reach the sandbox; SVC_DATA_DIR also points the svc CLI at it. */
  get env(): Record<string, string> {
    return {
      SVC_BASE_URL: `${this.url}/v1`,
      SVC_API_KEY: this.key,
      SVC_WORKSPACE_ID: this.workspaceId,
      SVC_DATA_DIR: this.dataDir,
      ...this.extraEnv,
    };
  }

  readonly clock = {
    now: async (): Promise<string> => (await this.control.clock.show.query()).now,
    /** Moves forward; whatever falls due on the way has run when it resolves. */
    advance: (by: Duration) => this.control.clock.advance.mutate({ ms: durationMs(by) }),
    set: (to: string, options: { frozen?: boolean } = {}) =>
      this.control.clock.set.mutate({ to, ...options }),
    freeze: () => this.control.clock.freeze.mutate(),
    resume: () => this.control.clock.resume.mutate(),
  };

  readonly faults = {
    add: (rule: FaultRule) => this.control.faults.add.mutate({ ...rule }),
    list: () => this.control.faults.list.query({}),
    clear: () => this.control.faults.clear.mutate({}),
  };

  /** Sandbox stubs: an agent's fixed answers for requests that match (svc agents stub). */
  readonly stubs = {
    add: (agentId: string, stub: StubInput) =>
      this.control.agents.stubs.add.mutate({ agent_id: agentId, ...stub }),
    list: (agentId: string) => this.control.agents.stubs.list.query({ agent_id: agentId }),
    clear: (agentId: string) => this.control.agents.stubs.clear.mutate({ agent_id: agentId }),
  };

  readonly fixtures = {
    apply: async (file: string) =>
      this.control.fixtures.applyFixture.mutate(await readFixture(resolve(file))),
  };

  readonly state = {
    export: (file: string) =>
      this.control.state.export.mutate({ file: resolve(file), force: true }),
    /** Replaces the store with a snapshot; sb.key and sb.api are made anew in it. */
    import: async (file: string) => {
      const answer = await this.control.state.import.mutate({ file: resolve(file) });
      await this.renewCredential();
      return answer;
    },
    /** An empty sandbox again; sb.key and sb.api are made anew. */
    reset: async () => {
      const answer = await this.control.state.reset.mutate();
      await this.renewCredential();
      return answer;
    },
  };

  readonly runs = {
    /**
     * The run once it shows `status` (default completed); rejects at once if it ends otherwise,
     * or if it is parked on the frozen sandbox clock (a wait for a later time, an approval),
     * saying what moves it on (`await sb.clock.advance('15m')`, `sb.approvals.approve(...)`).
     */
    wait: (
      executionId: string,
      options: {
        status?: WorkflowExecutionStatus | WorkflowExecutionStatus[];
        timeout?: Duration;
      } = {},
    ) =>
      this.control.workflows.wait.mutate({
        execution_id: executionId,
        status: [options.status ?? 'completed'].flat(),
        words: 'kit',
        ...(options.timeout === undefined ? {} : { timeout_ms: durationMs(options.timeout) }),
      }),
  };

  /**
   * Agent executions waiting for a person's decision (svc approvals): `list()` (newest first,
   * each with the run and step that asked and what the agent proposes), `approve(id)`,
   * `reject(id, { reason })` by the execution id alone.
   */
  readonly approvals = {
    list: (options: { limit?: number; startingAfter?: string } = {}) =>
      this.control.approvals.list.query({
        workspace_id: this.workspaceId,
        ...(options.limit === undefined ? {} : { limit: options.limit }),
        ...(options.startingAfter === undefined ? {} : { starting_after: options.startingAfter }),
      }),
    approve: (executionId: string, options: { reason?: string } = {}) =>
      this.control.approvals.decide.mutate({
        execution_id: executionId,
        decision: 'approve',
        ...options,
      }),
    reject: (executionId: string, options: { reason?: string } = {}) =>
      this.control.approvals.decide.mutate({
        execution_id: executionId,
        decision: 'reject',
        ...options,
      }),
  };

  /** Resolves once no step or delivery attempt is in flight and no timer is due (default 30s). */
  settle(options: { timeout?: Duration } = {}) {
    return this.control.settle.mutate(
      options.timeout === undefined ? {} : { timeout_ms: durationMs(options.timeout) },
    );
  }

  /**
   * The daemon's log so far, one object per line (pino JSON). The lines the daemon gathers for
   * its next batched write (every 200 ms) are written first, so every line logged before this
   * call is in the answer.
   */
  logs(): Record<string, unknown>[] {
    if (!this.stopping) flushLoggerToFile(this.logger);
    let text = '';
    try {
      text = readFileSync(dataDirFiles(this.dataDir).log, 'utf8');
    } catch {
      return [];
    }
    return text
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  /** A loopback receiver checking the signatures of this sandbox's webhooks that point at it. */
  async receiver(): Promise<Receiver> {
    const services = () => this.daemon.svc.services;
    const receiver = await startReceiver((url) =>
      services()
        .webhooks.active(this.workspaceId)
        .filter((hook) => hook.row.url.startsWith(url))
        .map((hook) => services().webhooks.signingSecret(hook.row)),
    );
    this.receivers.push(receiver);
    return receiver;
  }

  /** Stops the daemon, closes the receivers and removes the data dir (idempotent). */
  stop(): Promise<void> {
    return (this.stopping ??= (async () => {
      await Promise.all(this.receivers.map((receiver) => receiver.close()));
      await this.daemon.shutdown('sandbox stop');
      // The data dir's own PostgreSQL sandbox goes with it (a named one stays).
      if (this.store.kind === 'postgres' && this.store.private) dropSandbox(this.store);
      releaseLogger(this.logger);
      removeSandboxDir(this.dataDir);
    })());
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  private async renewCredential(): Promise<void> {
    this.credential = await newCredential(this.control);
    this.client = apiClient(this.url, this.credential);
  }
}

async function newCredential(
  control: ControlClient,
): Promise<{ key: string; workspaceId: string }> {
  // The store's default workspace: a sandbox's store is its own, so the workspace is too.
  const workspaceId = (await control.auth.operatorCredential.query()).default_workspace_id;
  const created = await control.keys.create.mutate({
    name: 'sandbox',
    scopes: [...SCOPES],
    workspace_id: workspaceId,
  });
  return { key: created.key, workspaceId };
}

function apiClient(url: string, credential: { key: string; workspaceId: string }): SvcClient {
  return createClient({ baseUrl: url, key: credential.key, workspace: credential.workspaceId });
}

/** Drops a sandbox's PostgreSQL schema, best effort (the server may be gone by now). */
function dropSandbox(store: Extract<StoreSetting, { kind: 'postgres' }>): void {
  try {
    const db = new PostgresDb({ url: store.url, schema: store.sandbox, where: where(store.url) });
    try {
      db.exec(`DROP SCHEMA IF EXISTS ${quoteIdentifier(store.sandbox)} CASCADE`);
    } finally {
      db.close();
    }
  } catch {
    // Left behind: a throwaway cluster is removed whole; a real one keeps an empty-ish schema.
  }
}
