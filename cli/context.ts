// What a command needs to reach the daemon: the data dir (where the daemon records its address
// and control token), the REST client with a credential, and the control-channel client.
// Everything heavy is imported on first use so `svc --help` stays fast.
import { existsSync, readFileSync } from 'node:fs';
import { dataDirFiles, defaultDataDir, DEFAULT_HOST, type RuntimeInfo } from '../shared/paths.js';
import { formatUrl, ownDaemonUrl, requestedAddress } from './daemon-address.js';
import type { ApiClient } from '../shared/api-client.js';
import type { ControlClient } from './control-client.js';
import { CliError } from './errors.js';
import { Output } from './output.js';
import { resolve } from 'node:path';

export type GlobalOptions = {
  json?: boolean;
  dataDir?: string;
  port?: string;
  host?: string;
  apiKey?: string;
  workspace?: string;
};

/** The workspace a command acted in, and why that one (for messages). */
export interface WorkspaceInUse {
  /** Undefined when the daemon chose (its default workspace) and the CLI did not ask which. */
  id: string | undefined;
  source: string;
}

export class CliContext {
  readonly out: Output;
  readonly dataDir: string;
  private controlClient: ControlClient | undefined;
  /** Where the control client was made for (the operator credential goes there alone). */
  private controlUrl: string | undefined;
  private apiClient: ApiClient | undefined;
  private resolvedWorkspace: WorkspaceInUse | undefined;

  constructor(readonly options: GlobalOptions) {
    this.out = new Output(Boolean(options.json));
    this.dataDir = options.dataDir ? resolve(options.dataDir) : defaultDataDir();
  }

  get files() {
    return dataDirFiles(this.dataDir);
  }

  /** The running daemon's record, or undefined when none is recorded. */
  runtime(): RuntimeInfo | undefined {
    if (!existsSync(this.files.runtime)) return undefined;
    try {
      return JSON.parse(readFileSync(this.files.runtime, 'utf8')) as RuntimeInfo;
    } catch {
      return undefined;
    }
  }

  requireRuntime(): RuntimeInfo {
    const runtime = this.runtime();
    if (!runtime) {
      throw new CliError(
        `No svc daemon is running for data dir ${this.dataDir}. Start one with: svc daemon start${this.options.dataDir ? ` --data-dir ${this.dataDir}` : ''}`,
        1,
        'daemon_not_running',
      );
    }
    return runtime;
  }

  /**
   * http://host:port for REST calls with a key the user gave: --host/--port (SVC_HOST/SVC_PORT)
   * override the recorded address. The data dir's credentials never go there unchecked: see
   * ownDaemonUrl.
   */
  appUrl(): string {
    const { host, port } = requestedAddress(this.options);
    if (port) return formatUrl(host?.value ?? DEFAULT_HOST, port.value);
    const runtime = this.requireRuntime();
    return host ? formatUrl(host.value, runtime.port) : runtime.url;
  }

  /**
   * Where the data dir's own daemon answers, which alone is sent its control token: the recorded
   * address, which --host/--port may name but not change (daemon-address.ts).
   */
  ownDaemonUrl(): { runtime: RuntimeInfo; url: string } {
    const requested = requestedAddress(this.options);
    const runtime = this.runtime();
    if (!runtime) {
      const named = [requested.host, requested.port].filter((part) => part !== undefined);
      if (named.length === 0) this.requireRuntime();
      throw new CliError(
        `No svc daemon is running for data dir ${this.dataDir} (${this.files.runtime} records none). ${named.map((part) => `${part.source} ${part.value}`).join(' and ')} names an address, but svc sends a data dir's control token only to the daemon that data dir records: give that daemon's data dir (svc --data-dir DIR ...), or start one here with: svc daemon start`,
        1,
        'daemon_not_running',
      );
    }
    const url = ownDaemonUrl(runtime, requested, this.dataDir, this.files.runtime);
    return { runtime, url };
  }

  controlToken(): string {
    try {
      return readFileSync(this.files.controlToken, 'utf8').trim();
    } catch {
      throw new CliError(
        `Cannot read the control token in ${this.dataDir}. Is the daemon running for this data dir? Start it with: svc daemon start`,
        1,
        'daemon_not_running',
      );
    }
  }

  /** The control channel of the data dir's daemon, once it has proved its identity. */
  async control(): Promise<ControlClient> {
    if (!this.controlClient) {
      const { runtime, url } = this.ownDaemonUrl();
      this.controlClient = await this.controlAt(runtime, url);
    }
    return this.controlClient;
  }

  /**
   * svc daemon start --fixtures: the daemon just started, at the address it recorded (the
   * --port it was given may be 0).
   */
  async controlOfRecord(): Promise<ControlClient> {
    const runtime = this.requireRuntime();
    return this.controlAt(runtime, runtime.url);
  }

  private async controlAt(runtime: RuntimeInfo, url: string): Promise<ControlClient> {
    // The proof is asked while the tRPC client loads: a TAB's ids wait one round trip less.
    const [{ createControlClient }] = await Promise.all([
      import('./control-client.js'),
      import('./daemon-identity.js').then(({ proveOwnDaemon }) =>
        proveOwnDaemon(url, runtime, this.dataDir, this.files.runtime),
      ),
    ]);
    this.controlUrl = url;
    return createControlClient(url, this.controlToken());
  }

  /** The workspace this command acts in: as the REST client resolved it, else as flags say. */
  workspaceInUse(): WorkspaceInUse {
    if (this.resolvedWorkspace) return this.resolvedWorkspace;
    if (this.options.workspace) return { id: this.options.workspace, source: 'from --workspace' };
    if (process.env.SVC_WORKSPACE)
      return { id: process.env.SVC_WORKSPACE, source: 'from SVC_WORKSPACE' };
    return { id: undefined, source: 'the default workspace' };
  }

  /** The REST client: --api-key/SVC_API_KEY if given, else the operator credential from the control channel. */
  async api(): Promise<ApiClient> {
    if (!this.apiClient) {
      const { ApiClient } = await import('../shared/api-client.js');
      const explicit = this.options.apiKey ?? process.env.SVC_API_KEY;
      let apiKey = explicit;
      let tenantId = this.options.workspace ?? process.env.SVC_WORKSPACE;
      let source = this.workspaceInUse().source;
      let baseUrl: string;
      if (!apiKey) {
        const operator = await (await this.control()).auth.operatorCredential.query();
        // The operator credential, like the control token, goes to the data dir's daemon alone.
        baseUrl = `${this.controlUrl!}/v1`;
        apiKey = operator.key;
        if (!tenantId) source = "the operator's default workspace";
        tenantId ??= operator.default_workspace_id;
      } else {
        baseUrl = `${this.appUrl()}/v1`;
      }
      if (explicit && !tenantId) {
        source = "the API key's workspace";
        // A key belongs to one workspace: ask the daemon which.
        const me = await new ApiClient({ baseUrl, apiKey }).data<{ workspace_id: string }>(
          'GET',
          '/auth/me',
        );
        tenantId = me.workspace_id;
      }
      this.apiClient = new ApiClient({ baseUrl, apiKey, tenantId });
      this.resolvedWorkspace = { id: tenantId, source };
    }
    return this.apiClient;
  }
}
