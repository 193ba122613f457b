// Runs as the API shows them: by id, a page of them, and right after a transition (the view its
// workflow.execution.* event carries). A request that waited for a run gets the very view its
// completed event carried, built once.
import type { WorkflowExecutionView } from '../../shared/schemas/workflows.js';
import type { WorkflowCatalog } from './ports.js';
import { MEMORY_LIMIT, type RunMemory } from './run-memory.js';
import type { RunRepository, RunRow } from './run.repository.js';
import { definitionOf, type Transition } from './transition.js';
import { executionView } from './views.js';
import { readRunState } from '../store/run-state.js';

export interface RunViewsDeps {
  repo: Pick<RunRepository, 'get' | 'steps' | 'stepsOfRuns' | 'rerunsOf' | 'rerunsOfRuns'>;
  workflows: WorkflowCatalog;
  memory: RunMemory;
}

export class RunViews {
  /** The final view of runs someone waits for, built once for the event and the answer. */
  private readonly finalViews = new Map<string, WorkflowExecutionView>();

  constructor(private readonly deps: RunViewsDeps) {}

  /** Kept for the request that waits for the run (see viewOf). */
  keepFinal(executionId: string, view: WorkflowExecutionView): void {
    if (this.finalViews.size > MEMORY_LIMIT) this.finalViews.clear();
    this.finalViews.set(executionId, view);
  }

  /** The run as the API shows it; for a run that just ended, the view its event carried. */
  viewOf(row: RunRow): WorkflowExecutionView {
    const final = this.finalViews.get(row.id);
    if (final) {
      this.finalViews.delete(row.id);
      if (final.status === row.status) return final;
    }
    return this.view(row);
  }

  /** A run by id as the API shows it (no workspace check: callers have done it). */
  find(executionId: string): WorkflowExecutionView | undefined {
    const row = this.deps.repo.get(executionId);
    return row && this.view(row);
  }

  /** The run as the API shows it. */
  view(row: RunRow): WorkflowExecutionView {
    return this.views([row])[0]!;
  }

  /** Runs as the API shows them (a page of a list): their step rows and re-runs in two reads. */
  views(rows: readonly RunRow[]): WorkflowExecutionView[] {
    const { repo, workflows } = this.deps;
    const ids = rows.map((row) => row.id);
    const steps = repo.stepsOfRuns(ids);
    const reruns = repo.rerunsOfRuns(ids);
    return rows.map((row) =>
      executionView(
        row,
        readRunState(row.frontier, row.id),
        definitionOf(workflows, row),
        steps.get(row.id) ?? [],
        undefined,
        reruns.get(row.id),
      ),
    );
  }

  /** The run after a transition; its step rows are read only if it did not write them all. */
  after(t: Transition): WorkflowExecutionView {
    const { repo, memory } = this.deps;
    const all = t.recorded.length > 0 && t.recorded[0]!.seq === 0;
    const steps = all ? t.recorded : repo.steps(t.row.id);
    const trigger = memory.triggerOf(t.row.id);
    return executionView(
      t.row,
      t.state,
      t.definition,
      steps,
      trigger ? trigger.payload : undefined,
      // A run that just started has no re-runs: only ending ones look.
      t.stored === null ? [] : repo.rerunsOf(t.row.id),
    );
  }
}
