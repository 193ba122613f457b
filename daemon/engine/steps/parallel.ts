// parallel: starts its branches (config.steps) at once; the engine joins them and goes on at
// next_step_id once all have ended (wait_for_all, the default) or the first has.
import { MAX_PARALLEL_BRANCHES } from '../../../shared/schemas/steps.js';
import type { StepKind } from './kind.js';

export const parallel: StepKind<'parallel'> = {
  check(step, check) {
    const children = step.config.steps;
    check.need(
      'steps',
      children.length <= MAX_PARALLEL_BRANCHES,
      `at most ${MAX_PARALLEL_BRANCHES} step ids (branches run at once)`,
    );
    children.forEach((child, j) => {
      check.reference(`${check.at}.config.steps[${j}]`, child);
      if (children.indexOf(child) !== j) {
        throw check.invalid(
          `${check.at}.config.steps[${j}]`,
          `Step '${step.id}' lists branch '${String(child)}' twice. List each branch once.`,
        );
      }
    });
  },

  runNow({ step }) {
    return {
      type: 'fork',
      children: step.config.steps ?? [],
      waitForAll: step.config.wait_for_all !== false,
    };
  },
};
