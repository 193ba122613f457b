// wait: parks the run for duration_seconds on the daemon clock (a durable timer the engine
// sets from the outcome), then goes on at next_step_id.
import type { StepOf, StepKind } from './kind.js';
import { nextOf } from './outcome.js';

/** What a wait step's result records, whether it waited or not. */
function waitResult(step: StepOf<'wait'>) {
  return {
    waited_seconds: Number(step.config.duration_seconds ?? 0),
    reason: step.config.reason ?? null,
  };
}

export const wait: StepKind<'wait'> = {
  runNow({ step, deps }) {
    const result = waitResult(step);
    if (result.waited_seconds <= 0) return { type: 'completed', result, next: nextOf(step) };
    return { type: 'waiting', wakeAt: deps.clock.now() + result.waited_seconds * 1000, result };
  },

  wokenResult: waitResult,
};
