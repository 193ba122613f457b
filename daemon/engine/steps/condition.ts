// condition: evaluates an expression over the run's scope (never its secrets) and goes on at
// if_true or if_false, else at next_step_id.
import { conditionSource, evaluateCondition, refusedSecrets } from '../expressions.js';
import type { StepKind } from './kind.js';

export const condition: StepKind<'condition'> = {
  check(step, check) {
    check.expression(conditionSource(step.config.condition), `${check.at}.config.condition`, false);
    check.need(
      'if_true',
      step.config.if_true !== undefined || step.config.if_false !== undefined,
      'the step to run when the condition holds (if_true and/or if_false)',
    );
    for (const key of ['if_true', 'if_false'] as const) {
      const target = step.config[key];
      if (target !== undefined && target !== null)
        check.reference(`${check.at}.config.${key}`, target);
    }
  },

  runNow({ step, scope }) {
    const source = String(step.config.condition);
    const value = evaluateCondition(source, { ...scope, secrets: refusedSecrets(source) });
    const target = step.config[value ? 'if_true' : 'if_false'];
    const next = typeof target === 'string' ? target : step.next_step_id;
    return {
      type: 'completed',
      result: { value, branch: value ? 'if_true' : 'if_false', next_step_id: next ?? null },
      next: next ? [next] : [],
    };
  },
};
