// svc workflows wait <wex> --status completed (and the testing kit's sb.runs.wait): answers the
// run as soon as it shows one of the awaited statuses, woken by the run's committed changes.
// A run that ends in another status cannot come back: that is refused at once, not at timeout.
import type { WorkflowExecutionView } from '../../shared/schemas/workflows.js';
import { formatDuration } from '../../shared/duration.js';
import { ApiError } from '../domain/errors.js';
import type { RunChange } from '../engine/engine.js';

export interface RunWaitDeps {
  find(executionId: string): WorkflowExecutionView | undefined;
  onRunChange(listener: (change: RunChange) => void): () => void;
}

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
            `${view ? describeRun(view) : `Run ${executionId}`} after ${formatDuration(timeoutMs)}, not ${awaited}. A run that waits for a later time goes on only when the clock moves (svc clock advance); one awaiting approval, once it is decided.`,
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
