// What the CLI makes of the workflows API's answers (types from the shared schemas): the failed
// step and its error, durations, one-line values; shared by the commands and the live run view.

import type {
  StepResultView,
  WorkflowExecutionView,
  WorkflowStepView,
  WorkflowView,
} from '../shared/schemas/workflows.js';

export type Workflow = WorkflowView;
/** A step as far as the CLI needs it (id, name, type; the rest when known), typed by its type. */
export type WorkflowStep = WorkflowStepView extends infer S
  ? S extends WorkflowStepView
    ? Pick<S, 'id' | 'name' | 'type'> & Partial<S>
    : never
  : never;
export type Execution = WorkflowExecutionView;
export type StepResult = StepResultView;
export type ErrorInfo = NonNullable<Execution['error']>;

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
  const failedResult = [...execution.step_results]
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
export function failureLine(execution: Execution, steps: WorkflowStep[] = []): string {
  const { stepId, error } = failure(execution);
  const name =
    steps.find((candidate) => candidate.id === stepId)?.name ??
    execution.step_results.find((result) => result.step_id === stepId)?.step_name;
  const where = stepId ? ` at step ${stepId}${name ? ` (${name})` : ''}` : '';
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
