// Workflows, their executions and workspace secrets: the API contract of issue 7.
//
// REST (X-Tenant-ID; scopes workflows:read / workflows:write / workflows:execute):
//   GET    /v1/workflows?status=&limit=&starting_after=|cursor=   -> list of Workflow
//   POST   /v1/workflows                 WorkflowCreateBody       -> 201 Workflow (status draft unless given)
//   GET    /v1/workflows/{workflow_id}                            -> Workflow
//   PATCH  /v1/workflows/{workflow_id}   WorkflowUpdateBody       -> Workflow (whole graph re-validated)
//   DELETE /v1/workflows/{workflow_id}                            -> {id, deleted: true} (cancels its running runs)
//   POST   /v1/workflows/{workflow_id}/execute (alias /run)  ExecuteBody
//          wait_for_completion false -> 202 ExecutionAccepted {execution_id, workflow_id, status: running, created_at}
//          wait_for_completion true  -> 200 WorkflowExecution (completed) | 202 WorkflowExecution (still running
//            after 60 s, or awaiting_approval) | 500 step_failed {step_id, step_name, underlying_error {code,
//            message}, execution_id} | 408 workflow_timeout {execution_id}
//          paused/archived workflow -> 409 workflow_not_active
//   GET    /v1/workflows/{workflow_id}/executions?status=&limit=&starting_after=|cursor= -> list of WorkflowExecution
//   GET    /v1/workflows/{workflow_id}/executions/{execution_id}  -> WorkflowExecution (404 execution_not_found
//            past 30 days)
//   POST   /v1/workflows/{workflow_id}/executions/{execution_id}/cancel -> CancelledExecution, or 409
//            execution_not_cancellable when the run already ended
// Validation errors: 400 invalid_step_config with param like "steps[2].config.if_false";
//   400 circular_dependency with extras {cycle: [step ids..., first again]}.
// Events: workflow.created|updated (Workflow), workflow.deleted ({id, deleted}),
//   workflow.execution.started (WorkflowExecution), workflow.execution.step_completed (StepCompletedData),
//   workflow.execution.completed (WorkflowExecution with result), workflow.execution.failed (ExecutionFailedData).
// Control channel (tRPC): secrets.set {workspace_id?, name, value} -> SecretInfo; secrets.list {workspace_id?}
//   -> SecretInfo[] (names only); secrets.delete {workspace_id?, name} -> {name, deleted: true}.
// Interpolation in step config strings: {{trigger.payload.x}}, {{<step_id>.result.y}},
//   {{steps.<step_id>.result.y}}, {{workflow.execution_id}}, {{workflow.result}}, {{secrets.KEY}}; a string
//   that is exactly one {{expr}} keeps the value's type. Conditions are the same expressions without braces.
import { z } from 'zod';
import { isReservedSecretName, reservedSecretNameProblem } from '../secret-names.js';
import { DisplayName, ListQuery, Timestamp, workspaceObject } from './common.js';
import { STEP_CONFIG_SCHEMAS, STEP_TYPES, type StepType, type TypedStep } from './steps.js';

export { STEP_TYPES, type StepType };

export const WORKFLOW_STATUSES = ['draft', 'active', 'paused', 'archived'] as const;
export const TRIGGER_TYPES = ['manual', 'webhook', 'schedule', 'event'] as const;
export const ERROR_HANDLING = ['stop', 'continue'] as const;
export const WORKFLOW_EXECUTION_STATUSES = [
  'running',
  'awaiting_approval',
  'completed',
  'failed',
  'cancelled',
  'timeout',
] as const;
/** States of one step attempt in step_results. */
export const STEP_RESULT_STATUSES = [
  'running',
  'waiting',
  'awaiting_approval',
  'retrying',
  'completed',
  'failed',
  'cancelled',
  'unknown',
] as const;

export type WorkflowStatus = (typeof WORKFLOW_STATUSES)[number];
export type WorkflowExecutionStatus = (typeof WORKFLOW_EXECUTION_STATUSES)[number];
export type StepResultStatus = (typeof STEP_RESULT_STATUSES)[number];

export const WORKFLOW_DEFAULTS = {
  timeoutSeconds: 3600,
  maxAttempts: 1,
  backoffMultiplier: 2,
  errorHandling: 'stop',
} as const;

const StepId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'letters, digits, _ and -, starting with a letter or _')
  .meta({
    description: 'Unique within the workflow; referenced by other steps and by {{<id>.result}}',
  });

const StepRef = z.string().min(1).max(64).nullable().optional();

export const WorkflowStepInput = z
  .strictObject({
    id: StepId,
    name: DisplayName,
    // The document lists the values; the check stays the engine's (400 invalid_step_config).
    type: z
      .string()
      .min(1)
      .max(50)
      .meta({
        enum: [...STEP_TYPES],
        description:
          'agent_action, condition, parallel, wait or webhook (another value -> 400 invalid_step_config)',
      }),
    agent_id: z.string().max(100).nullable().optional().meta({ description: 'For agent_action' }),
    config: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({
        description:
          'By type (the variants below): agent_action: action, input_mapping (name -> expression), extra keys; condition: condition, if_true, if_false; parallel: steps (ids), wait_for_all; wait: duration_seconds, reason; webhook: url, method, headers, body, timeout_seconds',
        // Documentation only: the API checks a config by its step's type (400 invalid_step_config).
        anyOf: STEP_TYPES.map((type) =>
          z.toJSONSchema(STEP_CONFIG_SCHEMAS[type], { io: 'input', unrepresentable: 'any' }),
        ),
      }),
    next_step_id: StepRef.meta({ description: 'The step that follows; none ends the branch' }),
    on_error: StepRef.meta({ description: 'The step to jump to when this one fails' }),
  })
  .meta({ title: 'WorkflowStepInput' });

export type WorkflowStepInput = z.infer<typeof WorkflowStepInput>;

const Trigger = z.strictObject({
  type: z.enum(TRIGGER_TYPES),
  config: z.record(z.string(), z.unknown()).optional(),
});

const Settings = z.strictObject({
  timeout_seconds: z
    .number()
    .int()
    .min(1)
    .max(30 * 86_400)
    .optional()
    .meta({ description: 'The run ends timeout past this, on the daemon clock (default 3600)' }),
  retry_policy: z
    .strictObject({
      max_attempts: z.number().int().min(1).max(10).optional().meta({
        description: 'Attempts per step in all (default 1: no retry)',
      }),
      backoff_multiplier: z.number().min(1).max(10).optional().meta({
        description: 'Retry delay: 1 s, then times this each attempt (default 2)',
      }),
    })
    .optional(),
  error_handling: z.enum(ERROR_HANDLING).optional().meta({
    description: 'stop (default) fails the run at a failed step; continue records it and goes on',
  }),
});

export const WorkflowCreateBody = z.strictObject({
  name: DisplayName,
  description: z.string().max(2000).optional(),
  status: z.enum(WORKFLOW_STATUSES).optional().meta({ description: 'Default draft' }),
  trigger: Trigger.optional().meta({ description: 'Default {type: manual}' }),
  steps: z.array(WorkflowStepInput).min(1).max(100).meta({
    description: 'The first step is the entry',
  }),
  settings: Settings.optional(),
});

export type WorkflowCreateInput = z.infer<typeof WorkflowCreateBody>;

export const WorkflowUpdateBody = z.strictObject({
  name: DisplayName.optional(),
  description: z.string().max(2000).optional(),
  status: z.enum(WORKFLOW_STATUSES).optional(),
  trigger: Trigger.optional(),
  steps: z.array(WorkflowStepInput).min(1).max(100).optional(),
  settings: Settings.optional().meta({ description: 'Merged into the current settings' }),
});

export type WorkflowUpdateInput = z.infer<typeof WorkflowUpdateBody>;

export const WorkflowStep = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(STEP_TYPES),
    agent_id: z.string().nullable(),
    config: z.record(z.string(), z.unknown()),
    next_step_id: z.string().nullable(),
    on_error: z.string().nullable(),
  })
  .meta({ title: 'WorkflowStep' });

/** A stored step; its config is typed by its type (the serializer sends every stored key). */
export type WorkflowStepView = TypedStep;

export const Workflow = workspaceObject({
  name: z.string(),
  description: z.string().nullable(),
  status: z.enum(WORKFLOW_STATUSES),
  trigger: z
    .object({
      type: z.enum(TRIGGER_TYPES),
      config: z.record(z.string(), z.unknown()),
    })
    .meta({
      description:
        "A webhook trigger's config.secret is never shown: has_secret: true stands for it (stored sealed at rest; see WebhookTriggerConfig)",
    }),
  steps: z.array(WorkflowStep),
  settings: z.object({
    timeout_seconds: z.number().int(),
    retry_policy: z.object({ max_attempts: z.number().int(), backoff_multiplier: z.number() }),
    error_handling: z.enum(ERROR_HANDLING),
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
  last_executed_at: Timestamp.nullable(),
  next_run_at: Timestamp.nullable().meta({
    description:
      "A schedule trigger's next run, on the daemon clock (the sandbox clock: svc clock advance or set moves it there), as the scheduler has it due: the first match of trigger.config.cron in trigger.config.timezone after the last run (or after the moment the schedule was activated or changed). null for other triggers and for a workflow that is not active (a paused schedule does not fire)",
  }),
  stats: z.object({
    total_executions: z.number().int(),
    success_rate: z.number().meta({ description: 'completed / ended runs, 0-1' }),
    avg_duration_seconds: z.number(),
  }),
}).meta({ title: 'Workflow' });

/** A workflow as the API shows it; its steps typed by their type. */
export type WorkflowView = Omit<z.infer<typeof Workflow>, 'steps'> & { steps: TypedStep[] };

export const WorkflowListQuery = ListQuery.extend({
  status: z.enum(WORKFLOW_STATUSES).optional(),
});

export const WorkflowParams = z.strictObject({ workflow_id: z.string().max(100) });

export const ExecuteBody = z.strictObject({
  input: z
    .record(z.string(), z.unknown())
    .meta({ description: 'Becomes trigger.payload (required, an object)' }),
  wait_for_completion: z.boolean().optional().meta({
    description: 'Answer with the finished run (up to 60 s); default false',
  }),
});

export type ExecuteInput = z.infer<typeof ExecuteBody>;

export const RerunBody = z.strictObject({
  from_step_id: z.string().min(1).max(64).optional().meta({
    description:
      'Start at this step: the steps the original run finished before it keep their results (and are not run again); without it, the whole run starts over',
  }),
  wait_for_completion: z.boolean().optional().meta({
    description: 'Answer with the finished run (up to 60 s); default false',
  }),
});

export type RerunInput = z.infer<typeof RerunBody>;

const ErrorInfo = z.object({
  code: z.string(),
  message: z.string(),
  details: z
    .object({ step_id: z.string().nullable(), agent_id: z.string().nullable() })
    .nullable()
    .optional(),
});

export const StepResult = z
  .object({
    step_id: z.string(),
    step_name: z.string(),
    type: z.enum(STEP_TYPES),
    status: z.enum(STEP_RESULT_STATUSES).meta({
      description:
        "unknown: a webhook step's call that was sent (it is recorded before it leaves) and whose answer was never recorded: the daemon stopped while it was in flight (error says so). It counts toward retry_policy.max_attempts; the receiver may have got it (dedupe on workflow.execution_id and the step id)",
    }),
    attempt: z.number().int().meta({ description: '1 for the first attempt' }),
    result: z
      .unknown()
      .meta({ description: 'What the step produced; secrets shown as [secret:NAME]' }),
    error: ErrorInfo.nullable(),
    duration_ms: z.number().int().nullable().meta({
      description:
        'completed_at minus started_at, on the daemon clock (the sandbox clock: 0 on a frozen one, the whole wait for a wait step skipped with svc clock advance); null while running',
    }),
    elapsed_ms: z.number().int().nullable().meta({
      description:
        'How long the attempt took in real time (the machine clock, whatever the sandbox clock did: a frozen clock does not stop it, svc clock advance does not add to it); null while running, and for attempts stored by an older svc',
    }),
    started_at: Timestamp.meta({ description: 'On the daemon clock (the sandbox clock)' }),
    completed_at: Timestamp.nullable().meta({
      description: 'On the daemon clock (the sandbox clock)',
    }),
    injected_fault: z.string().nullable().meta({
      description:
        'Sandbox: the fault rule (flt_..., svc faults) that produced this attempt, else null',
    }),
    wakes_at: Timestamp.nullable().meta({
      description:
        "When a step that is waiting (a wait step) or retrying (a retry's backoff) goes on, on the daemon clock (the sandbox clock: svc clock advance moves it there); null for every other status. The step goes on at this time or at the first clock move that passes it",
    }),
  })
  .meta({ title: 'WorkflowStepResult' });

export type StepResultView = z.infer<typeof StepResult>;

export const WorkflowExecution = z
  .object({
    execution_id: z.string(),
    workflow_id: z.string(),
    workflow_name: z.string(),
    status: z.enum(WORKFLOW_EXECUTION_STATUSES),
    trigger: z.object({ type: z.enum(TRIGGER_TYPES) }),
    input: z.record(z.string(), z.unknown()),
    current_step: z.string().nullable().meta({ description: 'The step running or waiting now' }),
    steps_completed: z.number().int().meta({
      description: 'Steps that completed; a failed step does not count, even when the run goes on',
    }),
    steps_total: z.number().int(),
    step_results: z.array(StepResult).meta({ description: 'One entry per step attempt, in order' }),
    result: z
      .unknown()
      .meta({ description: 'The last finished step result (null until completed)' }),
    error: ErrorInfo.nullable(),
    failed_step: z.string().nullable(),
    duration_seconds: z.number().nullable().meta({
      description:
        'From created_at to the end, on the daemon clock (the sandbox clock: 0 on a frozen one); null until the run ends',
    }),
    elapsed_ms: z.number().int().nullable().meta({
      description:
        'How long the run took from start to end in real time (the machine clock, whatever the sandbox clock did); null until it ends, and for runs stored by an older svc',
    }),
    created_at: Timestamp.meta({ description: 'On the daemon clock (the sandbox clock)' }),
    completed_at: Timestamp.nullable(),
    cancelled_at: Timestamp.nullable(),
    rerun_of: z.string().nullable().meta({
      description: 'The run this one re-runs (POST .../executions/{execution_id}/rerun), else null',
    }),
    from_step_id: z.string().nullable().meta({
      description:
        'A re-run from a step: the step it started at (earlier steps keep the original results)',
    }),
    reruns: z
      .array(z.string())
      .meta({ description: 'The re-runs of this run, oldest first (their execution ids)' }),
  })
  .meta({ title: 'WorkflowExecution' });

export type WorkflowExecutionView = z.infer<typeof WorkflowExecution>;

/**
 * What execute answers: the four fields of the accepted form always, the whole execution when
 * the caller waited.
 */
export const ExecuteAnswer = WorkflowExecution.partial()
  .required({ execution_id: true, workflow_id: true, status: true, created_at: true })
  .meta({ title: 'WorkflowExecuteAnswer' });

export type ExecuteAnswerView = z.infer<typeof ExecuteAnswer>;

export const ExecutionListQuery = ListQuery.extend({
  status: z.enum(WORKFLOW_EXECUTION_STATUSES).optional(),
});

export const ExecutionParams = z.strictObject({
  workflow_id: z.string().max(100),
  execution_id: z.string().max(100),
});

/** GET /v1/executions/{execution_id}: a run found by its id alone (run ids are unique). */
export const ExecutionIdParams = z.strictObject({ execution_id: z.string().max(100) });

export const CancelledExecution = z
  .object({
    execution_id: z.string(),
    status: z.literal('cancelled'),
    cancelled_at: Timestamp,
  })
  .meta({ title: 'CancelledExecution' });

/** data of workflow.execution.step_completed. */
export interface StepCompletedData {
  execution_id: string;
  workflow_id: string;
  step_id: string;
  step_name: string;
  step_type: StepType;
  status: 'completed' | 'failed';
  attempt: number;
  result: unknown;
  error: { code: string; message: string } | null;
  duration_ms: number;
}

/** data of workflow.execution.failed: exactly the spec's fields. */
export interface ExecutionFailedData {
  execution_id: string;
  workflow_id: string;
  workflow_name: string;
  /** cancelled too: a cancelled run publishes workflow.execution.failed (the spec has no cancelled event). */
  status: 'failed' | 'timeout' | 'cancelled';
  failed_step: string | null;
  error: {
    code: string;
    message: string;
    details: { step_id: string | null; agent_id: string | null };
  };
  steps_completed: number;
  steps_total: number;
  created_at: string;
  failed_at: string;
}

// --- secrets (control channel) -------------------------------------------------------------

export const SecretName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'letters, digits and _, not starting with a digit')
  .refine((name) => !isReservedSecretName(name), {
    error: (issue) => reservedSecretNameProblem(String(issue.input)),
  });

export const SecretSetInput = z.strictObject({
  workspace_id: z.string().optional(),
  name: SecretName,
  value: z.string().min(1).max(10_000),
});

export const SecretListInput = z.strictObject({ workspace_id: z.string().optional() }).optional();

export const SecretDeleteInput = z.strictObject({
  workspace_id: z.string().optional(),
  name: SecretName,
});

export const SecretInfo = z.object({
  name: z.string(),
  workspace_id: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export type SecretInfoView = z.infer<typeof SecretInfo>;
