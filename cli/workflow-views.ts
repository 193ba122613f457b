// What the CLI makes of the workflows API's answers (types from the shared schemas): the failed
// step and its error, durations, one-line values; shared by the commands and the live run view.

import type {
  StepResultView,
  WorkflowExecutionView,
  WorkflowStepView,
  WorkflowView,
} from '../shared/schemas/workflows.js';
import { formatDuration as humanDuration } from '../shared/duration.js';

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

/** A duration in the shared human form (2.35s, 24h 0m 1s); - when there is none yet. */
export function formatDuration(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '-' : humanDuration(ms);
}

/** A value on one line, cut to `width` characters. */
export function brief(value: unknown, width = 60): string {
  if (value === undefined) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === undefined) return '';
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}

/**
 * An error's details in words, for the lines under a failed run ("Its agent: agt_1 (show it
 * with: svc agents get agt_1)."); what the failure line already says (the step) and empty
 * fields are left out. Undefined when nothing is left to say.
 */
export function detailsInWords(
  details: Record<string, unknown> | null | undefined,
  namedStep: string | undefined,
): string | undefined {
  const sentences: string[] = [];
  for (const [key, value] of Object.entries(details ?? {})) {
    if (value === null || value === undefined || value === '') continue;
    if (key === 'step_id') {
      if (value !== namedStep) sentences.push(`It failed in step ${String(value)}.`);
    } else if (key === 'agent_id') {
      sentences.push(
        `Its agent: ${String(value)} (show it with: svc agents get ${String(value)}).`,
      );
    } else {
      sentences.push(`${key.replace(/_/g, ' ')}: ${brief(value, 200)}.`);
    }
  }
  return sentences.length ? sentences.join(' ') : undefined;
}
