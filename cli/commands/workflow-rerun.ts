// svc workflows rerun: a new run of an earlier run's input, whole or from a step (the earlier
// steps keep the original results), through POST /v1/workflows/{id}/executions/{id}/rerun.
import type { ExecuteAnswerView } from '../../shared/schemas/workflows.js';
import { apiPath } from '../api-commands.js';
import { command, defineCommands } from '../command.js';
import { CliError } from '../errors.js';
import { chalk } from '../output.js';

export default defineCommands([
  command({
    path: ['workflows', 'rerun'],
    description:
      "Run an earlier run's input again; with --from-step, keep the results before that step and start there",
    args: [
      { name: 'workflow', description: 'workflow id (wfl_...)' },
      { name: 'execution', description: 'the run to re-run (wex_...)' },
    ],
    options: [
      { flags: '--from-step <id>', description: 'start at this step (earlier results are kept)' },
      { flags: '--wait', description: 'wait for the new run to end (exit 1 unless it completes)' },
    ],
    examples: [
      'svc workflows rerun wfl_... wex_...',
      'svc workflows rerun wfl_... wex_... --from-step notify --wait --json',
    ],
    async run(ctx, [workflowId, executionId], options) {
      const execution = await (
        await ctx.api()
      ).data<ExecuteAnswerView>(
        'POST',
        apiPath('workflows', workflowId!, 'executions', executionId!, 'rerun'),
        {
          body: {
            ...(options.fromStep ? { from_step_id: options.fromStep } : {}),
            wait_for_completion: options.wait === true,
          },
        },
      );
      ctx.out.result(execution, () =>
        [
          `Started run ${chalk.cyan(execution.execution_id)}, a re-run of ${executionId}${
            options.fromStep ? ` from step ${options.fromStep}` : ''
          } (${execution.status})`,
          chalk.dim(
            `Follow it with: svc workflows execution ${workflowId} ${execution.execution_id}`,
          ),
        ].join('\n'),
      );
      if (options.wait === true && execution.status !== 'completed') {
        throw new CliError(`Run ${execution.execution_id} ended ${execution.status}.`);
      }
    },
  }),
]);
