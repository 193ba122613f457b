// A run's stored state (the frontier) and how a run is shown: the execution view of the API and
// of the workflow.execution.* events.
import type {
  ExecutionFailedData,
  StepResultView,
  WorkflowExecutionView,
} from '../../shared/schemas/workflows.js';
import type { RunState } from '../store/run-state.js';
import { REAL_TIME, toIso } from '../time/clock.js';
import type { Definition } from './ports.js';
import type { RunRow, StepRunRow } from './run.repository.js';

// A run's stored state is read and written by store/run-state.ts alone (versioned, validated,
// upgraded on read); the engine works on the current version's types.
export type { Activation, Join, RunState } from '../store/run-state.js';

/** Real time now (epoch ms): for elapsed times only; everything else reads the daemon clock. */
export function realNow(): number {
  return REAL_TIME.now();
}

/** Real milliseconds since `realStart`; null when it is unknown (stored by an older svc). */
export function elapsedSince(realStart: number | undefined | null): number | null {
  return realStart === undefined || realStart === null ? null : Math.max(0, realNow() - realStart);
}

const ACTIVE_STATUS = {
  ready: 'running',
  waiting: 'waiting',
  awaiting_approval: 'awaiting_approval',
  retrying: 'retrying',
} as const;

export function executionView(
  row: RunRow,
  state: RunState,
  definition: Definition,
  steps: readonly StepRunRow[],
  /** row.input parsed, when the caller has it. */
  input: unknown = JSON.parse(row.input),
  /** The runs that re-run this one. */
  reruns: string[] = [],
): WorkflowExecutionView {
  // An attempt in flight here shows as its activation (running), not as its row.
  const inFlight = new Set(state.acts.flatMap((act) => act.sent_seq ?? []));
  const stepResults: StepResultView[] = [];
  for (const step of steps) {
    if (inFlight.has(step.seq)) continue;
    const def = definition.byId.get(step.step_id);
    // Unknown: its call was sent and its answer never stored (the run went on without it).
    const ended = step.status !== 'unknown';
    stepResults.push({
      step_id: step.step_id,
      step_name: def?.name ?? step.step_id,
      type: def?.type ?? 'agent_action',
      status: step.status,
      attempt: step.attempt,
      result: step.result === null ? null : (JSON.parse(step.result) as unknown),
      error:
        step.error_code === null
          ? null
          : { code: step.error_code, message: step.error_message ?? '' },
      duration_ms: ended ? step.completed_at - step.started_at : null,
      elapsed_ms: ended ? (step.elapsed_ms ?? null) : null,
      started_at: toIso(step.started_at),
      completed_at: ended ? toIso(step.completed_at) : null,
      injected_fault: step.injected_fault ?? null,
      wakes_at: null,
    });
  }
  for (const act of state.acts) {
    const def = definition.byId.get(act.step_id);
    stepResults.push({
      step_id: act.step_id,
      step_name: def?.name ?? act.step_id,
      type: def?.type ?? 'agent_action',
      status: ACTIVE_STATUS[act.state],
      attempt: act.attempt,
      // Who decides an approval: POST /v1/agents/{agent_id}/executions/{agent_execution_id}/approve.
      result:
        act.state === 'awaiting_approval' && act.agent_execution_id
          ? { agent_id: def?.agent_id ?? null, agent_execution_id: act.agent_execution_id }
          : null,
      error: null,
      duration_ms: null,
      elapsed_ms: null,
      started_at: toIso(act.started_at),
      completed_at: null,
      injected_fault: null,
      // The time its durable timer is due: the same stored wake_at the dashboard's run page
      // and svc settle read.
      wakes_at:
        act.state === 'waiting' || act.state === 'retrying' ? toIso(act.wake_at ?? null) : null,
    });
  }
  const ended = row.completed_at ?? row.cancelled_at;
  return {
    execution_id: row.id,
    workflow_id: row.workflow_id,
    workflow_name: definition.name,
    status: row.status,
    trigger: { type: row.trigger_type as WorkflowExecutionView['trigger']['type'] },
    input: input as Record<string, unknown>,
    current_step: state.acts[0]?.step_id ?? null,
    steps_completed: row.steps_completed,
    steps_total: definition.steps.length,
    step_results: stepResults,
    result: row.result === null ? null : (JSON.parse(row.result) as unknown),
    error:
      row.error_code === null
        ? null
        : {
            code: row.error_code,
            message: row.error_message ?? '',
            details: { step_id: row.failed_step, agent_id: row.failed_agent_id },
          },
    failed_step: row.failed_step,
    duration_seconds: ended === null ? null : (ended - row.created_at) / 1000,
    elapsed_ms:
      row.real_started_at === null || row.real_ended_at === null
        ? null
        : Math.max(0, row.real_ended_at - row.real_started_at),
    created_at: toIso(row.created_at),
    completed_at: toIso(row.completed_at),
    cancelled_at: toIso(row.cancelled_at),
    rerun_of: row.rerun_of ?? null,
    from_step_id: row.from_step_id ?? null,
    reruns,
  };
}

/**
 * Inputs whose stored JSON is larger than this (bytes) are left out of the run's
 * workflow.execution.started and .completed events.
 */
export const EVENT_INPUT_MAX_BYTES = 16_384;

/**
 * The data of a run's workflow.execution.started and .completed events: its execution view, with
 * `input_bytes`, the size of its input's stored JSON, and the input itself only up to
 * EVENT_INPUT_MAX_BYTES. A larger input (a webhook body may be 1 MiB) copied into both events
 * was written and sent twice more per run, and stringified twice on the event loop: twenty
 * concurrent 900 KB hook bodies held /healthz for seconds (issue 38). The spec's execution object
 * has no input; GET .../executions/{id} shows it whole.
 */
export function executionEventData(
  view: WorkflowExecutionView,
  inputText: string,
): Record<string, unknown> {
  const input_bytes = Buffer.byteLength(inputText);
  if (input_bytes <= EVENT_INPUT_MAX_BYTES) return { ...view, input_bytes };
  const { input: _left, ...rest } = view;
  return { ...rest, input_bytes };
}

/** The data of a run's workflow.execution.failed event (failed, timeout or cancelled). */
export function failedEventData(
  row: RunRow,
  definition: Definition,
  now: number,
): ExecutionFailedData {
  return {
    execution_id: row.id,
    workflow_id: row.workflow_id,
    workflow_name: definition.name,
    status: row.status as ExecutionFailedData['status'],
    failed_step: row.failed_step,
    error: {
      code: row.error_code ?? 'step_failed',
      message: row.error_message ?? 'The run failed.',
      details: { step_id: row.failed_step, agent_id: row.failed_agent_id },
    },
    steps_completed: row.steps_completed,
    steps_total: definition.steps.length,
    created_at: new Date(row.created_at).toISOString(),
    failed_at: new Date(row.completed_at ?? row.cancelled_at ?? now).toISOString(),
  };
}
