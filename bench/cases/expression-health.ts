// How long writing the costliest accepted workflows holds the event loop: the whole step-graph
// check a create or PATCH runs (validateSteps: the expression budget, then every expression
// compiled and checked for secret use), in this process, on distinct expressions each time so
// that no cache helps. Two shapes at the bounds of workflows/expression-budget.ts: five
// 2,000-character expressions of the costliest shape measured (`a[0][1][2]...`, 10,000
// characters in all), and 500 short ones. Target: the worst of 10 < 100 ms each.
import { validateSteps } from '../../daemon/workflows/graph.js';
import {
  MAX_WORKFLOW_EXPRESSION_CHARS,
  MAX_WORKFLOW_EXPRESSIONS,
} from '../../daemon/workflows/expression-budget.js';
import type { WorkflowStepInput } from '../../shared/schemas/workflows.js';
import { percentile, table, type BenchCase } from '../harness.js';

const TARGET_MS = 100;
const ROUNDS = 10;
let seed = 0;

/** 2,000 characters of computed members, distinct by its first name. */
function costliest(): string {
  let text = `trigger.payload.c${seed++}`;
  for (let k = 0; ; k++) {
    const next = `${text}[${k % 10}]`;
    if (next.length > 2000) return text;
    text = next;
  }
}

function waitStep(reason: string): WorkflowStepInput[] {
  return [
    { id: 'w', name: 'w', type: 'wait', config: { duration_seconds: 0, reason } },
  ] as WorkflowStepInput[];
}

const SHAPES: readonly { label: string; steps: () => WorkflowStepInput[] }[] = [
  {
    label: `5 x 2,000 characters, a[0][1]... (${MAX_WORKFLOW_EXPRESSION_CHARS.toLocaleString('en-US')} in all)`,
    steps: () => waitStep(Array.from({ length: 5 }, () => `{{${costliest()}}}`).join(' ')),
  },
  {
    label: `${MAX_WORKFLOW_EXPRESSIONS} short expressions`,
    steps: () => {
      // Distinct each round (a letter per round), short enough for 500 within 10,000 characters.
      const round = String.fromCharCode(97 + (seed++ % 26));
      const each = Array.from(
        { length: MAX_WORKFLOW_EXPRESSIONS },
        (_, i) => `{{trigger.payload.${round}${i.toString(36)}}}`,
      );
      return waitStep(each.join(' '));
    },
  },
];

interface ShapeResult {
  label: string;
  p50Ms: number;
  maxMs: number;
}

const expressionHealthCase: BenchCase = {
  order: 20,
  needs: 'standalone',
  describe: () =>
    `expression-health: validating the costliest accepted workflows in this process ` +
    `(target: worst of ${ROUNDS} < ${TARGET_MS} ms per shape)`,
  async run() {
    const context = { agentExists: () => true };
    const results: ShapeResult[] = SHAPES.map((shape) => {
      const times: number[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        const steps = shape.steps();
        const started = performance.now();
        validateSteps(steps, context);
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      return { label: shape.label, p50Ms: percentile(times, 50), maxMs: times.at(-1)! };
    });
    const passes = (result: ShapeResult) => result.maxMs < TARGET_MS;
    return {
      missed: results.filter((result) => !passes(result)).length,
      print() {
        console.log(
          `\nWriting the costliest accepted workflows: the step-graph check, ${ROUNDS} rounds\n`,
        );
        console.log(
          table(
            ['workflow', 'p50 ms', 'max ms', 'target', ''],
            results.map((result) => [
              result.label,
              result.p50Ms.toFixed(1),
              result.maxMs.toFixed(1),
              `max < ${TARGET_MS}`,
              passes(result) ? 'PASS' : 'FAIL',
            ]),
          ),
        );
      },
    };
  },
};

export default expressionHealthCase;
