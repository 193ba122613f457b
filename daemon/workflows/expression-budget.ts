// How many expressions a workflow may hold, and how long they may be in all (issue 38). Every
// expression is compiled when the workflow is written (each create and PATCH) and again when a
// run needs it and the compiled-expression cache no longer holds it, on the event loop; a
// workflow's runs of inline steps (conditions, agent steps a local brain decides) evaluate all
// of theirs in one transaction. Before the bound, one step holding 450 distinct 2,000-character
// expressions (905 KB, within the 1 MiB body) held /healthz for 4.9 s per create or PATCH.
//
// Compiling costs a fixed part per expression and a part per character (angular-expressions in
// its csp mode, plus the secret-use check). Measured in CPU time on a 2-core machine under a load
// average of 20 (other work): 45-90 µs per short expression, and per 2,000-character expression
// 2-5 ms for most shapes, 8-12 ms for the costliest (`a[0][1][2]...`, 400 computed members). So
// both are bounded: 500 short ones (~45 ms) or 10,000 characters of the costliest shape
// (~60 ms) stay within the 100 ms a request may hold the loop; `npm run bench` (case
// expression-health) measures the costliest accepted workflows. The built-in templates hold
// 4-10 expressions, 100-240 characters in all.
//
// Counted before anything is compiled, so a workflow over the bound costs only this walk.
import type { WorkflowStepInput } from '../../shared/schemas/workflows.js';
import { ApiError } from '../domain/errors.js';
import { conditionSource, eachString, templateExpressions } from '../engine/expressions.js';

/** Expressions (each `{{...}}` and each condition) in one workflow, repeats included. */
export const MAX_WORKFLOW_EXPRESSIONS = 500;
/** Characters of all a workflow's expressions together (each one is at most 2,000). */
export const MAX_WORKFLOW_EXPRESSION_CHARS = 10_000;

const FIX =
  'so that writing and running a workflow never holds the daemon up. Use fewer or shorter ' +
  'expressions (one {{trigger.payload}} passes a whole object), or split the work over ' +
  'several workflows.';

/**
 * Refuses (400 invalid_step_config) a workflow whose expressions are more than
 * MAX_WORKFLOW_EXPRESSIONS or longer than MAX_WORKFLOW_EXPRESSION_CHARS in all, naming the
 * field where the bound was passed. The same strings as graph.ts checks: a condition step's
 * `config.condition` is one expression, every other config string a template.
 */
export function checkExpressionBudget(steps: readonly WorkflowStepInput[]): void {
  let count = 0;
  let chars = 0;
  const charge = (expr: string, param: string) => {
    count += 1;
    chars += expr.length;
    if (count > MAX_WORKFLOW_EXPRESSIONS) {
      throw new ApiError(
        'invalid_step_config',
        `The workflow holds more than ${MAX_WORKFLOW_EXPRESSIONS} expressions ({{...}} and ` +
          `conditions; ${param} holds expression ${count}). At most ` +
          `${MAX_WORKFLOW_EXPRESSIONS} are allowed in one workflow, ${FIX}`,
        { param },
      );
    }
    if (chars > MAX_WORKFLOW_EXPRESSION_CHARS) {
      throw new ApiError(
        'invalid_step_config',
        `The workflow's expressions ({{...}} and conditions) come to more than ` +
          `${MAX_WORKFLOW_EXPRESSION_CHARS.toLocaleString('en-US')} characters (${param} brings ` +
          `them to ${chars.toLocaleString('en-US')}). At most ` +
          `${MAX_WORKFLOW_EXPRESSION_CHARS.toLocaleString('en-US')} are allowed in one workflow, ${FIX}`,
        { param },
      );
    }
  };
  steps.forEach((step, i) => {
    const at = `steps[${i}].config`;
    eachString(step.config ?? {}, at, (path, text) => {
      if (step.type === 'condition' && path === `${at}.condition`)
        charge(conditionSource(text), path);
      else for (const expr of templateExpressions(text)) charge(expr, path);
    });
  });
}

/**
 * For a stored version (written before the bound, or brought by a snapshot): why its runs may
 * not start, naming the step where the bound is passed; undefined when it keeps to the bound.
 * Its runs then fail at once with this message instead of compiling what it holds.
 */
export function budgetRefusal(
  steps: readonly WorkflowStepInput[],
  version: number,
): { stepId: string; message: string } | undefined {
  try {
    checkExpressionBudget(steps);
    return undefined;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const index = Number(/^steps\[(\d+)\]/.exec(error.param ?? '')?.[1] ?? 0);
    return {
      stepId: steps[index]?.id ?? steps[0]!.id,
      message:
        `Version ${version} of this workflow was stored before the bound on expressions and ` +
        `breaks it, so it does not run: ${error.message} Update the workflow (PATCH) to run it.`,
    };
  }
}
