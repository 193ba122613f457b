// What the control channel (tRPC) answers: one schema per answer, set as each procedure's
// `.output()`. The daemon's answer is checked against it, and the CLI's types are inferred from it
// (through the router's type), so the two sides share one contract.
import { z } from 'zod';
import { TIERS } from '../tiers.js';
import { SCOPES } from '../scopes.js';
import { ERROR_CODES, type ErrorCode } from '../errors.js';
import { Timestamp } from './common.js';
import { Event } from './events.js';
import { DeliveryActivity } from './webhooks.js';
import { SecretInfo } from './workflows.js';
import { FixtureApplyResult } from './fixtures.js';
import { FaultView } from './faults.js';
import { WebhookReplayResult } from './replay.js';
import { AgentExecution, ExecutionResult } from './agents.js';

const Environment = z.enum(['sandbox', 'production']);
const Scopes = z.array(z.enum(SCOPES));
const NullableTimestamp = Timestamp.nullable();
const ErrorCodeName = z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]);

/**
 * A daemon of the sandbox (team mode: several on one PostgreSQL sandbox; on SQLite the one).
 * Times are real time (the leases' clock, judged by the store), not the sandbox clock.
 */
export const DaemonMemberView = z.object({
  /** Its name in the sandbox (a digest of its daemon id, which never leaves its data dir). */
  id: z.string(),
  /** This daemon, the one that answered. */
  self: z.boolean(),
  /** live: heartbeat within the lease; silent: older, not yet taken over; stopped; lost. */
  state: z.enum(['live', 'silent', 'stopped', 'lost']),
  address: z.string(),
  host: z.string(),
  pid: z.number().int(),
  version: z.string(),
  schema_version: z.number().int(),
  started_at: Timestamp,
  heartbeat_at: Timestamp,
  stopped_at: NullableTimestamp,
  lost_at: NullableTimestamp,
  /** The daemon that took its work over (a stopped or lost one). */
  taken_over_by: z.string().nullable(),
  /** Timers it has claimed: running there, or about to. */
  claimed_timers: z.number().int(),
  /** Runs with a step running there. */
  driven_runs: z.number().int(),
});
export type DaemonMemberView = z.infer<typeof DaemonMemberView>;

export const DaemonStatus = z.object({
  pid: z.number().int(),
  version: z.string(),
  environment: Environment,
  url: z.string(),
  data_dir: z.string(),
  /** Where the sandbox lives: the data dir's SQLite file, or a schema of a PostgreSQL. */
  store: z.object({
    kind: z.enum(['sqlite', 'postgres']),
    /** PostgreSQL's URL without its password; the SQLite file's path. */
    location: z.string(),
    /** The sandbox (PostgreSQL schema); null on SQLite, where the data dir is the sandbox. */
    sandbox: z.string().nullable(),
  }),
  started_at: Timestamp,
  uptime_ms: z.number(),
  clock: z.object({ now: Timestamp, offset_ms: z.number() }),
  pending_timers: z.number().int(),
  /** The daemons of the sandbox, oldest first, with those gone in the last day. */
  daemons: z.array(DaemonMemberView),
  /** Timers that failed their last allowed attempt; the daemon log says why. */
  dead_timers: z.number().int(),
  default_workspace_id: z.string(),
  operator_user_id: z.string(),
  /** The process's memory in bytes: resident (every thread), and the main thread's V8 heap. */
  memory: z.object({
    rss: z.number(),
    heap_used: z.number(),
    heap_total: z.number(),
    external: z.number(),
  }),
});
export type DaemonStatus = z.infer<typeof DaemonStatus>;

/**
 * svc workflows trigger: the hook's path and the X-Svc-Signature for the body, signed now with
 * the trigger's stored secret (valid 300 s, for one request); null when the hook is unsigned.
 */
export const HookSignature = z.object({ path: z.string(), signature: z.string().nullable() });

export const ShutdownAnswer = z.object({ stopping: z.literal(true) });

/** The daemon's own credential, which the CLI uses for REST calls. */
export const OperatorCredential = z.object({
  key: z.string(),
  default_workspace_id: z.string(),
  base_url: z.string(),
});

export const WorkspaceView = z.object({
  id: z.string(),
  name: z.string(),
  tier: z.enum(TIERS),
  default: z.boolean(),
  created_at: Timestamp,
});
export type WorkspaceView = z.infer<typeof WorkspaceView>;

export const KeyView = z.object({
  id: z.string(),
  name: z.string(),
  scopes: Scopes,
  workspace_id: z.string().nullable(),
  environment: Environment,
  /** The last characters of the key, as `...abcd`. */
  hint: z.string(),
  status: z.enum(['active', 'revoked', 'expired']),
  created_at: Timestamp,
  expires_at: NullableTimestamp,
  revoked_at: NullableTimestamp,
  rotated_to: z.string().nullable(),
  /**
   * The last request authenticated with the key (daemon clock), null if never. Kept in memory
   * and stored at most once a minute per key and when the daemon stops.
   */
  last_used_at: NullableTimestamp,
});
export type KeyView = z.infer<typeof KeyView>;

/** A new key: the secret is in this answer only. */
export const KeyCreated = KeyView.extend({ key: z.string() });
export const KeyRotated = KeyCreated.extend({ previous: KeyView });

export const ClockState = z.object({
  now: Timestamp,
  offset_ms: z.number(),
  real_now: Timestamp,
  /** Frozen: only advance and set move it (svc clock freeze|resume). */
  frozen: z.boolean(),
});
export type ClockState = z.infer<typeof ClockState>;

/** svc status: the daemon, its clock and brain, and what the sandbox has under way. */
export const SandboxStatus = DaemonStatus.pick({
  pid: true,
  version: true,
  environment: true,
  url: true,
  data_dir: true,
  store: true,
  started_at: true,
  uptime_ms: true,
  default_workspace_id: true,
  daemons: true,
}).extend({
  clock: ClockState,
  brain: z.object({
    /** The daemon's default brain (SVC_AGENT_BRAIN); an agent's own `brain` overrides it. */
    mode: z.enum(['simulated', 'openai', 'replay']),
    /** The cassette folder (SVC_CASSETTE_DIR, else <data dir>/cassettes). */
    cassette_dir: z.string(),
    /**
     * Where cassettes are kept: `folder`, files of cassette_dir (a daemon alone on SQLite);
     * `store`, rows of the sandbox's store that every daemon of it shares (team mode), into
     * which a file of cassette_dir is taken the first time it is used.
     */
    cassettes_in: z.enum(['folder', 'store']),
    /** The cassette the openai brain records to now (svc agents record), null when not. */
    recording: z.string().nullable(),
    /** The replay brain's daemon-wide cassette (SVC_AGENT_BRAIN_CASSETTE), null when none. */
    replay_cassette: z.string().nullable(),
  }),
  /** Unfinished workflow runs of every workspace, by what they wait for. */
  runs: z.object({
    /** A step runs, or one is due: the run moves on by itself. */
    running: z.number().int(),
    /** Every step left waits for a later sandbox time (a wait, a retry, an injected latency). */
    waiting: z.number().int(),
    /** A step waits for a person's decision on an agent execution. */
    awaiting_approval: z.number().int(),
    /** The earliest sandbox time a waiting run wakes at, null when none waits on the clock. */
    next_wake_at: NullableTimestamp,
  }),
  /** Pending webhook deliveries of every workspace. */
  deliveries: z.object({
    /** Of an active webhook: attempted now or at their next retry. */
    pending: z.number().int(),
    /** Of a paused or failed webhook: sent once it is active again. */
    held: z.number().int(),
  }),
  /** Agent executions of every workspace awaiting approval (svc agents approve|reject). */
  approvals: z.object({ pending: z.number().int() }),
});
export type SandboxStatus = z.infer<typeof SandboxStatus>;

export const SecretDeleted = z.object({
  name: z.string(),
  workspace_id: z.string(),
  deleted: z.literal(true),
});

export const StubView = z.object({
  id: z.string(),
  agent_id: z.string(),
  match: z.string(),
  result: z.object({ action: z.string(), output: z.string(), confidence: z.number() }).nullable(),
  fail: ErrorCodeName.nullable(),
  delay_ms: z.number().int().nullable(),
  created_at: Timestamp,
});
export type StubView = z.infer<typeof StubView>;

/** A cassette file loaded (svc agents cassette load): its name, its interactions, where it is kept. */
export const CassetteLoaded = z.object({
  cassette: z.string(),
  interactions: z.number().int(),
  cassettes_in: z.enum(['folder', 'store']),
});

/** Where the openai brain records its requests and answers (a cassette name), null when not. */
export const RecordingState = z.object({ recording: z.string().nullable() });

export const Cleared = z.object({ cleared: z.number().int() });

/** svc settle: nothing was left to do at the sandbox time after waited_ms of real time. */
export const Settled = z.object({ settled: z.literal(true), waited_ms: z.number().int() });
export type Settled = z.infer<typeof Settled>;

export const OAuthAppView = z.object({
  client_id: z.string(),
  name: z.string(),
  workspace_id: z.string(),
  redirect_uris: z.array(z.string()),
  scopes: Scopes,
  public: z.boolean(),
  token_endpoint_auth_method: z.enum(['client_secret_basic', 'none']),
  client_secret_hint: z.string().nullable(),
  created_at: Timestamp,
});

/** A new OAuth app: the client secret is in this answer only (null for a public client). */
export const OAuthAppCreated = OAuthAppView.extend({ client_secret: z.string().nullable() });

export const OAuthGrantView = z.object({
  id: z.string(),
  client_id: z.string(),
  app_name: z.string().nullable(),
  user_id: z.string(),
  workspace_id: z.string(),
  scopes: Scopes,
  status: z.enum(['active', 'revoked']),
  active_tokens: z.number().int(),
  created_at: Timestamp,
  last_used_at: NullableTimestamp,
  revoked_at: NullableTimestamp,
  revoked_reason: z.string().nullable(),
});

export const SnapshotInfo = z.object({
  format: z.string(),
  format_version: z.number().int(),
  svc_version: z.string(),
  schema_version: z.number().int(),
  environment: z.string(),
  created_at: Timestamp,
});
export type SnapshotInfo = z.infer<typeof SnapshotInfo>;

export const SnapshotWritten = SnapshotInfo.extend({ file: z.string(), bytes: z.number().int() });
export type SnapshotWritten = z.infer<typeof SnapshotWritten>;

/** A snapshot's API key (not revoked) that works on this daemon after the import. */
export const ImportedKey = z.object({
  id: z.string(),
  name: z.string(),
  scopes: z.array(z.string()),
  workspace_id: z.string().nullable(),
});
export type ImportedKey = z.infer<typeof ImportedKey>;

/** What svc state import answers. */
export const ImportAnswer = z.object({
  imported: z.string(),
  snapshot: SnapshotInfo,
  /** The store schema after the import (migrations ran when the snapshot's was older). */
  schema_version: z.number().int(),
  migrated: z.boolean(),
  dropped_secrets: z.array(z.string()),
  /** Webhooks and hook triggers whose secret could not be opened got these (shown once). */
  new_secrets: z.array(z.object({ what: z.string(), id: z.string(), secret: z.string() })),
  /** The snapshot's API keys (not revoked) that now work here: a snapshot brings credentials. */
  keys: z.array(ImportedKey),
  /** Operator credentials the snapshot held, left out: the daemon's own stays the only one. */
  dropped_operator_keys: z.number().int(),
});
export type ImportAnswer = z.infer<typeof ImportAnswer>;

export const ResetAnswer = z.object({ reset: z.literal(true), data_dir: z.string() });

/** A JSON Schema document (svc fixtures schema). */
export const JsonSchemaDocument = z.record(z.string(), z.unknown());

/** The dashboard's login links (svc dashboard): single use, valid 5 minutes. */
export const DashboardLoginLink = z.object({
  url: z.string(),
  login_url: z.string(),
  expires_at: Timestamp,
});
export type DashboardLoginLink = z.infer<typeof DashboardLoginLink>;

/**
 * Each item a subscription yields, checked against `item` as it is sent (tRPC's `.output()` on a
 * subscription sees the async iterable, not the items).
 */
export function asyncIterableOf<T extends z.ZodType>(item: T) {
  return z
    .custom<AsyncIterable<z.input<T>>>(
      (value) => typeof value === 'object' && value !== null && Symbol.asyncIterator in value,
    )
    .transform(async function* (items): AsyncGenerator<z.output<T>, void, unknown> {
      for await (const value of items) yield item.parse(value);
    });
}

export {
  Event as EventOutput,
  DeliveryActivity,
  SecretInfo,
  WebhookReplayResult,
  FixtureApplyResult,
  FaultView,
};

/** An agent execution waiting for a person's decision (svc approvals, sb.approvals.list). */
export const ApprovalView = z.object({
  execution_id: z.string(),
  agent_id: z.string(),
  /** Null once the agent is deleted. */
  agent_name: z.string().nullable(),
  workspace_id: z.string(),
  /** The workflow run waiting on it, when a workflow's agent step asked (else null). */
  workflow_execution_id: z.string().nullable(),
  step_id: z.string().nullable(),
  /** What the agent proposes to do: its action, the text of it and its confidence. */
  proposed: ExecutionResult.nullable(),
  input: z.string(),
  /** When it started waiting, on the sandbox clock (as every stored time). */
  created_at: Timestamp,
  /** How long it has waited, on the sandbox clock (0 while a frozen clock stands still). */
  waiting_ms: z.number().int(),
});
export type ApprovalView = z.infer<typeof ApprovalView>;

/** A page of approvals in the envelope of every --json list. */
export const ApprovalPage = z.object({
  data: z.array(ApprovalView),
  has_more: z.boolean(),
  total_count: z.number().int(),
  meta: z.object({ has_more: z.boolean(), next_cursor: z.string().nullable() }),
});

/** A decided approval: the agent execution as the REST approve answers it. */
export const ApprovalDecided = AgentExecution;

/** Whether a run is parked on the frozen sandbox clock; the message says when it wakes and what moves it on. */
export const RunParked = z.object({ parked: z.boolean(), message: z.string().nullable() });
