// Inputs of the control channel (tRPC), shared by the daemon and the CLI.
import { z } from 'zod';
import { DisplayName } from './common.js';
import { TIERS } from '../tiers.js';
import { MAX_TYPE_PATTERNS } from '../event-type-patterns.js';
import { EVENT_TYPES, EventTypePattern } from './events.js';
import { SCOPES } from '../scopes.js';
import { WORKFLOW_EXECUTION_STATUSES } from './workflows.js';

export const WorkspaceCreateInput = z.strictObject({
  name: DisplayName,
  tier: z.enum(TIERS),
});

export const KeyCreateInput = z.strictObject({
  name: DisplayName,
  scopes: z.array(z.enum(SCOPES)).min(1),
  workspace_id: z.string().optional(),
  /** Milliseconds until expiry; none means the key does not expire. */
  expires_in_ms: z.number().int().positive().optional(),
});

export const KeyListInput = z.strictObject({ workspace_id: z.string().optional() }).optional();

export const KeyIdInput = z.strictObject({ id: z.string().min(1) });

export const KeyRotateInput = z.strictObject({
  id: z.string().min(1),
  grace_ms: z.number().int().min(0).optional(),
});

export const ClockAdvanceInput = z.strictObject({ ms: z.number().int().min(0) });
export const ClockSetInput = z.strictObject({
  to: z.string().min(1),
  /** true: frozen at that time; false: ticking from it; not given: as the clock was. */
  frozen: z.boolean().optional(),
});

export const EventStreamInput = z
  .strictObject({
    workspace_id: z.string().optional(),
    types: z.array(EventTypePattern).max(MAX_TYPE_PATTERNS).optional(),
  })
  .optional();

export const EventTriggerInput = z.strictObject({
  type: z.enum(EVENT_TYPES),
  workspace_id: z.string().optional(),
  /** Replaces the sample payload when given. */
  data: z.record(z.string(), z.unknown()).optional(),
});

export const DeliveryStreamInput = z
  .strictObject({
    workspace_id: z.string().optional(),
    webhook_id: z.string().optional(),
  })
  .optional();

/** svc state export|import: a snapshot file, as an absolute path (the CLI resolves it). */
export const StateExportInput = z.strictObject({
  file: z.string().min(1).max(4096),
  /** Replace the file if it exists (a path inside the data dir is refused even so). */
  force: z.boolean().optional(),
});
export const StateImportInput = z.strictObject({
  file: z.string().min(1).max(4096),
  /** Drop the secrets this data dir's key cannot open instead of refusing the snapshot. */
  drop_secrets: z.boolean().optional(),
});

/**
 * The longest svc settle or svc workflows wait one call may wait: under the 5 minutes after
 * which Node's HTTP server and client give up on a request. A script waits longer by calling
 * again.
 */
export const MAX_WAIT_MS = 240_000;
export const DEFAULT_WAIT_MS = 30_000;

const WaitTimeout = z.number().int().min(1).max(MAX_WAIT_MS);

export const SettleInput = z.strictObject({ timeout_ms: WaitTimeout.optional() }).optional();

/** svc workflows trigger: the body to sign for a workflow's hook (at most the hook's 1 MiB). */
export const HookSignInput = z.strictObject({
  workspace_id: z.string().optional(),
  workflow_id: z.string().min(1).max(100),
  body: z.string().max(1024 * 1024),
});

export const RunWaitInput = z.strictObject({
  execution_id: z.string().min(1).max(100),
  /** Any of these statuses ends the wait (a run that ends in another one is refused at once). */
  status: z.array(z.enum(WORKFLOW_EXECUTION_STATUSES)).min(1).max(10),
  timeout_ms: WaitTimeout.optional(),
  /** Whose words the messages use for what moves a run on: svc commands, or the testing kit's calls. */
  words: z.enum(['cli', 'kit']).optional(),
});

/** svc workflows run|trigger|rerun --wait: is the run parked on the frozen sandbox clock? */
export const RunParkedInput = z.strictObject({
  execution_id: z.string().min(1).max(100),
  words: z.enum(['cli', 'kit']).optional(),
});

/**
 * svc dashboard / svc open: where the login link lands, an id (its page) or a dashboard path
 * (`/ui/...`); neither: the Overview.
 */
export const DashboardLoginInput = z
  .strictObject({
    id: z.string().trim().min(1).max(200).optional(),
    next: z.string().max(500).optional(),
  })
  .optional();
export type DashboardLoginInput = z.infer<typeof DashboardLoginInput>;

/** svc approvals list (and the testing kit's sb.approvals.list): a page, newest first. */
export const ApprovalListInput = z
  .strictObject({
    workspace_id: z.string().optional(),
    limit: z.number().int().min(1).max(100).optional(),
    starting_after: z.string().max(100).optional(),
  })
  .optional();

/** svc approvals approve|reject EXECUTION: the execution id alone finds its agent. */
export const ApprovalDecideInput = z.strictObject({
  execution_id: z.string().min(1).max(100),
  decision: z.enum(['approve', 'reject']),
  reason: z.string().max(1000).optional(),
});
