// What the engine needs from the modules above it, as interfaces it owns: the engine imports
// none of those modules; the composition root (app/services.ts) passes their implementations.
import type { WorkflowStepView } from '../../shared/schemas/workflows.js';

export interface WorkflowSettings {
  timeout_seconds: number;
  retry_policy: { max_attempts: number; backoff_multiplier: number };
  error_handling: 'stop' | 'continue';
}

/** What a run needs of its workflow: the steps and settings of one version, parsed once. */
export interface Definition {
  workflowId: string;
  version: number;
  name: string;
  steps: WorkflowStepView[];
  byId: ReadonlyMap<string, WorkflowStepView>;
  settings: WorkflowSettings;
  /**
   * Set when this version breaks a bound added after it was stored (the expression budget):
   * its runs fail at once with this message, naming the step, instead of compiling it.
   */
  refusal?: { stepId: string; message: string };
}

/** The workflows runs start from (implemented by workflows/workflow.service.ts). */
export interface WorkflowCatalog {
  /** The workflow's current version; workflow_not_found when it is not in the workspace. */
  configuredRow(workspaceId: string, workflowId: string): { id: string; version: number };
  /** One version's parsed definition; undefined when that version is not stored. */
  definition(workflowId: string, version: number): Definition | undefined;
  /** A run started: the workflow's run counters and last-run time. */
  recordStart(workflowId: string, at: number): void;
  /** A run ended: success counters and mean duration. */
  recordEnd(workflowId: string, succeeded: boolean, durationMs: number): void;
}
