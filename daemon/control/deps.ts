// What the control router needs from the daemon, as an interface so it is easy to see and fake.
import type { Clock } from '../time/clock.js';
import type { Hooks } from '../domain/hooks.js';
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
import type {
  DaemonStatus,
  DashboardLoginLink,
  SandboxStatus,
  ImportAnswer,
  SnapshotWritten,
} from '../../shared/schemas/control-output.js';
import type { DashboardLoginInput } from '../../shared/schemas/control.js';

export type { DaemonStatus, ImportAnswer };
import type { FaultService } from '../faults/fault.service.js';
import type { WorkflowEngine } from '../engine/engine.js';
import type { TimerService } from '../time/timer.service.js';
import type { ExecutionService } from '../agents/execution.service.js';
import type { TriggerService } from '../triggers/trigger.service.js';
import type { WorkflowExecutionsService } from '../workflows/executions.service.js';

export interface DaemonControl {
  environment: 'sandbox' | 'production';
  status(): DaemonStatus;
  requestShutdown(): void;
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
  /** Refuses an id without a page and a path that is not a dashboard page (invalid_parameter). */
  login(input?: DashboardLoginInput): DashboardLoginLink;
}

export interface ControlDeps {
  workspaces: WorkspaceService;
  keys: KeyService;
  clock: Clock;
  clockService: ClockService;
  /** Durable timers: svc settle waits for those due. */
  timers: Pick<TimerService, 'dueNow'>;
  /** Runs: svc settle waits for their steps, svc workflows wait for their status. */
  engine: Pick<WorkflowEngine, 'activity' | 'activityOf' | 'find'>;
  /** svc workflows wait follows the runChanged hook. */
  hooks: Pick<Hooks, 'add'>;
  events: EventService;
  deliveries: DeliveryService;
  agents: AgentService;
  /** Webhook triggers: svc workflows trigger signs a body with a hook's stored secret. */
  triggers: Pick<TriggerService, 'signHook'>;
  /** Agent executions: svc status counts those awaiting approval; `svc approvals` lists them, and decides. */
  executions: Pick<
    ExecutionService,
    'awaitingApprovalCount' | 'awaitingApproval' | 'owner' | 'decideApproval'
  >;
  /** Workflow runs: the run that waits on an approval (svc approvals). */
  runs: Pick<WorkflowExecutionsService, 'runAwaiting'>;
  stubs: StubService;
  secrets: SecretService;
  oauth: OAuthService;
  fixtures: FixtureService;
  state: { export(file: string, force: boolean): SnapshotWritten; swap: StoreSwap | undefined };
  daemon: DaemonControl;
  dashboard: DashboardLogin;
  /** Sandbox fault rules (svc faults). */
  faults: FaultService;
  /** The daemon's default brain and its cassettes, as svc status shows them. */
  brain(): SandboxStatus['brain'];
  /** The openai brain's cassette recording (svc agents record). */
  recorder: {
    recordTo(name: string | undefined): string | null;
    readonly recordingTo: string | null;
  };
  /** Recorded model answers: a cassette file loaded (svc agents cassette load). */
  cassettes: {
    replace(name: string, text: string): Promise<{ interactions: number }>;
    readonly place: 'folder' | 'store';
  };
}
