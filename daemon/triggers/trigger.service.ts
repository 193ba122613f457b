// The three automatic triggers. Each one only starts a run through the engine's one entry point
// (RunStarter), like a manual run: schedules from durable timers on the daemon clock, webhooks
// from POST /v1/hooks/{workspace_id}/{path}, events from the event log's fan-out, inside the
// event's own transaction so that each matching event starts exactly one run, even across a
// crash. The workflow service calls onWrite inside every write's transaction, so workflow_triggers
// always agrees with the workflows (and a bad trigger refuses the write). A signed hook request
// starts one run only: its signature is recorded in the run's transaction, and a copy is refused.
import type { IncomingHttpHeaders } from 'node:http';
import { signatureHeader, verifySignature } from '../../shared/signature.js';
import type { EventEnvelope } from '../../shared/schemas/events.js';
import type { TriggerType } from '../../shared/schemas/triggers.js';
import { REAL_TIME, toIso, type Clock } from '../time/clock.js';
import type { SecretBox } from '../platform/secret-box.js';
import { ApiError } from '../domain/errors.js';
import { ownedRow } from '../domain/workspace.js';
import type { Transactions } from '../domain/transactions.js';
import type { TimerService } from '../time/timer.service.js';
import { latestOccurrence, nextOccurrence } from './cron.js';
import type { TriggerRepository, TriggerRow } from './trigger.repository.js';
import { matchesPatterns, parseTrigger, type TriggerInput } from './trigger-rules.js';
import { replayRefusal, signedRequest, type SignedRequest } from './hook-signature.js';

export const SCHEDULE_TIMER = 'workflow.schedule';
/** Event-triggered runs that may follow one another (A's run event starts B, B's starts A...). */
export const MAX_EVENT_CHAIN = 5;
const EVENT_RUN_RETENTION_MS = 30 * 86_400_000;

/** Group commit: the work runs in the next shared transaction; resolves after its commit. */
export interface GroupCommit {
  run<T>(work: () => T): Promise<T>;
}

export interface RunRequest {
  input: Record<string, unknown>;
  trigger: { type: TriggerType; payload: unknown; headers?: Record<string, string> };
  /** Steps that need no waiting may run in the caller's transaction (never in an event's). */
  inline?: boolean;
}

/** The engine's entry point: starts a run, inside the caller's transaction when there is one. */
export interface RunStarter {
  start(workspaceId: string, workflowId: string, run: RunRequest): { execution_id: string };
}

/** What the trigger service needs to know of a workflow. */
export interface WorkflowState {
  id: string;
  status: string;
  trigger?: TriggerInput | null | undefined;
}

export interface WorkflowWrite {
  workspaceId: string;
  before: WorkflowState | null;
  after: WorkflowState | null;
}

interface ScheduleTimer {
  workflow_id: string;
  fire_at: number;
}

/** Request headers a run may see: everything but credentials. */
const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'x-api-key',
  'x-svc-signature',
]);

/** What TriggerService is built from (app/services.ts passes them by name). */
export interface TriggerServiceDeps {
  db: Transactions;
  repo: TriggerRepository;
  /** Starts the runs triggers fire (the engine). */
  runs: RunStarter;
  timers: TimerService;
  clock: Clock;
  commits: GroupCommit;
  /** hook_secret is stored sealed; only the hook intake opens it. */
  box: SecretBox;
  /**
   * What a signature's t is compared with: real time, as senders stamp it (decisions: t is the
   * real time of sending), so `svc clock advance` neither refuses hooks nor forgets signatures.
   * Default: real time.
   */
  signatureClock?: Clock;
}

export class TriggerService {
  /** Depth of the event-triggered run being started, for events it publishes synchronously. */
  private ambientDepth = 0;
  /**
   * False only while no workflow has ever had an event trigger since start (and this daemon is
   * the store's one writer): then events skip the lookup. Set on any event-trigger write and never cleared (a rolled-back write leaves it set,
   * which only costs the lookup).
   */
  private eventTriggersMayExist: boolean;

  private readonly db: Transactions;
  private readonly repo: TriggerRepository;
  private readonly runs: RunStarter;
  private readonly timers: TimerService;
  private readonly clock: Clock;
  private readonly commits: GroupCommit;
  private readonly box: SecretBox;
  private readonly signatureClock: Clock;

  constructor(deps: TriggerServiceDeps) {
    this.db = deps.db;
    this.repo = deps.repo;
    this.runs = deps.runs;
    this.timers = deps.timers;
    this.clock = deps.clock;
    this.commits = deps.commits;
    this.box = deps.box;
    this.signatureClock = deps.signatureClock ?? REAL_TIME;
    const { timers, repo } = deps;
    timers.register(SCHEDULE_TIMER, (payload) => this.fireSchedule(payload as ScheduleTimer));
    // Team mode: another daemon may write an event trigger at any time.
    this.eventTriggersMayExist = !repo.keepsRows || repo.hasEventTriggers();
  }

  /**
   * Called by the workflow service inside the transaction of every create, update, status change
   * and delete. Throws ApiError (the write rolls back) for a bad config or a clashing hook path.
   */
  onWrite(change: WorkflowWrite): void {
    const { workspaceId, after } = change;
    if (!after) {
      if (change.before) this.drop(change.before.id);
      return;
    }
    const trigger = parseTrigger(after.trigger);
    const active = after.status === 'active';
    const previous = this.repo.get(after.id);
    const base: TriggerRow = {
      workflow_id: after.id,
      workspace_id: workspaceId,
      type: 'event',
      active: active ? 1 : 0,
      hook_path: null,
      hook_secret: null,
      event_patterns: null,
      cron: null,
      timezone: null,
      next_fire_at: null,
    };
    switch (trigger.type) {
      case 'manual':
        this.drop(after.id);
        return;
      case 'webhook': {
        const holder = this.repo.byHookPath(workspaceId, trigger.path);
        if (holder && holder.workflow_id !== after.id) {
          throw new ApiError(
            'conflict',
            `The hook path '${trigger.path}' is already used by workflow ${holder.workflow_id} in this workspace. Choose another trigger.config.path.`,
            { param: 'trigger.config.path' },
          );
        }
        this.dropScheduleTimer(previous);
        this.repo.upsert({
          ...base,
          type: 'webhook',
          hook_path: trigger.path,
          hook_secret: trigger.secret === null ? null : this.box.seal(trigger.secret),
        });
        return;
      }
      case 'event':
        this.eventTriggersMayExist = true;
        this.dropScheduleTimer(previous);
        this.repo.upsert({ ...base, event_patterns: JSON.stringify(trigger.patterns) });
        return;
      case 'schedule': {
        const unchanged =
          previous?.type === 'schedule' &&
          previous.active === 1 &&
          previous.cron === trigger.cron &&
          previous.timezone === trigger.timezone &&
          previous.next_fire_at !== null;
        let nextFireAt: number | null = null;
        if (active) {
          // Activating (or changing the schedule) starts from now: nothing earlier fires.
          nextFireAt = unchanged
            ? previous.next_fire_at
            : nextOccurrence(trigger, this.clock.now());
        }
        if (!unchanged) this.dropScheduleTimer(previous);
        this.repo.upsert({
          ...base,
          type: 'schedule',
          cron: trigger.cron,
          timezone: trigger.timezone,
          next_fire_at: nextFireAt,
        });
        if (nextFireAt !== null && !unchanged) this.scheduleTimer(after.id, nextFireAt);
        return;
      }
    }
  }

  /**
   * Before the timers start: a schedule whose occurrences passed while no daemon ran fires once,
   * for the latest of them, not once per missed occurrence. Team mode: when another daemon
   * serves the sandbox (`othersLive`), nothing is caught up: that daemon fires each occurrence
   * as it falls due (it may be about to, its clock just moved), and moving its schedule would
   * skip ticks or fire one twice. The due schedules are read locked, so two daemons starting at
   * once catch each up once.
   */
  catchUp(othersLive: () => boolean = () => false): void {
    const now = this.clock.now();
    this.db.transaction(() => {
      const due = this.repo.dueSchedules(now);
      if (due.length === 0 || othersLive()) return;
      for (const row of due) {
        const schedule = { cron: row.cron!, timezone: row.timezone! };
        const latest = latestOccurrence(schedule, now);
        if (latest === undefined || latest <= row.next_fire_at!) continue;
        this.dropScheduleTimer(row);
        this.repo.setNextFire(row.workflow_id, latest);
        this.scheduleTimer(row.workflow_id, latest);
      }
    })();
  }

  /**
   * svc workflows trigger: the X-Svc-Signature of `rawBody` for the workflow's hook, signed now
   * on real time (as the intake checks it) with the stored secret, which never leaves the daemon;
   * null when the hook takes unsigned requests. Only the control channel (the operator) asks.
   */
  signHook(
    workspaceId: string,
    workflowId: string,
    rawBody: string,
  ): { path: string; signature: string | null } {
    const row = this.repo.get(workflowId);
    // Another workspace's workflow is not found here, whatever its trigger.
    if (row && row.workspace_id !== workspaceId)
      ownedRow(undefined, workspaceId, workflowId, 'workflow');
    if (!row || row.type !== 'webhook' || !row.hook_path) {
      throw new ApiError(
        'invalid_parameter',
        `Workflow ${workflowId} of workspace ${workspaceId} has no webhook trigger. Give it trigger {type: webhook, config: {path: NAME}} with: svc workflows update ${workflowId} -f FILE`,
        { param: 'workflow_id' },
      );
    }
    if (row.hook_secret === null) return { path: row.hook_path, signature: null };
    const seconds = Math.floor(this.signatureClock.now() / 1000);
    return {
      path: row.hook_path,
      signature: signatureHeader(this.box.open(row.hook_secret), rawBody, seconds),
    };
  }

  /** POST /v1/hooks/{workspace_id}/{path}: checks the request, then starts the run. */
  receiveHook(hook: {
    workspaceId: string;
    path: string;
    body: unknown;
    rawBody: string;
    headers: IncomingHttpHeaders;
  }): { workflowId: string; start: () => Promise<{ execution_id: string }> } {
    const row = this.repo.byHookPath(hook.workspaceId, hook.path);
    if (!row) {
      throw new ApiError(
        'not_found',
        `No workflow of workspace ${hook.workspaceId} is triggered by the hook path '${hook.path}'. Set trigger {type: "webhook", config: {path: "${hook.path}"}} on a workflow; svc workflows trigger-url ID prints its URL.`,
      );
    }
    let signed: SignedRequest | undefined;
    if (row.hook_secret !== null) {
      const header = hook.headers['x-svc-signature'];
      const secret = this.box.open(row.hook_secret);
      const verdict = verifySignature(
        hook.rawBody,
        Array.isArray(header) ? header[0] : header,
        secret,
        {
          now: Math.floor(this.signatureClock.now() / 1000),
        },
      );
      if (!verdict.valid) {
        throw new ApiError(
          'unauthorized',
          `This hook needs a valid X-Svc-Signature (${verdict.reason.replace(/_/g, ' ')}): t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed by the trigger's secret>, within 300 s.`,
          { param: 'X-Svc-Signature', extras: { reason: verdict.reason } },
        );
      }
      signed = signedRequest(secret, verdict.timestamp, hook.rawBody);
      // Early, so that a copy costs neither a rate-limit slot nor a transaction.
      this.refuseReplay(hook.workspaceId, signed);
    }
    if (row.active !== 1) {
      throw new ApiError(
        'workflow_not_active',
        `Workflow ${row.workflow_id} is not active, so its webhook trigger does not fire. Activate it with: svc workflows activate ${row.workflow_id}`,
      );
    }
    const payload = hook.body === undefined ? {} : hook.body;
    return {
      workflowId: row.workflow_id,
      // Group-committed with other starts (as manual runs are); answered once it is stored.
      // A signed request is checked again and recorded in the run's own transaction: of two
      // copies sent at once, the one committed second finds the first and starts nothing.
      start: async () => {
        const { execution_id } = await this.commits.run(() => {
          if (signed) this.refuseReplay(hook.workspaceId, signed);
          const started = this.runs.start(hook.workspaceId, row.workflow_id, {
            input: asInput(payload),
            trigger: { type: 'webhook', payload, headers: visibleHeaders(hook.headers) },
            // The body as received is the payload's JSON: stored as is, not stringified again.
            ...(hook.body === undefined ? {} : { payloadText: hook.rawBody }),
            inline: true,
          });
          if (signed) {
            this.repo.recordSignature({
              workspace_id: hook.workspaceId,
              digest: signed.digest,
              workflow_id: row.workflow_id,
              execution_id: started.execution_id,
              accepted_at: this.clock.now(),
              expires_at: signed.expiresAt,
            });
          }
          return started;
        });
        return { execution_id };
      },
    };
  }

  /** eventStored (domain/hooks.ts), in the publishing transaction: may start event-triggered workflows. */
  readonly fanout = (event: EventEnvelope): void => {
    this.startEventTriggered(event);
  };

  private startEventTriggered(event: EventEnvelope): void {
    if (!this.eventTriggersMayExist) return;
    const triggers = this.repo.activeEventTriggers(event.workspace_id);
    if (triggers.length === 0) return;
    const source = sourceExecution(event);
    const depth = Math.max(source ? (this.repo.eventRunDepth(source) ?? 0) : 0, this.ambientDepth);
    if (depth >= MAX_EVENT_CHAIN) return;
    for (const trigger of triggers) {
      const patterns = JSON.parse(trigger.event_patterns!) as string[];
      if (!matchesPatterns(patterns, event.type)) continue;
      // A workflow never hears the events of its own runs (or of its own changes): no self-loop.
      if (concernsWorkflow(event, trigger.workflow_id)) continue;
      const outer = this.ambientDepth;
      this.ambientDepth = depth + 1;
      try {
        const { execution_id } = this.runs.start(event.workspace_id, trigger.workflow_id, {
          input: asInput(event),
          trigger: { type: 'event', payload: event },
        });
        this.repo.recordEventRun(execution_id, depth + 1, this.clock.now());
      } finally {
        this.ambientDepth = outer;
      }
    }
  }

  purgeExpired(): number {
    return this.repo.purgeEventRunsBefore(this.clock.now() - EVENT_RUN_RETENTION_MS);
  }

  /**
   * Housekeeping: forgets accepted hook signatures that no longer verify (their t is past the
   * tolerance in real time), so the table holds only the last ten minutes or so of signed hooks.
   */
  purgeAcceptedSignatures(): number {
    return this.repo.purgeSignaturesExpiredAt(this.signatureClock.now());
  }

  /**
   * 409 webhook_replayed when this signed request already started a run. A row past its expiry
   * that housekeeping has not yet purged still refuses: it is the same request all the same.
   */
  private refuseReplay(workspaceId: string, signed: SignedRequest): void {
    const accepted = this.repo.acceptedSignature(workspaceId, signed.digest);
    if (accepted) throw replayRefusal(accepted);
  }

  /** Timer handler: one occurrence of a schedule. Stale timers (paused, changed) do nothing. */
  private fireSchedule(timer: ScheduleTimer): void {
    this.db.transaction(() => {
      const row = this.repo.get(timer.workflow_id);
      if (!row || row.type !== 'schedule' || row.active !== 1 || row.next_fire_at !== timer.fire_at)
        return;
      const schedule = { cron: row.cron!, timezone: row.timezone! };
      const payload = {
        scheduled_at: toIso(timer.fire_at),
        cron: schedule.cron,
        timezone: schedule.timezone,
      };
      this.runs.start(row.workspace_id, row.workflow_id, {
        input: payload,
        trigger: { type: 'schedule', payload },
        inline: true,
      });
      const next = nextOccurrence(schedule, timer.fire_at);
      this.repo.setNextFire(row.workflow_id, next);
      this.scheduleTimer(row.workflow_id, next);
    })();
  }

  private scheduleTimer(workflowId: string, fireAt: number): void {
    this.timers.schedule(
      SCHEDULE_TIMER,
      fireAt,
      { workflow_id: workflowId, fire_at: fireAt } satisfies ScheduleTimer,
      scheduleOwner(workflowId),
    );
  }

  private dropScheduleTimer(row: TriggerRow | undefined): void {
    if (row?.type === 'schedule') this.timers.cancelOwned(scheduleOwner(row.workflow_id));
  }

  private drop(workflowId: string): void {
    this.dropScheduleTimer(this.repo.get(workflowId));
    this.repo.delete(workflowId);
  }
}

/** Owner of a workflow's schedule timer (apart from the engine's own timers of its runs). */
function scheduleOwner(workflowId: string): string {
  return `schedule:${workflowId}`;
}

function asInput(payload: unknown): Record<string, unknown> {
  return payload !== null && typeof payload === 'object' && !Array.isArray(payload)
    ? (payload as Record<string, unknown>)
    : { payload };
}

function visibleHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const visible: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || CREDENTIAL_HEADERS.has(name)) continue;
    visible[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return visible;
}

/** The workflow run an event comes from, if any (workflow.execution.* events). */
function sourceExecution(event: EventEnvelope): string | undefined {
  const id = (event.data as { execution_id?: unknown }).execution_id;
  return typeof id === 'string' && id.startsWith('wex_') ? id : undefined;
}

function concernsWorkflow(event: EventEnvelope, workflowId: string): boolean {
  const data = event.data as { workflow_id?: unknown; id?: unknown };
  return (
    data.workflow_id === workflowId ||
    (event.type.startsWith('workflow.') && data.id === workflowId)
  );
}
