// Agents, their executions, messages, knowledge documents and analytics.
import { z } from 'zod';
import { isReservedSecretName, reservedSecretNameProblem } from '../secret-names.js';
import { DisplayName, ListQuery, Timestamp, workspaceObject } from './common.js';
import { DELAY_MS, MAX_MATCH_LENGTH } from './sandbox-limits.js';
import {
  AGENT_STATUSES,
  AGENT_TYPES,
  AGENT_UPDATE_STATUSES,
  ANALYTICS_METRICS,
  ANALYTICS_PERIODS,
  AUTONOMY_LEVELS,
  EXECUTION_STATUSES,
  KNOWLEDGE_TYPES,
} from './enums.js';

export type AutonomyLevel = (typeof AUTONOMY_LEVELS)[number];

const ActionName = z.string().min(1).max(100);

const Guardrails = z.strictObject({
  require_approval_for: z.array(ActionName).max(100).optional(),
  blocked_actions: z.array(ActionName).max(100).optional(),
  rate_limits: z
    .strictObject({ actions_per_hour: z.number().int().min(1).max(1_000_000).optional() })
    .optional(),
});

const Personality = z.strictObject({
  tone: z.string().max(100).optional(),
  response_length: z.string().max(100).optional(),
  empathy_level: z.string().max(100).optional(),
});

/** Names of workspace secrets (`svc secrets set NAME VALUE`, `{{secrets.NAME}}`). */
export const SecretName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'must be a secret name: letters, digits and _')
  .refine((name) => !isReservedSecretName(name), {
    error: (issue) => reservedSecretNameProblem(String(issue.input)),
  });

const Brain = z
  .strictObject({
    provider: z.enum(['simulated', 'openai', 'replay']),
    model: z.string().max(200).optional(),
    cassette: z.string().max(500).optional().meta({
      // Relative, a .json file (a drive letter, and whether the path stays inside the folder
      // once resolved, are left to the service: no lookahead, which generators cannot read).
      pattern: '^[^/\\\\\\u0000][^\\u0000]*\\.json$',
      description:
        "replay: the cassette to answer from (svc agents record, svc agents cassette load), a .json file named relative to the daemon's cassette folder (SVC_CASSETTE_DIR, default <data dir>/cassettes; in team mode a cassette of the sandbox's store, shared by its daemons, into which a file of that folder is taken when first used); absolute paths, .. and symbolic links leading out of the folder are refused (400 invalid_parameter); a cassette over 16 MiB or not matching the cassette format fails the execution with 502 external_api_error naming the file and the entry (interactions[3].response)",
    }),
    record_missing: z.boolean().optional().meta({
      description:
        "replay: a request the cassette lacks is asked of the real endpoint (base_url, else the daemon's) and appended, instead of failing the execution",
    }),
    base_url: z.string().max(500).optional(),
    api_key_secret: SecretName.optional().meta({
      description:
        "With base_url: the workspace secret whose value is sent as the bearer key to that endpoint. The daemon's own key (SVC_OPENAI_API_KEY) goes only to the daemon's base URL, so an agent with its own base_url and no api_key_secret sends no key.",
    }),
  })
  .meta({
    description: "Overrides the daemon's execution brain for this agent (svc extension)",
    // cassette and record_missing belong to the replay brain (the service refuses them elsewhere).
    if: { properties: { provider: { not: { const: 'replay' } } } },
    then: { properties: { cassette: false, record_missing: false } },
  });

const Ontology = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]*-v[0-9]+$/, 'must look like <industry>-v<number>, e.g. retail-v1')
  .meta({ description: 'Industry ontology, <industry>-v<number> (e.g. retail-v1)' });

export const AgentCreateBody = z.strictObject({
  name: DisplayName,
  description: z.string().max(2000).optional(),
  type: z.enum(AGENT_TYPES).optional().meta({ description: 'Default custom' }),
  ontology: Ontology,
  autonomy_level: z
    .enum(AUTONOMY_LEVELS)
    .optional()
    .meta({ description: 'Default L2 (the recommended level)' }),
  capabilities: z.record(z.string().max(100), z.boolean()).optional(),
  guardrails: Guardrails.optional(),
  personality: Personality.optional(),
  brain: Brain.optional(),
});

export const AgentUpdateBody = z.strictObject({
  name: DisplayName.optional(),
  description: z.string().max(2000).optional(),
  type: z.enum(AGENT_TYPES).optional(),
  ontology: Ontology.optional(),
  autonomy_level: z.enum(AUTONOMY_LEVELS).optional(),
  status: z.enum(AGENT_UPDATE_STATUSES).optional(),
  capabilities: z.record(z.string().max(100), z.boolean()).optional(),
  guardrails: Guardrails.optional(),
  personality: Personality.optional(),
  brain: Brain.nullable().optional(),
});

/** What services receive: the bodies as validated (z.infer is the parsed output). */
export type AgentCreateInput = z.infer<typeof AgentCreateBody>;
export type AgentUpdateInput = z.infer<typeof AgentUpdateBody>;
export type AgentGuardrailsInput = z.infer<typeof Guardrails>;
export type AgentPersonalityInput = z.infer<typeof Personality>;
export type AgentBrainChoice = z.infer<typeof Brain>;

/** An object that belongs to an agent (a message, a knowledge document): id and agent_id first. */
function agentObject<Shape extends z.ZodRawShape>(fields: Shape) {
  return z.object({ id: z.string(), agent_id: z.string(), ...fields });
}

export const AGENT_FIELD_CODES = { autonomy_level: 'invalid_autonomy_level' } as const;

export const Agent = workspaceObject({
  name: z.string(),
  description: z.string().nullable(),
  type: z.enum(AGENT_TYPES),
  ontology: z.string(),
  autonomy_level: z.enum(AUTONOMY_LEVELS),
  status: z.enum(AGENT_STATUSES),
  capabilities: z.record(z.string(), z.boolean()),
  guardrails: z.object({
    require_approval_for: z.array(z.string()),
    blocked_actions: z.array(z.string()),
    rate_limits: z.object({ actions_per_hour: z.number().int().nullable() }),
  }),
  personality: z.object({
    tone: z.string().nullable(),
    response_length: z.string().nullable(),
    empathy_level: z.string().nullable(),
  }),
  brain: z
    .object({
      provider: z.enum(['simulated', 'openai', 'replay']),
      model: z.string().optional(),
      cassette: z.string().optional(),
      record_missing: z.boolean().optional(),
      base_url: z.string().optional(),
      api_key_secret: z.string().optional(),
    })
    .nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
  last_active_at: Timestamp.nullable(),
  stats: z.object({
    total_interactions: z.number().int(),
    success_rate: z.number(),
    avg_response_time_ms: z.number(),
  }),
}).meta({ title: 'Agent' });

export type AgentView = z.infer<typeof Agent>;

export const AgentListQuery = ListQuery.extend({
  status: z.enum(AGENT_STATUSES).optional(),
  type: z.enum(AGENT_TYPES).optional(),
});

export type AgentListQueryInput = z.infer<typeof AgentListQuery>;

export const AgentParams = z.strictObject({ agent_id: z.string() });
export const ExecutionParams = z.strictObject({ agent_id: z.string(), execution_id: z.string() });
export const DocumentParams = z.strictObject({ agent_id: z.string(), document_id: z.string() });

export const ExecuteBody = z.strictObject({
  input: z.string().min(1).max(100_000),
  context: z.record(z.string(), z.unknown()).optional().meta({
    description:
      "Passed to the agent's brain. `context.action` (a workflow step puts its config.action there) is the action the agent takes, in snake_case; one whose capability is false fails the execution with 403 guardrail_violation naming the actions the agent may take",
  }),
  wait_for_completion: z.boolean().optional(),
});

export type ExecuteInput = z.infer<typeof ExecuteBody>;

export const ExecutionResult = z.object({
  action: z.string(),
  output: z.string(),
  confidence: z.number(),
});

export const AgentExecution = z
  .object({
    execution_id: z.string(),
    agent_id: z.string(),
    status: z.enum(EXECUTION_STATUSES),
    input: z.string(),
    result: ExecutionResult.nullable(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    execution_time_ms: z.number().int().nullable(),
    approval: z
      .object({
        decision: z.enum(['approve', 'reject']),
        notes: z.string().nullable(),
        decided_at: Timestamp,
      })
      .nullable(),
    created_at: Timestamp,
    completed_at: Timestamp.nullable(),
  })
  .meta({ title: 'AgentExecution' });

export type AgentExecutionView = z.infer<typeof AgentExecution>;

export const ApproveBody = z.strictObject({
  decision: z.enum(['approve', 'reject']),
  notes: z.string().max(2000).optional(),
});

export type ApproveInput = z.infer<typeof ApproveBody>;

export const DeployBody = z.strictObject({ agent_id: z.string() });

export const MessageBody = z.strictObject({
  content: z.string().min(1).max(100_000),
  conversation_id: z.string().max(100).optional(),
});

export type MessageInput = z.infer<typeof MessageBody>;

export const Message = agentObject({
  conversation_id: z.string(),
  role: z.enum(['user', 'agent']),
  content: z.string(),
  action: z.string().nullable(),
  confidence: z.number().nullable(),
  created_at: Timestamp,
}).meta({ title: 'Message' });

export type MessageView = z.infer<typeof Message>;

export const MessageListQuery = ListQuery.extend({
  conversation_id: z.string().max(100).optional(),
});

export type MessageListQueryInput = z.infer<typeof MessageListQuery>;

export const KnowledgeDocument = agentObject({
  filename: z.string(),
  format: z.enum(['pdf', 'md', 'txt', 'docx']),
  type: z.enum(KNOWLEDGE_TYPES),
  description: z.string().nullable(),
  size_bytes: z.number().int(),
  chunk_count: z.number().int(),
  characters: z.number().int(),
  created_at: Timestamp,
}).meta({ title: 'KnowledgeDocument' });

export type KnowledgeDocumentView = z.infer<typeof KnowledgeDocument>;

const METRIC_NAME = `(${ANALYTICS_METRICS.join('|')})`;

export const AnalyticsQuery = z.strictObject({
  period: z.enum(ANALYTICS_PERIODS).optional(),
  metrics: z
    .string()
    .max(500)
    .optional()
    .meta({
      description: `Comma-separated metric names (${ANALYTICS_METRICS.join(', ')}); all when absent`,
      // The names as a pattern, spaces and empty entries allowed as the service allows them
      // (it answers an unknown name with its own message).
      pattern: `^[ \\t]*(${METRIC_NAME}[ \\t]*)?(,[ \\t]*(${METRIC_NAME}[ \\t]*)?)*$`,
    }),
});

export const Analytics = z
  .object({
    agent_id: z.string(),
    period: z.enum(ANALYTICS_PERIODS),
    metrics: z.object({
      total_interactions: z.number().int().optional(),
      success_rate: z.number().optional(),
      avg_response_time_ms: z.number().optional(),
      escalation_rate: z.number().optional(),
      customer_satisfaction: z.number().nullable().optional(),
      actions_by_type: z.record(z.string(), z.number().int()).optional(),
      autonomy_performance: z
        .object({ l2_approval_rate: z.number(), l3_success_rate: z.number() })
        .optional(),
    }),
  })
  .meta({ title: 'AgentAnalytics' });

export type AnalyticsView = z.infer<typeof Analytics>;

export const KnowledgeUploadFields = z.strictObject({
  type: z.enum(KNOWLEDGE_TYPES),
  description: z.string().max(2000).optional(),
});

export const StubAddInput = z.strictObject({
  agent_id: z.string(),
  match: z.string().min(1).max(MAX_MATCH_LENGTH),
  result: z
    .strictObject({
      action: z.string().max(100).optional(),
      output: z.string().max(100_000).optional(),
      confidence: z.number().min(0).max(1).optional(),
    })
    .optional(),
  fail: z.string().max(100).optional(),
  delay_ms: z.number().int().min(DELAY_MS.min).max(DELAY_MS.max).optional(),
});

/** A stub as the stub service receives it (the agent comes apart). */
export type StubInput = Omit<z.infer<typeof StubAddInput>, 'agent_id'>;
