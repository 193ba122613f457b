// What the engine's parts share about one transition and a stored run: the Transition being
// applied inside a transaction, which statuses are unfinished, a run's definition, and the run as
// stored right after a transition wrote it.
import type { Definition, WorkflowCatalog } from './ports.js';
import type { RunRepository, RunRow, RunStatus, StepRunRow } from './run.repository.js';
import type { RunState } from './views.js';

/** One transition being applied, inside a transaction. */
export interface Transition {
  row: RunRow;
  state: RunState;
  definition: Definition;
  now: number;
  /** The stored result of the last step this transition completed (the run's result if it ends). */
  lastResult?: string | null;
  /** The step rows this transition wrote (all of the run's when it began with none). */
  recorded: StepRunRow[];
  /**
   * The run's status in the store when the transition began (its list counter moves from it);
   * null when it is not stored yet: the start's transition inserts it once, as it ends up.
   */
  stored: RunStatus | null;
}

/** A run in one of these statuses can still change. */
export const UNFINISHED: ReadonlySet<RunStatus> = new Set(['running', 'awaiting_approval']);

/** The workflow version a run pinned; it is kept as long as the run (a PATCH adds versions). */
export function definitionOf(workflows: WorkflowCatalog, row: RunRow): Definition {
  const definition = workflows.definition(row.workflow_id, row.version);
  if (!definition) throw new Error(`workflow ${row.workflow_id} version ${row.version} is gone`);
  return definition;
}

/**
 * The run as stored. `written` is the row a transition wrote just before (a microtask ago):
 * it is the stored row if the store has its status (its transaction committed; rolled back,
 * the status differs or the row is gone), which is cheaper to check than to read the row.
 */
export function storedRow(
  repo: Pick<RunRepository, 'get' | 'status'>,
  executionId: string,
  written?: RunRow,
): RunRow | undefined {
  return written && repo.status(executionId) === written.status ? written : repo.get(executionId);
}
