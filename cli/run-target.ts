// The run a command acts on, from its arguments: a run id alone (wex_...; run ids are unique, so
// GET /v1/executions/{id} says whose workflow it is) or, as before, a workflow id and a run id.
import { apiPath } from './api-commands.js';
import type { ArgSpec } from './command.js';
import type { CliContext } from './context.js';
import { UsageError } from './errors.js';
import type { Execution } from './workflow-views.js';

/** `<run> [execution]`: commander takes no optional argument before a required one. */
export const RUN_TARGET_ARGS: ArgSpec[] = [
  {
    name: 'run',
    description: 'the run id (wex_...), or the workflow id (wfl_...) then the run id',
  },
  { name: 'execution', description: 'the run id, after a workflow id', required: false },
];

export interface RunTarget {
  workflowId: string;
  executionId: string;
  /** The run as GET /v1/executions/{id} answered, when it was looked up by its id alone. */
  execution?: Execution;
}

export async function resolveRun(
  ctx: CliContext,
  [first, second]: (string | undefined)[],
  usage: string,
): Promise<RunTarget> {
  if (first && second) return { workflowId: first, executionId: second };
  if (!first || first.startsWith('wfl_')) {
    throw new UsageError(
      `Missing the run id: ${usage} (a run id alone, wex_..., is enough; list a workflow's runs with: svc workflows executions ${first ?? 'wfl_...'}).`,
    );
  }
  const execution = await (await ctx.api()).data<Execution>('GET', apiPath('executions', first));
  return { workflowId: execution.workflow_id, executionId: execution.execution_id, execution };
}
