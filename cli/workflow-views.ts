// Shapes the CLI reads from the workflows API, and their human renderings (shared by the
// workflows commands and the live run view). Only the fields the CLI shows are named.

export interface WorkflowStep {
  id: string;
  name: string;
  type: string;
  agent_id?: string | null;
  next_step_id?: string | null;
  on_error?: string | null;
  config?: Record<string, unknown>;
}

export interface Workflow {
  id: string;
  name: string;
  description?: string | null;
  status: string;
  trigger: { type: string; config?: Record<string, unknown> };
  steps: WorkflowStep[];
  settings: {
    timeout_seconds?: number;
    retry_policy?: { max_attempts?: number; backoff_multiplier?: number };
    error_handling?: string;
  };
  last_executed_at: string | null;
  stats: { total_executions: number; success_rate: number; avg_duration_seconds: number };
  created_at: string;
}

export interface ErrorInfo {
  code: string;
  message: string;
  details?: Record<string, unknown> | null;
}

export interface StepResult {
  step_id: string;
  status: string;
  result?: unknown;
  duration_ms?: number | null;
  started_at?: string | null;
  error?: ErrorInfo | null;
}

export interface Execution {
  execution_id: string;
  workflow_id: string;
  status: string;
  current_step?: string | null;
  steps_completed?: number;
  steps_total?: number;
  step_results?: StepResult[];
  result?: unknown;
  error?: ErrorInfo | null;
  failed_step?: string | null;
  duration_seconds?: number | null;
  created_at: string;
  completed_at?: string | null;
  cancelled_at?: string | null;
}

export const TERMINAL_STATUSES = new Set(['completed', 'failed', 'cancelled', 'timeout']);

export function isTerminal(execution: Pick<Execution, 'status'>): boolean {
  return TERMINAL_STATUSES.has(execution.status);
}

/** A run that did not end well: the CLI exits 1 for these. */
export function endedBadly(execution: Pick<Execution, 'status'>): boolean {
  return (
    execution.status === 'failed' ||
    execution.status === 'cancelled' ||
    execution.status === 'timeout'
  );
}

/** The step that made the run fail and its error, from wherever the execution view says it. */
export function failure(execution: Execution): {
  stepId: string | undefined;
  error: ErrorInfo | undefined;
} {
  const failedResult = [...(execution.step_results ?? [])]
    .reverse()
    .find((step) => step.status === 'failed');
  const stepId =
    execution.failed_step ??
    (typeof execution.error?.details?.step_id === 'string'
      ? execution.error.details.step_id
      : undefined) ??
    failedResult?.step_id ??
    execution.current_step ??
    undefined;
  const fromStep = failedResult?.error ?? errorInResult(failedResult?.result);
  return { stepId, error: execution.error ?? fromStep };
}

function errorInResult(result: unknown): ErrorInfo | undefined {
  if (!result || typeof result !== 'object') return undefined;
  const error = (result as { error?: unknown }).error;
  if (error && typeof error === 'object' && typeof (error as ErrorInfo).code === 'string')
    return error as ErrorInfo;
  return undefined;
}

/** "failed at step check (Check amount): step_failed: ..." */
export function failureLine(execution: Execution, steps: WorkflowStep[]): string {
  const { stepId, error } = failure(execution);
  const step = steps.find((candidate) => candidate.id === stepId);
  const where = stepId ? ` at step ${stepId}${step ? ` (${step.name})` : ''}` : '';
  const why = error ? `: ${error.code}: ${error.message}` : '';
  if (execution.status === 'timeout') {
    return `Run ${execution.execution_id} timed out${where}${why || ' (settings.timeout_seconds passed)'}`;
  }
  if (execution.status === 'cancelled')
    return `Run ${execution.execution_id} was cancelled${where}`;
  return `Run ${execution.execution_id} failed${where}${why}`;
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '-';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return `${minutes}m${String(seconds).padStart(2, '0')}s`;
}

/** A value on one line, cut to `width` characters. */
export function brief(value: unknown, width = 60): string {
  if (value === undefined) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === undefined) return '';
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}
