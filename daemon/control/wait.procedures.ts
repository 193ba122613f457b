// The control channel's waits: svc settle and svc workflows wait (also the testing kit's
// sb.settle() and sb.runs.wait()). Both wait in real time, bounded by their timeout, so that
// they end even while the sandbox clock is frozen.
import {
  DEFAULT_WAIT_MS,
  RunParkedInput,
  RunWaitInput,
  SettleInput,
} from '../../shared/schemas/control.js';
import { RunParked, Settled } from '../../shared/schemas/control-output.js';
import { WorkflowExecution } from '../../shared/schemas/workflows.js';
import type { ControlDeps } from './deps.js';
import { operator, t } from './procedure.js';
import {
  CLI_WORDS,
  KIT_WORDS,
  parkedMessage,
  waitForStatus,
  type RunWaitDeps,
} from './run-wait.js';
import { settle } from './settle.js';

export function waitProcedures(deps: ControlDeps) {
  const { engine, timers, clock } = deps;
  const runWaitDeps: RunWaitDeps = {
    find: (id) => engine.find(id),
    onRunChange: (listener) => deps.hooks.add('runChanged', listener),
    // Parked: the clock is frozen, and the run has pending steps, none running nor due.
    parkedSteps: (id) => {
      if (!deps.clockService.show().frozen) return undefined;
      const activity = engine.activityOf(id, clock.now());
      return activity && !activity.busy && activity.steps.length > 0 ? activity.steps : undefined;
    },
    now: () => clock.now(),
  };
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
            runWaitDeps,
            input.execution_id,
            input.status,
            input.timeout_ms ?? DEFAULT_WAIT_MS,
            input.words === 'kit' ? KIT_WORDS : CLI_WORDS,
          ),
        ),
      /** Whether the run is parked on the frozen sandbox clock, and what moves it on (run --wait). */
      parked: operator
        .input(RunParkedInput)
        .output(RunParked)
        .query(({ input }) => {
          const view = engine.find(input.execution_id);
          const message =
            view && parkedMessage(runWaitDeps, view, input.words === 'kit' ? KIT_WORDS : CLI_WORDS);
          return { parked: message !== undefined, message: message ?? null };
        }),
    }),
  };
}
