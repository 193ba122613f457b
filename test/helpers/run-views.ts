// Executions and step results as the daemon reports them, every field filled, for the unit tests
// of the CLI's run views (run-view-*, cli-workflows): a test gives only what it is about.
import type { Execution, StepResult, WorkflowStep } from '../../cli/workflow-views.js';

/** Step `id` of `steps`, running since `startedAt` unless `partial` says otherwise. */
export function stepResult(
  steps: readonly WorkflowStep[],
  id: string,
  partial: Partial<StepResult>,
  startedAt: string,
): StepResult {
  const known = steps.find((candidate) => candidate.id === id)!;
  return {
    step_id: id,
    step_name: known.name,
    type: known.type,
    status: 'running',
    attempt: 1,
    result: null,
    error: null,
    duration_ms: null,
    elapsed_ms: null,
    injected_fault: null,
    wakes_at: null,
    started_at: startedAt,
    completed_at: null,
    ...partial,
  };
}

/** A running execution `wex_1` of workflow `wfl_1` made at `createdAt`; `partial` overrides. */
export function execution(createdAt: string, partial: Partial<Execution>): Execution {
  return {
    execution_id: 'wex_1',
    workflow_id: 'wfl_1',
    workflow_name: 'Test',
    status: 'running',
    trigger: { type: 'manual' },
    input: {},
    current_step: null,
    steps_completed: 0,
    steps_total: 0,
    step_results: [],
    result: null,
    error: null,
    failed_step: null,
    duration_seconds: null,
    elapsed_ms: null,
    created_at: createdAt,
    completed_at: null,
    cancelled_at: null,
    rerun_of: null,
    from_step_id: null,
    reruns: [],
    ...partial,
  };
}
