// GET /agents/{id}/analytics: figures for a period on the daemon clock, computed from the stored
// executions and messages. customer_satisfaction has no ratings to come from in a sandbox: it is
// the mean confidence of completed work on a 1-5 scale (null when there is none).
import { ANALYTICS_METRICS } from '../../shared/schemas/enums.js';
import type { Clock } from '../time/clock.js';
import { invalidParameter } from '../domain/errors.js';
import type { AgentService } from './agent.service.js';
import type { ExecutionRepository } from './execution.repository.js';
import type { MessageRepository } from './message.repository.js';

const PERIOD_MS = {
  '1d': 86_400_000,
  '7d': 7 * 86_400_000,
  '30d': 30 * 86_400_000,
  '90d': 90 * 86_400_000,
} as const;
type Period = keyof typeof PERIOD_MS;
type Metric = (typeof ANALYTICS_METRICS)[number];

export class AnalyticsService {
  constructor(
    private readonly agents: AgentService,
    private readonly executions: ExecutionRepository,
    private readonly messages: MessageRepository,
    private readonly clock: Clock,
  ) {}

  compute(
    workspaceId: string,
    agentId: string,
    query: { period?: Period | undefined; metrics?: string | undefined },
  ) {
    const agent = this.agents.row(workspaceId, agentId);
    const period = query.period ?? '7d';
    const wanted = parseMetrics(query.metrics);
    const since = this.clock.now() - PERIOD_MS[period];
    const figures = this.executions.figures(agent.id, since);
    const replies = this.messages.replyFigures(agent.id, since);
    const confident = figures.confident + replies.confident;
    const all: Record<Metric, unknown> = {
      total_interactions: figures.executions + replies.replies,
      success_rate: ratio(figures.completed, figures.finished),
      avg_response_time_ms:
        figures.timed + replies.replies === 0
          ? 0
          : Math.round(
              (figures.total_time_ms + replies.time_sum) / (figures.timed + replies.replies),
            ),
      escalation_rate: ratio(figures.escalated, figures.executions),
      customer_satisfaction:
        confident === 0
          ? null
          : Math.round(
              (1 + 4 * ((figures.confidence_sum + replies.confidence_sum) / confident)) * 100,
            ) / 100,
      actions_by_type: this.executions.actionsByType(agent.id, since),
      autonomy_performance: {
        l2_approval_rate: ratio(figures.l2_approved, figures.l2_decided),
        l3_success_rate: ratio(figures.l3_completed, figures.l3_finished),
      },
    };
    return {
      agent_id: agent.id,
      period,
      metrics: Object.fromEntries(wanted.map((metric) => [metric, all[metric]])),
    };
  }
}

function parseMetrics(text: string | undefined): Metric[] {
  if (!text) return [...ANALYTICS_METRICS];
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!(ANALYTICS_METRICS as readonly string[]).includes(name)) {
      throw invalidParameter(
        'metrics',
        `Unknown metric '${name}'. Use any of: ${ANALYTICS_METRICS.join(', ')}.`,
      );
    }
  }
  return names as Metric[];
}

function ratio(part: number | null, whole: number | null): number {
  return !whole ? 0 : Math.round(((part ?? 0) / whole) * 10_000) / 10_000;
}
