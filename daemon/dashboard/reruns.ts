// A re-run from a step starts with the original run's earlier step rows as its own (their
// results in scope, not run again). They keep the original's times, so a timeline that placed
// them on the re-run's axis would show them running before the re-run began: the run page shows
// them apart, marked as copied. They are the leading rows, those that began before the re-run did.
import type { WorkflowExecutionView } from '../../shared/schemas/workflows.js';

/** How many of the run's first step results were copied from the run it re-runs. */
export function copiedStepCount(run: WorkflowExecutionView): number {
  if (!run.rerun_of || !run.from_step_id) return 0;
  const start = Date.parse(run.created_at);
  const own = run.step_results.findIndex(
    (entry) => entry.step_id === run.from_step_id || Date.parse(entry.started_at) >= start,
  );
  return own === -1 ? run.step_results.length : own;
}
