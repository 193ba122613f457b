// What the dashboard's JSON API answers beyond the REST API's views: the shapes the pages draw
// (a workflow's step graph, a run's lanes and what it waits for, a webhook trigger's curl, where
// an id lands) and the envelopes the pages read. Each route's output schema (the *.api.ts route
// tables) is built from these and from the REST views of shared/schemas, so a resource has one
// view wherever it is shown; the browser's types are inferred from them (contract.ts).
import { z } from 'zod';
import { Timestamp } from '../../shared/schemas/common.js';
import { ClockState } from '../../shared/schemas/control-output.js';
import { WorkflowExecution, WorkflowStep } from '../../shared/schemas/workflows.js';
import { ListOf } from './api-kit.js';

const EDGE_KINDS = ['next', 'on_error', 'if_true', 'if_false', 'branch'] as const;

/** A workflow's steps placed for drawing (step-graph.ts). */
export const StepGraph = z.object({
  nodes: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      type: z.string(),
      /** The row, 0 for the entry: one more than the lowest row of any step leading to it. */
      layer: z.number().int(),
      /** The place in its row, 0 first. */
      column: z.number().int(),
    }),
  ),
  edges: z.array(z.object({ from: z.string(), to: z.string(), kind: z.enum(EDGE_KINDS) })),
  /** The number of rows, and the number of places in the widest row. */
  layers: z.number().int(),
  columns: z.number().int(),
});
export type StepGraph = z.infer<typeof StepGraph>;

/** A lane of a run's timeline (lanes.ts). */
export const Lane = z.object({ key: z.string(), label: z.string(), step_ids: z.array(z.string()) });
export type Lane = z.infer<typeof Lane>;

/** How a webhook trigger is called (workflow-facts.ts). */
export const HookCall = z.object({
  url: z.string(),
  /** The trigger has a secret: requests must carry X-Svc-Signature. */
  signed: z.boolean(),
  /** A shell snippet that starts a run. */
  curl: z.string(),
});
export type HookCall = z.infer<typeof HookCall>;

/** The page that shows an id (locate.ts). */
export const Location = z.object({
  id: z.string(),
  kind: z.enum(['run', 'agent_execution', 'delivery', 'webhook', 'agent', 'workflow']),
  workspace_id: z.string(),
  /** The page's path and query, e.g. /ui/runs/wex_...?ws=ws_... */
  path: z.string(),
});
export type Location = z.infer<typeof Location>;

/** A run's page: the API's view, its definition's steps, what it waits for, and its drawing. */
export const RunDetail = z.object({
  execution: WorkflowExecution,
  /** The definition the run started with (its pinned version). */
  steps: z.array(WorkflowStep),
  /** Pending activations; a wait or a retry has the time it wakes up (daemon clock). */
  pending: z.array(
    z.object({
      step_id: z.string(),
      state: z.string(),
      attempt: z.number().int(),
      started_at: Timestamp,
      wake_at: Timestamp.nullable(),
      agent_execution_id: z.string().nullable(),
    }),
  ),
  lanes: z.array(Lane),
  graph: StepGraph,
  /** Steps a re-run copied from the run it re-ran, not run again. */
  copied_steps: z.number().int(),
});

/** The overview page: the daemon, its clock, the last hour's runs and what needs a person. */
export function overviewOf<W extends z.ZodType, A extends z.ZodType>(webhook: W, approval: A) {
  return z.object({
    clock: ClockState,
    environment: z.enum(['sandbox', 'production']),
    data_dir: z.string(),
    url: z.string(),
    version: z.string(),
    started_at: Timestamp,
    pending_timers: z.number().int(),
    /** Runs started in the last hour, by status. */
    runs_last_hour: z.record(z.string(), z.number().int()),
    failing_webhooks: ListOf(webhook),
    awaiting_approval: ListOf(approval),
  });
}
