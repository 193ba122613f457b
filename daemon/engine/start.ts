// A run's start: the one entry point of every trigger (manual, webhook, schedule, event) and of
// re-runs. Its first row, frontier and started event are written in one transaction, the
// caller's if it has one; with `inline`, the first steps that need no waiting run in it too.
// A re-run from a step copies the original's earlier step rows as its own history.
import { newId } from '../../shared/ids.js';
import type { WorkflowExecutionView } from '../../shared/schemas/workflows.js';
import type { Transactions } from '../domain/transactions.js';
import type { EventService } from '../events/event.service.js';
import { writeRunState } from '../store/run-state.js';
import type { Clock } from '../time/clock.js';
import type { Definition, WorkflowCatalog } from './ports.js';
import type { RunChanges } from './run-changes.js';
import type { RunEnd } from './run-end.js';
import { completedResults, type RunMemory } from './run-memory.js';
import type { RunRepository, RunRow, StepRunRow } from './run.repository.js';
import type { Transition } from './transition.js';
import type { Transitions } from './transitions.js';
import { executionEventData, executionView, realNow, type RunState } from './views.js';

export type TriggerType = 'manual' | 'webhook' | 'schedule' | 'event';

export interface StartOptions {
  /** The run's input; trigger.payload unless the trigger carries its own payload. */
  input: Record<string, unknown>;
  trigger?: { type: TriggerType; payload?: unknown; headers?: Record<string, string> };
  /**
   * The payload's JSON text when the caller received it as such (a webhook trigger's raw body):
   * stored as the run's input as it is, instead of stringifying the parsed payload again.
   */
  payloadText?: string;
  /**
   * Run the first steps that need only the store and the CPU in the caller's transaction (see
   * advance). Not from inside an event's publication: their events would start runs there.
   */
  inline?: boolean;
  /**
   * A re-run of `of`: it starts at `fromStepId` (else at the entry), with `keep` (the original's
   * step rows before that step) as its own history, their results in scope.
   */
  rerun?: { of: string; fromStepId?: string | undefined; keep: StepRunRow[] };
}

/** A run as it starts, before anything is stored. */
interface NewRun {
  row: RunRow;
  state: RunState;
  /** The step rows a re-run copies from its original, renumbered. */
  kept: StepRunRow[];
  /** The trigger's payload (the run's input). */
  payload: unknown;
}

/** The new run's row and frontier: its entry step (or the re-run's) ready, its deadline set. */
function newRun(
  workspaceId: string,
  workflow: { id: string; version: number },
  definition: Definition,
  options: StartOptions,
  now: number,
): NewRun {
  const payload = options.trigger?.payload ?? options.input;
  const id = newId('workflowExecution');
  const entry = options.rerun?.fromStepId ?? definition.steps[0]!.id;
  // A re-run from a step: the original's earlier step rows become this run's own.
  const kept: StepRunRow[] = (options.rerun?.keep ?? []).map((step, seq) => ({
    ...step,
    execution_id: id,
    seq,
  }));
  const lastKept = kept.findLastIndex((step) => step.status === 'completed');
  // One reading for the run and its first step: a step's real time never exceeds its run's.
  const realStart = realNow();
  const state: RunState = {
    n: 1,
    seq: kept.length,
    acts: [
      {
        key: `${entry}#0`,
        step_id: entry,
        attempt: 1,
        branch: null,
        state: 'ready',
        started_at: now,
        real_started_at: realStart,
      },
    ],
    joins: [],
    last_seq: lastKept === -1 ? null : lastKept,
    armed: false,
    interpolated: 0,
    ...(options.trigger?.headers ? { headers: options.trigger.headers } : {}),
  };
  const row: RunRow = {
    id,
    workflow_id: workflow.id,
    workspace_id: workspaceId,
    version: workflow.version,
    status: 'running',
    trigger_type: options.trigger?.type ?? 'manual',
    input: options.payloadText ?? JSON.stringify(payload),
    frontier: writeRunState(state),
    steps_completed: kept.filter((step) => step.status === 'completed').length,
    result: null,
    error_code: null,
    error_message: null,
    failed_step: null,
    failed_agent_id: null,
    deadline_at: now + definition.settings.timeout_seconds * 1000,
    created_at: now,
    completed_at: null,
    cancelled_at: null,
    rerun_of: options.rerun?.of ?? null,
    from_step_id: options.rerun?.fromStepId ?? null,
    real_started_at: realStart,
    real_ended_at: null,
  };
  return { row, state, kept, payload };
}

export interface RunStarterDeps {
  db: Transactions;
  workflows: WorkflowCatalog;
  repo: Pick<RunRepository, 'insert' | 'insertStep'>;
  events: Pick<EventService, 'publish'>;
  clock: Clock;
  memory: RunMemory;
  transitions: Transitions;
  changes: RunChanges;
  ending: RunEnd;
}

export class RunStarter {
  constructor(private readonly deps: RunStarterDeps) {}

  /**
   * Stores a new run, in the caller's transaction if there is one. `ready`: it has steps to
   * start once that transaction has committed (none when it ended inline).
   */
  start(
    workspaceId: string,
    workflowId: string,
    options: StartOptions,
  ): { view: WorkflowExecutionView; row: RunRow; ready: boolean } {
    const { db, workflows, repo, events, clock, memory, transitions, changes, ending } = this.deps;
    const workflow = workflows.configuredRow(workspaceId, workflowId);
    const definition = workflows.definition(workflow.id, workflow.version)!;
    const now = clock.now();
    const { row, state, kept, payload } = newRun(workspaceId, workflow, definition, options, now);
    const view = executionView(row, state, definition, kept, payload);
    const store = () => {
      workflows.recordStart(workflow.id, now);
      for (const step of kept) repo.insertStep(step);
      events.publish(
        workspaceId,
        'workflow.execution.started',
        executionEventData(view, row.input),
      );
      if (definition.refusal) {
        // A stored version over a bound added since: the run fails at once, nothing compiled.
        const t: Transition = { row, state, definition, now, recorded: [], stored: null };
        ending.end(t, 'failed', {
          step: definition.refusal.stepId,
          agentId: null,
          code: 'invalid_step_config',
          message: definition.refusal.message,
        });
        transitions.commit(t);
        return;
      }
      if (!options.inline) {
        repo.insert(row);
        changes.announce(row);
        return;
      }
      // A new run has no step rows to read its memory from, and its trigger is at hand.
      memory.keep(row.id, completedResults(kept), {
        type: row.trigger_type,
        payload,
        headers: state.headers ?? {},
      });
      const t: Transition = { row, state, definition, now, recorded: [], stored: null };
      transitions.advance(t);
      transitions.commit(t);
    };
    if (db.inTransaction) store();
    else db.transaction(store)();
    return { view, row, ready: state.acts.some((act) => act.state === 'ready') };
  }
}
