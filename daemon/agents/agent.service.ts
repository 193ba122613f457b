// Agents: create (training, then active after the training period), read, update, delete,
// deploy. Each change emits its agent.* event in the same transaction. L4 needs Business tier.
import { newId } from '../../shared/ids.js';
import type {
  AgentBrainChoice,
  AgentCreateInput,
  AgentGuardrailsInput,
  AgentPersonalityInput,
  AgentUpdateInput,
  AgentView,
} from '../../shared/schemas/agents.js';
import type { Tier } from '../../shared/tiers.js';
import { toIso, type Clock } from '../time/clock.js';
import type { EventService } from '../events/event.service.js';
import { ApiError } from '../domain/errors.js';
import { mapPage, type ListQueryInput, type Page } from '../domain/pages.js';
import type { Transactions } from '../domain/transactions.js';
import type { TimerService } from '../time/timer.service.js';
import type { ServerUrls } from '../domain/urls.js';
import { checkOutboundUrl, type UrlPolicy } from '../outbound/url-policy.js';
import { ownedRow, type Workspace } from '../domain/workspace.js';
import type { Hooks } from '../domain/hooks.js';
import type { AgentListQuery, AgentRepository, AgentRow } from './agent.repository.js';
import type { AgentSettings } from './agent-settings.js';
import type { AgentProfile } from './brains/brain.js';
import { checkCassetteName } from './brains/cassette.js';

const TRAINING_TIMER = 'agent.training';
const TIERS_WITH_L4: readonly Tier[] = ['business', 'enterprise'];

/** What AgentService is built from (app/services.ts passes them by name). */
export interface AgentServiceDeps {
  db: Transactions;
  repo: AgentRepository;
  events: EventService;
  timers: TimerService;
  clock: Clock;
  settings: AgentSettings;
  urls: ServerUrls;
  urlPolicy: UrlPolicy;
  hooks: Hooks;
}

export class AgentService {
  private readonly views = new WeakMap<AgentRow, AgentView>();

  private readonly db: Transactions;
  private readonly repo: AgentRepository;
  private readonly events: EventService;
  private readonly timers: TimerService;
  private readonly clock: Clock;
  private readonly settings: AgentSettings;
  private readonly urls: ServerUrls;
  private readonly urlPolicy: UrlPolicy;
  private readonly hooks: Hooks;

  constructor(deps: AgentServiceDeps) {
    this.db = deps.db;
    this.repo = deps.repo;
    this.events = deps.events;
    this.timers = deps.timers;
    this.clock = deps.clock;
    this.settings = deps.settings;
    this.urls = deps.urls;
    this.urlPolicy = deps.urlPolicy;
    this.hooks = deps.hooks;
    const { timers } = deps;

    timers.register(TRAINING_TIMER, (payload) =>
      this.finishTraining((payload as { agent_id: string }).agent_id),
    );
  }

  create(workspace: Workspace, input: AgentCreateInput): AgentView {
    const autonomy = input.autonomy_level ?? 'L2';
    requireTierFor(autonomy, workspace, this.urls);
    const now = this.clock.now();
    const row = {
      id: newId('agent'),
      workspace_id: workspace.id,
      name: input.name,
      description: input.description ?? null,
      type: input.type ?? 'custom',
      ontology: input.ontology,
      autonomy_level: autonomy,
      status: 'training' as const,
      capabilities: JSON.stringify(input.capabilities ?? {}),
      guardrails: JSON.stringify(normalizeGuardrails(input.guardrails)),
      personality: JSON.stringify(normalizePersonality(input.personality)),
      brain: input.brain ? JSON.stringify(this.checkBrain(input.brain)) : null,
      created_at: now,
      updated_at: now,
    };
    const view = toAgentView({ ...row, last_active_at: null, deleted_at: null, ...ZERO_STATS });
    this.db.transaction(() => {
      this.repo.insert(row);
      this.events.publish(workspace.id, 'agent.created', view);
      this.timers.schedule(TRAINING_TIMER, now + this.settings.trainingPeriodMs, {
        agent_id: row.id,
      });
    })();
    return view;
  }

  get(workspaceId: string, id: string): AgentView {
    return this.viewOf(this.row(workspaceId, id));
  }

  /** Views are kept per row object: the repository hands out a new one after each write. */
  viewOf(row: AgentRow): AgentView {
    let view = this.views.get(row);
    if (!view) {
      view = toAgentView(row);
      this.views.set(row, view);
    }
    return view;
  }

  row(workspaceId: string, id: string): AgentRow {
    return ownedRow(this.repo.get(id), workspaceId, id, 'agent');
  }

  /** An agent of any workspace (the operator's control channel), or undefined. */
  find(id: string): AgentRow | undefined {
    return this.repo.get(id);
  }

  /** The agent, which must be active to execute or converse (its stats may lag: see configured). */
  activeRow(workspaceId: string, id: string): AgentRow {
    const row = ownedRow(this.repo.configured(id), workspaceId, id, 'agent');
    if (row.status !== 'active') {
      const hint =
        row.status === 'training'
          ? 'It becomes active when training ends, or at once with PATCH {"status": "active"} or POST /v1/agents/deploy.'
          : 'Activate it with PATCH {"status": "active"}.';
      throw new ApiError('agent_not_active', `Agent ${id} is ${row.status}, not active. ${hint}`, {
        extras: { agent_status: row.status, agent_id: id },
      });
    }
    return row;
  }

  list(
    workspaceId: string,
    query: ListQueryInput & Omit<AgentListQuery, 'workspaceId'>,
  ): Page<AgentView> {
    return mapPage(this.repo.page({ ...query, workspaceId }), toAgentView);
  }

  update(workspace: Workspace, id: string, input: AgentUpdateInput): AgentView {
    const current = this.row(workspace.id, id);
    if (input.autonomy_level !== undefined)
      requireTierFor(input.autonomy_level, workspace, this.urls);
    const stored = this.viewOf(current);
    const guardrails = { ...stored.guardrails, ...stripUndefined(input.guardrails ?? {}) };
    const personality = { ...stored.personality, ...stripUndefined(input.personality ?? {}) };
    const row: AgentRow = {
      ...current,
      name: input.name ?? current.name,
      description: input.description ?? current.description,
      type: input.type ?? current.type,
      ontology: input.ontology ?? current.ontology,
      autonomy_level: input.autonomy_level ?? current.autonomy_level,
      status: input.status ?? current.status,
      capabilities: input.capabilities
        ? JSON.stringify({ ...JSON.parse(current.capabilities), ...input.capabilities })
        : current.capabilities,
      guardrails: JSON.stringify(normalizeGuardrails(guardrails)),
      personality: JSON.stringify(normalizePersonality(personality)),
      brain:
        input.brain === undefined
          ? current.brain
          : input.brain === null
            ? null
            : JSON.stringify(this.checkBrain(input.brain)),
      updated_at: this.clock.now(),
    };
    return this.save(row);
  }

  /** POST /v1/agents/deploy: active now, whatever training is left. */
  deploy(workspaceId: string, id: string): AgentView {
    const current = this.row(workspaceId, id);
    if (current.status === 'active') return toAgentView(current);
    return this.save({ ...current, status: 'active', updated_at: this.clock.now() });
  }

  delete(workspaceId: string, id: string): { id: string; deleted: true } {
    const row = this.row(workspaceId, id);
    this.db.transaction(() => {
      this.repo.markDeleted(id, this.clock.now());
      // Inside the transaction: work of the agent ends with it (never left running).
      this.hooks.run('agentDeleted', row);
      this.events.publish(workspaceId, 'agent.deleted', { id, deleted: true });
    })();
    return { id, deleted: true };
  }

  profile(row: AgentRow): AgentProfile {
    const view = this.viewOf(row);
    return {
      id: row.id,
      workspace_id: row.workspace_id,
      name: row.name,
      type: row.type,
      capabilities: view.capabilities,
      personality: view.personality,
      brain: view.brain,
    };
  }

  /** An agent's own model endpoint must be a URL the daemon may call. */
  private checkBrain(brain: AgentBrainChoice): AgentBrainChoice {
    if (brain.provider === 'replay') {
      if (brain.cassette === undefined) {
        throw new ApiError(
          'missing_required_field',
          'The replay brain answers from a cassette: set brain.cassette (e.g. support.json, recorded with svc agents record).',
          { param: 'brain.cassette', extras: { required_fields: ['brain.cassette'] } },
        );
      }
      checkCassetteName(brain.cassette);
    } else if (brain.cassette !== undefined || brain.record_missing !== undefined) {
      throw new ApiError(
        'invalid_parameter',
        'brain.cassette and brain.record_missing belong to the replay brain (provider: replay).',
        { param: 'brain.cassette' },
      );
    }
    if (brain.base_url === undefined) {
      if (brain.api_key_secret !== undefined) {
        throw new ApiError(
          'invalid_parameter',
          "brain.api_key_secret names the key for the agent's own brain.base_url: set base_url too, or leave both out to use the daemon's model endpoint.",
          { param: 'brain.api_key_secret' },
        );
      }
      return brain;
    }
    return {
      ...brain,
      base_url: checkOutboundUrl(brain.base_url, this.urlPolicy, 'brain.base_url'),
    };
  }

  private save(row: AgentRow): AgentView {
    const view = toAgentView(row);
    this.db.transaction(() => {
      this.repo.update(row);
      this.events.publish(row.workspace_id, 'agent.updated', view);
    })();
    return view;
  }

  private finishTraining(agentId: string): void {
    const row = this.repo.get(agentId);
    if (!row || row.status !== 'training') return;
    this.save({ ...row, status: 'active', updated_at: this.clock.now() });
  }
}

const ZERO_STATS = {
  stat_interactions: 0,
  stat_finished: 0,
  stat_succeeded: 0,
  stat_timed: 0,
  stat_time_ms: 0,
};

function requireTierFor(autonomy: string, workspace: Workspace, urls: ServerUrls): void {
  if (autonomy === 'L4' && !TIERS_WITH_L4.includes(workspace.tier)) {
    throw new ApiError(
      'tier_restriction',
      `L4 (Proactive) autonomy needs the Business tier or higher; this workspace is ${workspace.tier}.`,
      {
        param: 'autonomy_level',
        extras: {
          current_tier: workspace.tier,
          required_tier: 'business',
          upgrade_url: `${urls.app}/docs/errors#tier_restriction`,
        },
      },
    );
  }
}

/** Each field from a body (absent = unset) or from the stored agent (null = unset). */
type Either<Input, Stored> = { [K in keyof Input & keyof Stored]?: Input[K] | Stored[K] };

/** Guardrails as stored: a body's, or the stored ones merged with a patch. */
function normalizeGuardrails(
  guardrails: Either<AgentGuardrailsInput, AgentView['guardrails']> | undefined,
): AgentView['guardrails'] {
  return {
    require_approval_for: [...new Set(guardrails?.require_approval_for ?? [])],
    blocked_actions: [...new Set(guardrails?.blocked_actions ?? [])],
    rate_limits: { actions_per_hour: guardrails?.rate_limits?.actions_per_hour ?? null },
  };
}

function normalizePersonality(
  personality: Either<AgentPersonalityInput, AgentView['personality']> | undefined,
): AgentView['personality'] {
  return {
    tone: personality?.tone ?? null,
    response_length: personality?.response_length ?? null,
    empathy_level: personality?.empathy_level ?? null,
  };
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(value).filter(([, entry]) => entry !== undefined),
  ) as Partial<T>;
}

export function toAgentView(row: AgentRow): AgentView {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    name: row.name,
    description: row.description,
    type: row.type as AgentView['type'],
    ontology: row.ontology,
    autonomy_level: row.autonomy_level as AgentView['autonomy_level'],
    status: row.status,
    capabilities: JSON.parse(row.capabilities) as Record<string, boolean>,
    guardrails: JSON.parse(row.guardrails) as AgentView['guardrails'],
    personality: JSON.parse(row.personality) as AgentView['personality'],
    brain: row.brain ? (JSON.parse(row.brain) as AgentView['brain']) : null,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
    last_active_at: toIso(row.last_active_at),
    stats: {
      total_interactions: row.stat_interactions,
      success_rate:
        row.stat_finished === 0
          ? 0
          : Math.round((row.stat_succeeded / row.stat_finished) * 10_000) / 10_000,
      avg_response_time_ms:
        row.stat_timed === 0 ? 0 : Math.round(row.stat_time_ms / row.stat_timed),
    },
  };
}
