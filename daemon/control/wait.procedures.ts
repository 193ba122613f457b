// The control channel's waits: svc settle and svc workflows wait (also the testing kit's
// sb.settle() and sb.runs.wait()). Both wait in real time, bounded by their timeout, so that
// they end even while the sandbox clock is frozen.
import { DEFAULT_WAIT_MS, RunWaitInput, SettleInput } from '../../shared/schemas/control.js';
import { Settled } from '../../shared/schemas/control-output.js';
import { WorkflowExecution } from '../../shared/schemas/workflows.js';
import type { ControlDeps } from './deps.js';
import { operator, t } from './procedure.js';
import { waitForStatus } from './run-wait.js';
import { settle } from './settle.js';

export function waitProcedures(deps: ControlDeps) {
  const { engine, timers, clock } = deps;
  return {
    /** Resolves once no step or delivery attempt is in flight and no timer is due. */
    settle: operator
      .input(SettleInput)
      .output(Settled)
      .mutation(async ({ input }) => ({
        settled: true as const,
        ...(await settle({ engine, timers, clock }, input?.timeout_ms ?? DEFAULT_WAIT_MS)),
      })),
    workflows: t.router({
      /** The run, once it shows one of the awaited statuses. */
      wait: operator
        .input(RunWaitInput)
        .output(WorkflowExecution)
        .mutation(({ input }) =>
          waitForStatus(
            engine,
            input.execution_id,
            input.status,
            input.timeout_ms ?? DEFAULT_WAIT_MS,
          ),
        ),
    }),
  };
}
