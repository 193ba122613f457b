// Workflows: create (draft unless a status is given), read, list, update and delete, each change
// with its workflow.* event in the same transaction. The step graph is validated on every write;
// steps and settings are stored as a new version so that runs keep the definition they started with.
import { newId } from '../../shared/ids.js';
import {
  WORKFLOW_DEFAULTS,
  type WorkflowCreateInput,
  type WorkflowStepView,
  type WorkflowUpdateInput,
  type WorkflowView,
} from '../../shared/schemas/workflows.js';
import { toIso, type Clock } from '../time/clock.js';
import type { EventService } from '../events/event.service.js';
import { mapPage, type ListQueryInput, type Page } from '../domain/pages.js';
import type { Transactions } from '../domain/transactions.js';
import { ownedRow } from '../domain/workspace.js';
import type { Hooks } from '../domain/hooks.js';
import type { SecretBox } from '../platform/secret-box.js';
import { checkOutboundUrl, type UrlPolicy } from '../outbound/url-policy.js';
import { budgetRefusal } from './expression-budget.js';
import { checkWaitsFitTimeout, validateSteps } from './graph.js';
import {
  openTrigger,
  publicTrigger,
  resolveTrigger,
  type StoredTrigger,
} from '../triggers/trigger-secret.js';
import type { Definition, WorkflowCatalog, WorkflowSettings } from '../engine/ports.js';
import type { VersionRow, WorkflowRepository, WorkflowRow } from './workflow.repository.js';

type SettingsInput = WorkflowCreateInput['settings'];

/** One stored version of a workflow's definition. */
export interface WorkflowVersionView {
  version: number;
  name: string;
  created_at: string;
  steps: WorkflowStepView[];
  settings: WorkflowSettings;
}

export type { WorkflowChange } from '../domain/hooks.js';

/** What WorkflowService is built from (app/services.ts passes them by name). */
export interface WorkflowServiceDeps {
  db: Transactions;
  repo: WorkflowRepository;
  events: EventService;
  clock: Clock;
  urlPolicy: UrlPolicy;
  /** Whether an agent step's agent exists in the workspace (the agents module answers). */
  agentExists: (workspaceId: string, agentId: string) => boolean;
  /** Webhook trigger secrets are stored sealed. */
  box: SecretBox;
  hooks: Hooks;
  /**
   * When a workflow's active schedule fires next (daemon clock, ms), as the trigger table
   * stores it for the scheduler's timer; null when it has none. Default: never.
   */
  nextRunOf?: (workflowId: string) => number | null;
}

export class WorkflowService implements WorkflowCatalog {
  private readonly definitions = new Map<string, Definition>();
  private readonly db: Transactions;
  private readonly repo: WorkflowRepository;
  private readonly events: EventService;
  private readonly clock: Clock;
  private readonly urlPolicy: UrlPolicy;
  private readonly agentExists: WorkflowServiceDeps['agentExists'];
  private readonly box: SecretBox;
  private readonly hooks: Hooks;
  private readonly nextRunOf: NonNullable<WorkflowServiceDeps['nextRunOf']>;

  constructor(deps: WorkflowServiceDeps) {
    this.db = deps.db;
    this.repo = deps.repo;
    this.events = deps.events;
    this.clock = deps.clock;
    this.urlPolicy = deps.urlPolicy;
    this.agentExists = deps.agentExists;
    this.box = deps.box;
    this.hooks = deps.hooks;
    this.nextRunOf = deps.nextRunOf ?? (() => null);
  }

  create(workspaceId: string, input: WorkflowCreateInput): WorkflowView {
    const now = this.clock.now();
    const id = newId('workflow');
    const steps = this.validate(workspaceId, input.steps);
    const settings = mergeSettings(undefined, input.settings);
    checkWaitsFitTimeout(steps, settings.timeout_seconds);
    const trigger = resolveTrigger(input.trigger ?? { type: 'manual' }, null, this.box);
    const row: WorkflowRow = {
      id,
      workspace_id: workspaceId,
      name: input.name,
      description: input.description ?? null,
      status: input.status ?? 'draft',
      trigger: JSON.stringify(trigger.stored),
      version: 1,
      created_at: now,
      updated_at: now,
      last_executed_at: null,
      stat_total: 0,
      stat_ended: 0,
      stat_succeeded: 0,
      stat_duration_ms: 0,
    };
    const version = versionRow(row, steps, settings, now);
    const view = toWorkflowView(row, version, null);
    this.db.transaction(() => {
      this.repo.insert(row, version);
      const after = { ...view, trigger: trigger.plain };
      // After graph validation: an ApiError of a listener (the trigger rules) refuses the write.
      this.hooks.run('workflowWritten', { workspaceId, before: null, after });
      // The trigger hook has just stored the schedule's first due time.
      view.next_run_at = this.nextRunAt(row);
      this.events.publish(workspaceId, 'workflow.created', view);
    })();
    return view;
  }

  get(workspaceId: string, id: string): WorkflowView {
    const row = this.row(workspaceId, id);
    return toWorkflowView(row, this.repo.version(row.id, row.version)!, this.nextRunAt(row));
  }

  list(
    workspaceId: string,
    query: ListQueryInput & { status?: string | undefined },
  ): Page<WorkflowView> {
    return mapPage(this.repo.page({ ...query, workspaceId }), (row) =>
      toWorkflowView(row, this.repo.version(row.id, row.version)!, this.nextRunAt(row)),
    );
  }

  update(workspaceId: string, id: string, input: WorkflowUpdateInput): WorkflowView {
    const current = this.row(workspaceId, id);
    const currentVersion = this.repo.version(current.id, current.version)!;
    const now = this.clock.now();
    const row: WorkflowRow = { ...current, updated_at: now };
    if (input.name !== undefined) row.name = input.name;
    if (input.description !== undefined) row.description = input.description;
    if (input.status !== undefined) row.status = input.status;
    const stored = JSON.parse(current.trigger) as StoredTrigger;
    const trigger =
      input.trigger === undefined
        ? { stored, plain: openTrigger(stored, this.box) }
        : resolveTrigger(input.trigger, stored, this.box);
    row.trigger = JSON.stringify(trigger.stored);
    // The whole graph is checked again on every PATCH (an agent it names may be gone by now).
    const steps = this.validate(
      workspaceId,
      input.steps ?? (JSON.parse(currentVersion.steps) as WorkflowStepView[]),
    );
    const definitionChanged =
      input.steps !== undefined || input.settings !== undefined || input.name !== undefined;
    const settings = mergeSettings(
      JSON.parse(currentVersion.settings) as WorkflowSettings,
      input.settings,
    );
    // Only a change of steps or settings can make a wait outlast the timeout (a rename cannot
    // refuse a workflow stored before this check).
    if (input.steps !== undefined || input.settings !== undefined)
      checkWaitsFitTimeout(steps, settings.timeout_seconds);
    let version: VersionRow | undefined;
    if (definitionChanged) {
      row.version = current.version + 1;
      version = versionRow(row, steps, settings, now);
    }
    const view = toWorkflowView(row, version ?? currentVersion, null);
    const before = toWorkflowView(current, currentVersion, this.nextRunAt(current));
    this.db.transaction(() => {
      this.repo.update(row, version);
      const after = { ...view, trigger: trigger.plain };
      this.hooks.run('workflowWritten', { workspaceId, before, after });
      // After the trigger hook: a schedule changed or activated has its new due time.
      view.next_run_at = this.nextRunAt(row);
      this.events.publish(workspaceId, 'workflow.updated', view);
    })();
    return view;
  }

  delete(workspaceId: string, id: string): { id: string; deleted: true } {
    const row = this.row(workspaceId, id);
    const before = toWorkflowView(row, this.repo.version(row.id, row.version)!, null);
    this.db.transaction(() => {
      this.hooks.run('workflowDeleted', row);
      this.hooks.run('workflowWritten', { workspaceId, before, after: null });
      this.repo.delete(id);
      this.events.publish(workspaceId, 'workflow.deleted', { id, deleted: true });
    })();
    return { id, deleted: true };
  }

  /**
   * The workflow's versions, newest first, at most `limit` (versions are numbered 1, 2, ... with
   * no gap: a new one on each change of name, steps or settings; runs keep the one they began with).
   */
  versions(workspaceId: string, id: string, limit: number): WorkflowVersionView[] {
    const row = this.row(workspaceId, id);
    const found: WorkflowVersionView[] = [];
    for (let number = row.version; number >= 1 && found.length < limit; number--) {
      const version = this.repo.version(row.id, number);
      if (!version) continue;
      found.push({
        version: version.version,
        name: version.name,
        created_at: toIso(version.created_at),
        steps: JSON.parse(version.steps) as WorkflowStepView[],
        settings: JSON.parse(version.settings) as WorkflowSettings,
      });
    }
    return found;
  }

  /** The stored row of a workflow of this workspace, or 404 workflow_not_found. */
  row(workspaceId: string, id: string): WorkflowRow {
    return ownedRow(this.repo.get(id), workspaceId, id, 'workflow');
  }

  /** row() for running it: its stats and last_executed_at may lag (see RowCache.configured). */
  configuredRow(workspaceId: string, id: string): WorkflowRow {
    return ownedRow(this.repo.configured(id), workspaceId, id, 'workflow');
  }

  /** The parsed definition of one version (cached; versions never change). */
  definition(workflowId: string, version: number): Definition | undefined {
    const key = `${workflowId}:${version}`;
    let definition = this.definitions.get(key);
    if (!definition) {
      const stored = this.repo.version(workflowId, version);
      if (!stored) return undefined;
      const steps = JSON.parse(stored.steps) as WorkflowStepView[];
      definition = {
        workflowId,
        version,
        name: stored.name,
        steps,
        byId: new Map(steps.map((step) => [step.id, step])),
        settings: JSON.parse(stored.settings) as WorkflowSettings,
      };
      // Checked once per version (cached with it): a count of the expressions, none compiled.
      const refusal = budgetRefusal(steps, version);
      if (refusal) definition.refusal = refusal;
      if (this.definitions.size > 10_000) this.definitions.clear();
      this.definitions.set(key, definition);
    }
    return definition;
  }

  /** next_run_at of a view: only an active workflow with a schedule trigger has one. */
  private nextRunAt(row: WorkflowRow): string | null {
    return row.status === 'active' ? toIso(this.nextRunOf(row.id)) : null;
  }

  recordStart(id: string, at: number): void {
    this.repo.recordStart(id, at);
  }

  recordEnd(id: string, succeeded: boolean, durationMs: number): void {
    this.repo.recordEnd(id, succeeded, durationMs);
  }

  private validate(
    workspaceId: string,
    steps: Parameters<typeof validateSteps>[0],
  ): WorkflowStepView[] {
    return validateSteps(steps, {
      agentExists: (agentId) => this.agentExists(workspaceId, agentId),
      checkUrl: (url, param) => void checkOutboundUrl(url, this.urlPolicy, param),
    });
  }
}

function mergeSettings(
  current: WorkflowSettings | undefined,
  input: SettingsInput,
): WorkflowSettings {
  return {
    timeout_seconds:
      input?.timeout_seconds ?? current?.timeout_seconds ?? WORKFLOW_DEFAULTS.timeoutSeconds,
    retry_policy: {
      max_attempts:
        input?.retry_policy?.max_attempts ??
        current?.retry_policy.max_attempts ??
        WORKFLOW_DEFAULTS.maxAttempts,
      backoff_multiplier:
        input?.retry_policy?.backoff_multiplier ??
        current?.retry_policy.backoff_multiplier ??
        WORKFLOW_DEFAULTS.backoffMultiplier,
    },
    error_handling:
      input?.error_handling ?? current?.error_handling ?? WORKFLOW_DEFAULTS.errorHandling,
  };
}

function versionRow(
  row: WorkflowRow,
  steps: WorkflowStepView[],
  settings: WorkflowSettings,
  now: number,
): VersionRow {
  return {
    workflow_id: row.id,
    version: row.version,
    name: row.name,
    steps: JSON.stringify(steps),
    settings: JSON.stringify(settings),
    created_at: now,
  };
}

export function toWorkflowView(
  row: WorkflowRow,
  version: VersionRow,
  nextRunAt: string | null,
): WorkflowView {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    name: row.name,
    description: row.description,
    status: row.status,
    trigger: publicTrigger(JSON.parse(row.trigger) as StoredTrigger),
    steps: JSON.parse(version.steps) as WorkflowStepView[],
    settings: JSON.parse(version.settings) as WorkflowSettings,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
    last_executed_at: toIso(row.last_executed_at),
    next_run_at: nextRunAt,
    stats: {
      total_executions: row.stat_total,
      success_rate:
        row.stat_ended === 0
          ? 0
          : Math.round((row.stat_succeeded / row.stat_ended) * 10_000) / 10_000,
      avg_duration_seconds:
        row.stat_ended === 0 ? 0 : Math.round(row.stat_duration_ms / row.stat_ended) / 1000,
    },
  };
}
