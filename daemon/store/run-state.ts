// A run's stored state (workflow_executions.frontier): what is pending and how branches join,
// as JSON. This module is the only reader and the only writer of that JSON. It carries a version
// (`v`) and a schema per version; reading validates the text against the schema of its version
// and upgrades it one version at a time to the current one, and writing always writes the
// current version. A version newer than this svc knows is refused with a clear error: a store or
// snapshot written by a newer svc is never read as garbage. The engine works on the current
// version only (engine/views.ts re-exports its types). The rule for changing the shape is in
// daemon/engine/ARCHITECTURE.md (A run's stored state).
import { z } from 'zod';
import { ApiError } from '../domain/errors.js';

// Version 1: every state written before states had a version (up to 2026-11-29, commit
// f621bc8). Its shape grew three optional fields without a version or a migration:
// sent_seq (bf412e5, a webhook step's call recorded before it is sent), interpolated (658c3d7,
// the run's interpolation count, absent meaning none) and real_started_at (5162f45, real time,
// unknown for what was stored before). Unknown keys are dropped, not refused: nothing ever read
// them, and a release's own states must always open.
const ActivationV1 = z.object({
  key: z.string(),
  step_id: z.string(),
  attempt: z.number().int().min(1),
  branch: z.string().nullable(),
  state: z.enum(['ready', 'waiting', 'awaiting_approval', 'retrying']),
  started_at: z.number(),
  real_started_at: z.number().optional(),
  wake_at: z.number().optional(),
  agent_execution_id: z.string().optional(),
  sent_seq: z.number().int().min(0).optional(),
});

const JoinV1 = z.object({
  key: z.string(),
  step_id: z.string(),
  branch: z.string().nullable(),
  pending: z.number().int().min(0),
  wait_for_all: z.boolean(),
  started_at: z.number(),
  real_started_at: z.number().optional(),
});

const RunStateV1 = z.object({
  n: z.number().int().min(0),
  seq: z.number().int().min(0),
  acts: z.array(ActivationV1),
  joins: z.array(JoinV1),
  last_seq: z.number().int().min(0).nullable(),
  armed: z.boolean(),
  interpolated: z.number().int().min(0).optional(),
  headers: z.record(z.string(), z.string()).optional(),
});

// Version 2: versioned (`v`, written first), exactly these keys, and the run's interpolation
// count always present (0 for none), the one default that readers of version 1 applied.
// sent_seq, wake_at, agent_execution_id stay optional (their absence means something);
// real_started_at too (a version-1 run's real start is unknown, and stays so).

/** One pending step of a run. */
const Activation = z.strictObject({
  /** Unique within the run: step id + a counter. */
  key: z.string(),
  step_id: z.string(),
  attempt: z.number().int().min(1),
  /** The parallel join this chain belongs to (its key), or null at the top level. */
  branch: z.string().nullable(),
  /** ready: runs as soon as this process gets to it (again after a restart). */
  state: z.enum(['ready', 'waiting', 'awaiting_approval', 'retrying']),
  started_at: z.number(),
  /** Real time (epoch ms) the attempt started: its elapsed_ms, which a frozen clock cannot give. */
  real_started_at: z.number().optional(),
  wake_at: z.number().optional(),
  agent_execution_id: z.string().optional(),
  /**
   * A step that calls out (a webhook step): the seq of this attempt's step row, stored with
   * status unknown before its call left. Still set after a restart, it says the daemon stopped
   * while the call was in flight (RunDriver counts that attempt as lost).
   */
  sent_seq: z.number().int().min(0).optional(),
});

/** A parallel step whose chains are running. */
const Join = z.strictObject({
  key: z.string(),
  step_id: z.string(),
  branch: z.string().nullable(),
  /** Chains not yet ended. */
  pending: z.number().int().min(0),
  wait_for_all: z.boolean(),
  started_at: z.number(),
  real_started_at: z.number().optional(),
});

const RunStateBody = z.strictObject({
  /** Counter for activation keys. */
  n: z.number().int().min(0),
  /** Next step-row sequence number. */
  seq: z.number().int().min(0),
  acts: z.array(Activation),
  joins: z.array(Join),
  /** Sequence of the last completed step (its result is the run's result). */
  last_seq: z.number().int().min(0).nullable(),
  /** Whether the run's timeout timer is stored. */
  armed: z.boolean(),
  /**
   * Characters the run's recorded step attempts produced by interpolation (their
   * StepOutcome.interpolated): counted against MAX_RUN_INTERPOLATED_CHARS.
   */
  interpolated: z.number().int().min(0),
  /** The trigger's headers (a webhook trigger's), for `trigger.headers` in the run's scope. */
  headers: z.record(z.string(), z.string()).optional(),
});

const RunStateV2 = RunStateBody.extend({ v: z.literal(2) });

export type Activation = z.infer<typeof Activation>;
export type Join = z.infer<typeof Join>;
/** A run's state as the engine works on it: the current version, without its `v`. */
export type RunState = z.infer<typeof RunStateBody>;

/** The version this svc writes. */
export const RUN_STATE_VERSION = 2;

/**
 * How every state this svc writes begins (`{"v":2,`): writeRunState puts `v` first. A stored
 * state that does not begin so is of another version (or damaged), found without parsing it.
 */
export const RUN_STATE_PREFIX = `${JSON.stringify({ v: RUN_STATE_VERSION }).slice(0, -1)},`;

/**
 * Each version's schema, and the step that brings a state of that version to the next. A new
 * version adds its schema here and the upgrade from the one before it (ARCHITECTURE.md).
 */
const VERSIONS: Readonly<
  Record<number, { schema: z.ZodType; upgrade?: (state: never) => { v: number } }>
> = {
  1: {
    schema: RunStateV1,
    upgrade: (state: z.infer<typeof RunStateV1>) => ({
      v: 2,
      ...state,
      interpolated: state.interpolated ?? 0,
    }),
  },
  2: { schema: RunStateV2 },
};

/** Which version a stored state is: its `v`, or 1 for one written before states had one. */
function versionOf(stored: unknown): unknown {
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return undefined;
  return 'v' in stored ? stored.v : 1;
}

/**
 * A stored state (frontier JSON) as the current version: validated against its own version's
 * schema, then upgraded step by step. `runId` names the run in the errors.
 */
export function readRunState(frontier: string, runId?: string): RunState {
  const run = runId === undefined ? 'A run' : `Run ${runId}`;
  let stored: unknown;
  try {
    stored = JSON.parse(frontier);
  } catch {
    throw damaged(run, 'it is not JSON');
  }
  let version = versionOf(stored);
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw damaged(run, `its version (v) is ${JSON.stringify(version)}, not a version number`);
  }
  if (version > RUN_STATE_VERSION) {
    throw new UnreadableRunState(
      'newer',
      `its version is ${version}, this svc reads up to ${RUN_STATE_VERSION}`,
      `${run}'s stored state is version ${version}: a newer svc wrote it, and this svc reads run states up to version ${RUN_STATE_VERSION}. Open this sandbox with that newer svc (or a later one).`,
    );
  }
  let state: unknown = stored;
  for (;;) {
    const { schema, upgrade } = VERSIONS[version]!;
    const checked = schema.safeParse(state);
    if (!checked.success) {
      const issue = checked.error.issues[0]!;
      const at = issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
      throw damaged(run, `version ${version} does not allow it${at}: ${issue.message}`);
    }
    state = checked.data;
    if (!upgrade) break;
    state = upgrade(state as never);
    version += 1;
  }
  const { v: _version, ...current } = state as z.infer<typeof RunStateV2>;
  return current;
}

/** The stored text of a run's state: always the current version, checked before it is stored. */
export function writeRunState(state: RunState): string {
  const stored = { v: RUN_STATE_VERSION, ...state };
  const checked = RunStateV2.safeParse(stored);
  if (!checked.success) {
    // A bug in the engine, never the user's input: the transaction that would store it fails.
    const issue = checked.error.issues[0]!;
    throw new Error(
      `Refusing to store a run state that does not fit version ${RUN_STATE_VERSION} at ${issue.path.join('.')}: ${issue.message}`,
    );
  }
  return JSON.stringify(stored);
}

/** The stored text of `frontier` at the current version (snapshot imports: store/snapshot.ts). */
export function upgradeStoredRunState(frontier: string, runId: string): string {
  return writeRunState(readRunState(frontier, runId));
}

/** A stored state this svc cannot read: written by a newer svc, or not a state at all. */
export class UnreadableRunState extends ApiError {
  constructor(
    readonly reason: 'newer' | 'damaged',
    /** What is wrong with it, in a few words (for messages that phrase it their own way). */
    readonly why: string,
    message: string,
  ) {
    super(reason === 'newer' ? 'conflict' : 'internal_server_error', message);
  }
}

function damaged(run: string, why: string): UnreadableRunState {
  return new UnreadableRunState(
    'damaged',
    why,
    `${run}'s stored state cannot be read: ${why}. The store was changed outside svc, or damaged; restore it from a snapshot (svc state import).`,
  );
}
