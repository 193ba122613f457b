// svc workflows wait <wex> --status completed (and the testing kit's sb.runs.wait): answers the
// run as soon as it shows one of the awaited statuses, woken by the run's committed changes.
// A run that ends in another status cannot come back: that is refused at once, not at timeout.
// Nor does a run parked on the frozen sandbox clock go on by itself (a wait or a retry for a
// later time, an approval): that is refused at once too (run_parked), saying when it wakes and
// what moves it on, in the words of whoever waits (svc commands, or the testing kit's calls).
import type { WorkflowExecutionView } from '../../shared/schemas/workflows.js';
import { advanceBy, formatDuration } from '../../shared/duration.js';
import { ApiError } from '../domain/errors.js';
import type { RunChange } from '../engine/engine.js';
import type { PendingStep } from '../engine/run-activity.js';
import { toIso } from '../time/clock.js';

export interface RunWaitDeps {
  find(executionId: string): WorkflowExecutionView | undefined;
  onRunChange(listener: (change: RunChange) => void): () => void;
  /**
   * The pending steps of a run that cannot go on by itself: the sandbox clock is frozen, no step
   * runs and none is due. Undefined when it can (or has ended).
   */
  parkedSteps(executionId: string): PendingStep[] | undefined;
  /** The sandbox clock. */
  now(): number;
}

/** What moves a parked run on, in the words of the one who waits. */
export interface Words {
  advance(by: string): string;
  decide(agentExecutionId: string): string;
  /** The general hint of a wait that timed out. */
  timedOut: string;
}

export const CLI_WORDS: Words = {
  advance: (by) => `svc clock advance ${by}`,
  decide: (id) => `svc approvals approve|reject ${id}`,
  timedOut:
    'A run that waits for a later time goes on only when the clock moves (svc clock advance); one awaiting approval, once it is decided (svc approvals).',
};

export const KIT_WORDS: Words = {
  advance: (by) => `await sb.clock.advance('${by}')`,
  decide: (id) => `await sb.approvals.approve('${id}') (or .reject)`,
  timedOut:
    'A run that waits for a later time goes on only when the clock moves (sb.clock.advance); one awaiting approval, once it is decided (sb.approvals.approve or reject).',
};

const ENDED = new Set(['completed', 'failed', 'cancelled', 'timeout']);
/**
 * A second look this often (real time), beside the change notices: svc state import|reset
 * replaces the engine, and a listener on the old one hears nothing more.
 */
const LOOK_AGAIN_MS = 250;

export function waitForStatus(
  deps: RunWaitDeps,
  executionId: string,
  statuses: readonly string[],
  timeoutMs: number,
  words: Words = CLI_WORDS,
): Promise<WorkflowExecutionView> {
  const wanted = new Set(statuses);
  const awaited = statuses.join(' or ');
  return new Promise((resolve, reject) => {
    let stopListening = (): void => undefined;
    // Set once the first look has not answered (it may answer before they exist).
    const pending: { timer?: NodeJS.Timeout; ticker?: NodeJS.Timeout } = {};
    const finish = (outcome: () => void) => {
      stopListening();
      clearTimeout(pending.timer);
      clearInterval(pending.ticker);
      outcome();
    };
    const look = (): boolean => {
      const view = deps.find(executionId);
      if (!view) {
        finish(() =>
          reject(
            new ApiError(
              'execution_not_found',
              `No run ${executionId}. List a workflow's runs with: svc workflows executions wfl_...`,
            ),
          ),
        );
        return true;
      }
      if (wanted.has(view.status)) {
        finish(() => resolve(view));
        return true;
      }
      if (ENDED.has(view.status)) {
        finish(() => reject(new ApiError('conflict', `${describeRun(view)}, not ${awaited}.`)));
        return true;
      }
      const parked = parkedMessage(deps, view, words);
      if (parked) {
        finish(() =>
          reject(
            new ApiError('run_parked', `${parked} (waited for ${awaited})`, {
              extras: { execution_status: view.status },
            }),
          ),
        );
        return true;
      }
      return false;
    };
    if (look()) return;
    stopListening = deps.onRunChange((change) => {
      if (change.execution_id === executionId) look();
    });
    pending.ticker = setInterval(look, LOOK_AGAIN_MS);
    pending.timer = setTimeout(() => {
      if (look()) return;
      const view = deps.find(executionId);
      finish(() =>
        reject(
          new ApiError(
            'wait_timeout',
            `${view ? describeRun(view) : `Run ${executionId}`} after ${formatDuration(timeoutMs)}, not ${awaited}. ${words.timedOut}`,
          ),
        ),
      );
    }, timeoutMs);
  });
}

/** "Run wex_1 is waiting (at step pause)", "Run wex_1 ended failed at step call: ...". */
function describeRun(view: WorkflowExecutionView): string {
  if (ENDED.has(view.status)) {
    const why = view.error ? `: ${view.error.code}: ${view.error.message}` : '';
    const where = view.failed_step ? ` at step ${view.failed_step}` : '';
    return `Run ${view.execution_id} ended ${view.status}${where}${why}`;
  }
  const at = view.current_step ? ` (at step ${view.current_step})` : '';
  return `Run ${view.execution_id} is ${view.status}${at}`;
}

/**
 * Why a run cannot go on by itself, when it cannot (the sandbox clock is frozen, no step runs
 * and none is due): "Run wex_1 is parked on the frozen sandbox clock: step pause wakes at ...;
 * move the clock there with: svc clock advance 1h."; undefined when it can, or has ended.
 */
export function parkedMessage(
  deps: Pick<RunWaitDeps, 'parkedSteps' | 'now'>,
  view: WorkflowExecutionView,
  words: Words,
): string | undefined {
  if (ENDED.has(view.status)) return undefined;
  const steps = deps.parkedSteps(view.execution_id);
  if (!steps) return undefined;
  return `Run ${view.execution_id} is parked on the frozen sandbox clock: ${parkedText(view, steps, deps.now(), words)}`;
}

/**
 * "step pause waits until 2026-01-05T10:00:00.000Z (1h from now on the sandbox clock); move the
 * clock there with: svc clock advance 1h", "step review awaits a decision on exec_...: ...".
 */
function parkedText(
  view: WorkflowExecutionView,
  steps: PendingStep[],
  now: number,
  words: Words,
): string {
  const parts: string[] = [];
  const wakes = steps.flatMap((step) => (step.wake_at === null ? [] : [step.wake_at]));
  const first = Math.min(...wakes);
  for (const step of steps) {
    if (step.state === 'awaiting_approval') {
      const result = [...view.step_results]
        .reverse()
        .find((r) => r.step_id === step.step_id && r.status === 'awaiting_approval');
      const id = (result?.result as { agent_execution_id?: unknown } | null | undefined)
        ?.agent_execution_id;
      parts.push(
        typeof id === 'string'
          ? `step ${step.step_id} awaits a decision on ${id}: ${words.decide(id)}`
          : `step ${step.step_id} awaits a decision`,
      );
    } else if (step.wake_at !== null) {
      const verb = step.state === 'retrying' ? 'retries at' : 'wakes at';
      parts.push(
        `step ${step.step_id} ${verb} ${toIso(step.wake_at)} (${formatDuration(step.wake_at - now)} from now on the sandbox clock)`,
      );
    } else {
      parts.push(`step ${step.step_id} waits for the sandbox clock`);
    }
  }
  if (wakes.length > 0) {
    parts.push(`move the clock there with: ${words.advance(advanceBy(first - now))}`);
  }
  return `${parts.join('; ')}.`;
}
