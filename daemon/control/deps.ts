// What the control router needs from the daemon, as an interface so it is easy to see and fake.
import type { Clock } from '../time/clock.js';
import type { ClockService } from '../time/clock.service.js';
import type { EventService } from '../events/event.service.js';
import type { KeyService } from '../keys/key.service.js';
import type { WorkspaceService } from '../workspaces/workspace.service.js';
import type { DeliveryService } from '../webhooks/deliveries/delivery.service.js';
import type { AgentService } from '../agents/agent.service.js';
import type { StubService } from '../agents/stub.service.js';
import type { SecretService } from '../secrets/secret.service.js';
import type { OAuthService } from '../oauth/oauth.service.js';
import type { FixtureService } from '../fixtures/fixture.service.js';
import type { ImportedKey, SnapshotInfo, SnapshotWritten } from '../store/snapshot.js';
import type { FaultService } from '../faults/fault.service.js';

export interface DaemonStatus {
  pid: number;
  version: string;
  environment: 'sandbox' | 'production';
  url: string;
  data_dir: string;
  started_at: string;
  uptime_ms: number;
  clock: { now: string; offset_ms: number };
  pending_timers: number;
  /** Timers that failed their last allowed attempt; the daemon log says why. */
  dead_timers: number;
  default_workspace_id: string;
  operator_user_id: string;
  /** The process's memory in bytes: resident (every thread), and the main thread's V8 heap. */
  memory: { rss: number; heap_used: number; heap_total: number; external: number };
}

export interface DaemonControl {
  environment: 'sandbox' | 'production';
  status(): DaemonStatus;
  requestShutdown(): void;
}

/** What svc state import answers. */
export interface ImportAnswer {
  imported: string;
  snapshot: SnapshotInfo;
  /** The store schema after the import (migrations ran when the snapshot's was older). */
  schema_version: number;
  migrated: boolean;
  dropped_secrets: string[];
  /** Webhooks and hook triggers whose secret could not be opened got these (shown once). */
  new_secrets: { what: string; id: string; secret: string }[];
  /** The snapshot's API keys (not revoked) that now work here: a snapshot brings credentials. */
  keys: ImportedKey[];
  /** Operator credentials the snapshot held, left out: the daemon's own stays the only one. */
  dropped_operator_keys: number;
}

/** svc state import|reset, which the daemon's host carries out (daemon/process/app-host.ts). */
export interface StoreSwap {
  importSnapshot(input: {
    file: string;
    drop_secrets?: boolean | undefined;
  }): Promise<ImportAnswer>;
  reset(): Promise<{ reset: true; data_dir: string }>;
}

/** The dashboard's login links (svc dashboard): single use, valid 5 minutes. */
export interface DashboardLogin {
  login(): { url: string; login_url: string; expires_at: string };
}

export interface ControlDeps {
  workspaces: WorkspaceService;
  keys: KeyService;
  clock: Clock;
  clockService: ClockService;
  events: EventService;
  deliveries: DeliveryService;
  agents: AgentService;
  stubs: StubService;
  secrets: SecretService;
  oauth: OAuthService;
  fixtures: FixtureService;
  state: { export(file: string, force: boolean): SnapshotWritten; swap: StoreSwap | undefined };
  daemon: DaemonControl;
  dashboard: DashboardLogin;
  /** Sandbox fault rules (svc faults). */
  faults: FaultService;
  /** The openai brain's cassette recording (svc agents record). */
  recorder: {
    recordTo(name: string | undefined): string | null;
    readonly recordingTo: string | null;
  };
}
