// svc settle and svc workflows wait: deterministic waits for CI scripts (no sleep, no polling
// loop in the script). Both end at --timeout with exit 1 and a message naming what is pending.
import { parseDuration } from '../../shared/duration.js';
import { MAX_WAIT_MS } from '../../shared/schemas/control.js';
import { WORKFLOW_EXECUTION_STATUSES } from '../../shared/schemas/workflows.js';
import { command, defineCommands } from '../command.js';
import { UsageError } from '../errors.js';
import { chalk } from '../output.js';
import type { Execution } from '../workflow-views.js';
import { readClock, sandboxNow } from '../wake-text.js';
import { describeExecution } from './workflows.js';

const TIMEOUT_OPTION = {
  flags: '--timeout <duration>',
  description: `how long to wait at most (real time): 30s (default), 2m; ${MAX_WAIT_MS / 60_000}m at most`,
} as const;

function timeoutMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseDuration(value);
  if (ms === null || ms < 1 || ms > MAX_WAIT_MS)
    throw new UsageError(
      `--timeout takes a duration from 1ms to ${MAX_WAIT_MS / 60_000}m such as 30s or 2m (got "${value}"); to wait longer, run the command again.`,
    );
  return ms;
}

function statuses(value: string | undefined): (typeof WORKFLOW_EXECUTION_STATUSES)[number][] {
  const given = (value ?? 'completed').split(',').map((status) => status.trim());
  for (const status of given) {
    if (!(WORKFLOW_EXECUTION_STATUSES as readonly string[]).includes(status))
      throw new UsageError(
        `--status takes ${WORKFLOW_EXECUTION_STATUSES.join(', ')} (several separated by commas), not "${status}".`,
      );
  }
  return given as (typeof WORKFLOW_EXECUTION_STATUSES)[number][];
}

export default defineCommands([
  command({
    path: ['settle'],
    description:
      'Wait until no step or delivery attempt is in flight and no timer is due at the sandbox time',
    options: [TIMEOUT_OPTION],
    examples: ['svc settle', 'svc clock advance 15m && svc settle --timeout 1m'],
    async run(ctx, _args, options) {
      const ms = timeoutMs(options.timeout);
      const settled = await (
        await ctx.control()
      ).settle.mutate(ms === undefined ? undefined : { timeout_ms: ms });
      ctx.out.result(settled, () => `Settled ${chalk.dim(`(waited ${settled.waited_ms} ms)`)}`);
    },
  }),
  command({
    path: ['workflows', 'wait'],
    description:
      'Wait until a run shows a status (default completed); exit 1 if it ends in another or at --timeout',
    args: [{ name: 'execution_id', description: 'the run (wex_...)' }],
    options: [
      {
        flags: '--status <status>',
        description: `the awaited status, or several separated by commas: ${WORKFLOW_EXECUTION_STATUSES.join(', ')}`,
      },
      TIMEOUT_OPTION,
    ],
    examples: [
      'svc workflows wait wex_... --status completed --timeout 1m',
      'svc workflows wait wex_... --status awaiting_approval',
    ],
    async run(ctx, [executionId], options) {
      const ms = timeoutMs(options.timeout);
      const run = await (
        await ctx.control()
      ).workflows.wait.mutate({
        execution_id: executionId!,
        status: statuses(options.status),
        ...(ms === undefined ? {} : { timeout_ms: ms }),
      });
      // tRPC types the `unknown` fields (input, result) as optional: the view is the same.
      const clock = run.step_results.some((step) => step.wakes_at)
        ? await readClock(ctx)
        : undefined;
      ctx.out.result(run, () => describeExecution(run as Execution, clock && sandboxNow(clock)));
    },
  }),
]);
