// What a step sees when it runs (steps/kind.ts, StepContext): its run, its attempt, its config as
// the run's pinned version has it, the run's scope, secrets, and a way to wait on the daemon
// clock that `svc clock advance` does not wait for, and what its interpolation may still produce.
import { InterpolationBudget } from './expressions.js';
import type { WorkflowCatalog } from './ports.js';
import type { InFlight } from './in-flight.js';
import type { RunMemory } from './run-memory.js';
import type { RunRow } from './run.repository.js';
import type { StepContext } from './steps/kind.js';
import { definitionOf } from './transition.js';
import type { Activation, RunState } from './views.js';

export interface StepContextsDeps {
  workflows: WorkflowCatalog;
  memory: RunMemory;
  inFlight: InFlight;
  reveal(workspaceId: string, name: string): string | undefined;
}

export class StepContexts {
  constructor(private readonly deps: StepContextsDeps) {}

  /**
   * `detached`: the step runs outside the transaction that reached it (after the commit, in
   * this process): what it interpolates is reserved in the run's memory until its outcome is
   * recorded, so that the run's other steps running meanwhile count it too.
   */
  of(row: RunRow, state: RunState, act: Activation, detached = false): StepContext {
    const { workflows, memory, inFlight, reveal } = this.deps;
    const budget = new InterpolationBudget({
      stepId: act.step_id,
      // Read when the step interpolates, which may be after an await (a webhook step's call is
      // stored first): what the run's other steps recorded or reserved by then.
      before: () =>
        Math.max(state.interpolated, memory.interpolatedOf(row.id)) +
        memory.reservedBesides(row.id, act.key),
      ...(detached ? { onCharge: (used: number) => memory.reserve(row.id, act.key, used) } : {}),
    });
    return {
      workspaceId: row.workspace_id,
      executionId: row.id,
      workflowId: row.workflow_id,
      attempt: act.attempt,
      step: definitionOf(workflows, row).byId.get(act.step_id)!,
      scope: memory.scope(row, state),
      reveal: (name) => reveal(row.workspace_id, name),
      untilDue: (waiting) => inFlight.untilDue(row.id, act.key, waiting),
      budget,
    };
  }
}
