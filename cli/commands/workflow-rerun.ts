// svc workflows rerun: a new run of an earlier run's input, whole or from a step (the earlier
// steps keep the original results), through POST /v1/workflows/{id}/executions/{id}/rerun.
// With --wait it is followed as run --wait follows a run: the request returns at once and the
// CLI watches (a long wait or an approval would otherwise outlast the request's timeout).
import type { ExecuteAnswerView } from '../../shared/schemas/workflows.js';
import { apiPath } from '../api-commands.js';
import { FOLLOW_TIMEOUT_OPTION, followTimeoutMs } from '../bounded-flags.js';
import { command, defineCommands } from '../command.js';
import type { CliContext } from '../context.js';
import { chalk, chalkStderr } from '../output.js';
import { RUN_TARGET_ARGS, resolveRun, type RunTarget } from '../run-target.js';

async function startRerun(
  ctx: CliContext,
  target: RunTarget,
  fromStep: string | undefined,
): Promise<ExecuteAnswerView> {
  return (await ctx.api()).data<ExecuteAnswerView>(
    'POST',
    apiPath('workflows', target.workflowId, 'executions', target.executionId, 'rerun'),
    { body: { ...(fromStep ? { from_step_id: fromStep } : {}), wait_for_completion: false } },
  );
}

export default defineCommands([
  command({
    path: ['workflows', 'rerun'],
    description:
      "Run an earlier run's input again; with --from-step, keep the results before that step and start there",
    args: RUN_TARGET_ARGS,
    options: [
      { flags: '--from-step <id>', description: 'start at this step (earlier results are kept)' },
      {
        flags: '--wait',
        description: 'follow the new run live to its end, as run --wait (exit 1 if it fails)',
      },
      FOLLOW_TIMEOUT_OPTION,
    ],
    examples: [
      'svc workflows rerun wex_...',
      'svc workflows rerun wex_... --from-step notify --wait --json',
      'svc workflows rerun wfl_... wex_... --from-step notify',
    ],
    async run(ctx, args, options) {
      const target = await resolveRun(ctx, args, 'svc workflows rerun wex_...');
      const fromStep = options.fromStep;
      const origin = `a re-run of ${target.executionId}${fromStep ? ` from step ${fromStep}` : ''}`;
      const timeoutMs = followTimeoutMs(options.timeout, options.wait === true);
      if (options.wait === true) {
        const { followToEnd } = await import('../run-wait.js');
        await followToEnd(ctx, {
          workflowId: target.workflowId,
          origin,
          endWhenParked: true,
          ...(timeoutMs === undefined ? {} : { timeoutMs }),
          start: async () => (await startRerun(ctx, target, fromStep)).execution_id,
        });
        return;
      }
      const started = await startRerun(ctx, target, fromStep);
      ctx.out.result(
        started,
        () => `Started run ${chalk.cyan(started.execution_id)}, ${origin} (${started.status})`,
      );
      ctx.out.note(chalkStderr.dim(`Follow it with: svc workflows watch ${started.execution_id}`));
    },
  }),
]);
