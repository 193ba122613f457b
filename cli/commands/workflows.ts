// svc workflows list|get|create|apply|update|delete|activate|pause|run|executions|execution|watch|cancel
import { apiCommand, apiPath, listCommand } from '../api-commands.js';
import { FOLLOW_TIMEOUT_OPTION, followTimeoutMs } from '../bounded-flags.js';
import { command, defineCommands, stringOption, type Options, group } from '../command.js';
import type { CliContext } from '../context.js';
import { CliError, UsageError } from '../errors.js';
import { chalk, chalkStderr, table } from '../output.js';
import { RUN_TARGET_ARGS, resolveRun } from '../run-target.js';
import {
  brief,
  endedBadly,
  failureLine,
  formatDuration,
  type Execution,
  type Workflow,
} from '../workflow-views.js';
import type { WorkflowDocument } from '../workflow-file.js';
import {
  clockTime,
  decideCommand,
  readClock,
  sandboxNow,
  skipCommand,
  whenText,
} from '../wake-text.js';
import { stepEdges, type StepEdgeKind } from '../../shared/schemas/steps.js';
import {
  WORKFLOW_EXECUTION_STATUSES,
  WORKFLOW_STATUSES,
  type WorkflowStepView,
} from '../../shared/schemas/workflows.js';

const WORKFLOW_ID = { name: 'id', description: 'workflow id (wfl_...)' };
/** --limit and --starting-after, for lists that print where the next page starts. */
const NEXT_PAGE_OPTIONS = [
  { flags: '--limit <n>', description: 'page size, 1-100' },
  { flags: '--starting-after <id>', description: 'cursor: the last id of the previous page' },
] as const;

function statusColour(status: string): string {
  if (status === 'active' || status === 'completed') return chalk.green(status);
  if (status === 'running') return chalk.cyan(status);
  if (status === 'draft' || status === 'paused' || status === 'awaiting_approval')
    return chalk.yellow(status);
  if (status === 'archived') return chalk.dim(status);
  return chalk.red(status);
}

function percent(rate: number): string {
  return `${(rate * 100).toFixed(1)}%`;
}

/** A step's edges in words, from the one graph walk the daemon and the dashboard use too. */
function flowOf(step: WorkflowStepView): string {
  const edges = stepEdges(step);
  const to = (kind: StepEdgeKind) =>
    edges.filter((edge) => edge.kind === kind).map((edge) => edge.to);
  const words: string[] = [];
  if (step.type === 'condition') {
    words.push(`true -> ${to('if_true')[0] ?? '-'}`, `false -> ${to('if_false')[0] ?? '-'}`);
  }
  if (step.type === 'parallel') {
    words.push(
      `[${to('branch').join(', ')}]${step.config.wait_for_all === false ? ' (first)' : ''}`,
    );
  }
  for (const next of to('next')) words.push(`-> ${next}`);
  for (const handler of to('on_error')) words.push(`on error -> ${handler}`);
  return words.join('  ');
}

/** `now`: the daemon clock, for how far off the next scheduled run is. */
function describeWorkflow(workflow: Workflow, now?: number): string {
  const settings = workflow.settings ?? {};
  const retry = settings.retry_policy;
  const lines = [
    `${chalk.cyan(workflow.id)} "${workflow.name}" ${statusColour(workflow.status)}`,
    ...(workflow.description ? [workflow.description] : []),
    `trigger:  ${workflow.trigger.type}${workflow.trigger.config && Object.keys(workflow.trigger.config).length ? ` ${JSON.stringify(workflow.trigger.config)}` : ''}`,
    ...(workflow.next_run_at ? [`next run: ${whenText(workflow.next_run_at, now)}`] : []),
    `settings: timeout ${settings.timeout_seconds === undefined ? '-' : formatDuration(settings.timeout_seconds * 1000)}, ` +
      `retries ${retry?.max_attempts ?? 1} attempt(s) x${retry?.backoff_multiplier ?? '-'}, ` +
      `on failure ${settings.error_handling ?? 'stop'}`,
    `stats:    ${workflow.stats.total_executions} run(s), success ${percent(workflow.stats.success_rate)}, ` +
      `avg ${formatDuration(workflow.stats.avg_duration_seconds * 1000)}, last run ${workflow.last_executed_at ?? 'never'}`,
    '',
    table(
      ['STEP', 'NAME', 'TYPE', 'AGENT', 'FLOW'],
      workflow.steps.map((step) => [
        step.id,
        step.name,
        step.type,
        step.agent_id ?? '',
        flowOf(step),
      ]),
    ),
  ];
  return lines.join('\n');
}

/** What a step still waiting says in the RESULT column: when it goes on. */
function pendingText(step: Execution['step_results'][number], now: number | undefined) {
  if (!step.wakes_at) return undefined;
  return `${step.status === 'retrying' ? 'retries' : 'wakes'} ${whenText(step.wakes_at, now)}`;
}

/** "2.3s", or "2.3s (15m on the sandbox clock)" when the sandbox clock moved otherwise. */
function durationWords(elapsedMs: number | null | undefined, sandboxMs: number): string {
  if (elapsedMs === null || elapsedMs === undefined) return formatDuration(sandboxMs);
  const sandbox = formatDuration(sandboxMs);
  const real = formatDuration(elapsedMs);
  return sandbox === real ? real : `${real} (${sandbox} on the sandbox clock)`;
}

/** The agent execution a step awaiting approval waits on (its whole id). */
function awaitedExecution(step: Execution['step_results'][number]): string | undefined {
  if (step.status !== 'awaiting_approval') return undefined;
  const id = (step.result as { agent_execution_id?: unknown } | null)?.agent_execution_id;
  return typeof id === 'string' ? id : undefined;
}

/** What a step awaiting approval says in the RESULT column: the execution to decide, uncut. */
function approvalText(step: Execution['step_results'][number]): string | undefined {
  const id = awaitedExecution(step);
  return id && `awaits a decision on ${id}`;
}

/** `now`: the daemon clock (readClock), for how far off a wait ends; unknown: the time alone. */
export function describeExecution(execution: Execution, now?: number): string {
  const lines = [
    `${chalk.cyan(execution.execution_id)} ${statusColour(execution.status)} ` +
      chalk.dim(`(workflow ${execution.workflow_id})`),
    `steps:    ${execution.steps_completed}/${execution.steps_total} done` +
      (execution.current_step && !['completed'].includes(execution.status)
        ? `, current ${execution.current_step}`
        : ''),
    `started:  ${execution.created_at}`,
  ];
  if (execution.completed_at) lines.push(`ended:    ${execution.completed_at}`);
  if (execution.cancelled_at) lines.push(`cancelled: ${execution.cancelled_at}`);
  if (execution.duration_seconds !== undefined && execution.duration_seconds !== null)
    lines.push(
      `duration: ${durationWords(execution.elapsed_ms, execution.duration_seconds * 1000)}`,
    );
  if (execution.step_results?.length) {
    lines.push(
      '',
      table(
        ['STEP', 'TYPE', 'STATUS', 'DURATION', 'RESULT'],
        execution.step_results.map((step) => [
          step.attempt > 1 ? `${step.step_id} #${step.attempt}` : step.step_id,
          step.type,
          statusColour(step.status),
          step.elapsed_ms === null || step.elapsed_ms === undefined
            ? formatDuration(step.duration_ms)
            : formatDuration(step.elapsed_ms),
          pendingText(step, now) ??
            approvalText(step) ??
            (step.error ? `${step.error.code}: ${step.error.message}` : brief(step.result, 60)),
        ]),
      ),
    );
    const wakes = execution.step_results.flatMap((step) => step.wakes_at ?? []).sort();
    const skip = wakes[0] && skipCommand(wakes[0], now);
    if (skip) lines.push(chalk.dim(`skip the wait with: ${skip}`));
    const awaiting = execution.step_results.map(awaitedExecution).find((id) => id !== undefined);
    if (execution.status === 'awaiting_approval' && awaiting)
      lines.push(chalk.dim(`decide with: ${decideCommand(awaiting)}`));
  }
  if (endedBadly(execution)) lines.push('', chalk.red(failureLine(execution)));
  if (execution.status === 'completed' && execution.result !== undefined)
    lines.push('', 'result:', JSON.stringify(execution.result, null, 2));
  return lines.join('\n');
}

/**
 * Sends a workflow document; a validation error is reported with the step and field it names
 * (the API's `param`, e.g. steps[2].config.if_false -> step "check" (steps[2]), field ...).
 */
async function sendDocument(
  ctx: CliContext,
  method: 'POST' | 'PATCH',
  url: string,
  file: string,
  document: WorkflowDocument,
): Promise<Workflow> {
  const { ApiRequestError } = await import('../../shared/api-client.js');
  const { locateParam } = await import('../workflow-file.js');
  try {
    return await (await ctx.api()).data<Workflow>(method, url, { body: document });
  } catch (error) {
    if (error instanceof ApiRequestError && error.status === 400 && error.body?.error) {
      const { param, cycle } = error.body.error;
      const where = param ? (locateParam(document, param) ?? param) : undefined;
      const loop = Array.isArray(cycle) ? ` (loop: ${cycle.join(' -> ')})` : '';
      throw new CliError(
        `${file}: ${error.message}${where ? ` (at ${where})` : ''}${loop}`,
        1,
        error.code,
        { status: error.status, ...error.body.error },
      );
    }
    throw error;
  }
}

async function documentFrom(
  options: Options,
): Promise<{ file: string; document: WorkflowDocument }> {
  const file = stringOption(options, 'file');
  if (!file) throw new UsageError('Missing -f FILE: a workflow file (JSON or YAML; - for stdin).');
  const { readWorkflowFile } = await import('../workflow-file.js');
  const document = await readWorkflowFile(file);
  const status = stringOption(options, 'status');
  if (status) document.status = status;
  return { file, document };
}

/** Every workflow of the workspace with this name (the list, page by page). */
async function workflowsNamed(ctx: CliContext, name: string): Promise<Workflow[]> {
  const api = await ctx.api();
  const found: Workflow[] = [];
  let startingAfter: string | undefined;
  for (;;) {
    const page = await api.request<{
      data: Workflow[];
      has_more: boolean;
      meta?: { next_cursor?: string | null };
    }>('GET', '/workflows', { query: { limit: 100, starting_after: startingAfter } });
    found.push(...page.data.filter((workflow) => workflow.name === name));
    startingAfter = page.meta?.next_cursor ?? page.data.at(-1)?.id;
    if (!page.has_more || !startingAfter) return found;
  }
}

/** Prints a workflow (`heading` before it, e.g. "Created"), with its next run when scheduled. */
async function printWorkflow(ctx: CliContext, workflow: Workflow, heading = ''): Promise<void> {
  const clock = workflow.next_run_at ? await readClock(ctx) : undefined;
  ctx.out.result(workflow, () => heading + describeWorkflow(workflow, clock && sandboxNow(clock)));
}

async function setStatus(ctx: CliContext, id: string, status: 'active' | 'paused') {
  const workflow = await (
    await ctx.api()
  ).data<Workflow>('PATCH', apiPath('workflows', id), { body: { status } });
  const clock = workflow.next_run_at ? await readClock(ctx) : undefined;
  const next = workflow.next_run_at
    ? `; next run ${whenText(workflow.next_run_at, clock && sandboxNow(clock))}`
    : '';
  ctx.out.result(
    workflow,
    () => `Workflow ${chalk.cyan(workflow.id)} is ${statusColour(workflow.status)}${next}`,
  );
}

export default defineCommands([
  group(['workflows'], 'Workflows: create from JSON/YAML files, run (live progress), runs, cancel'),
  listCommand({
    path: ['workflows', 'list'],
    description: 'List workflows',
    options: [
      { flags: '--status <status>', description: 'workflow status', values: WORKFLOW_STATUSES },
      ...NEXT_PAGE_OPTIONS,
    ],
    endpoint: () => '/workflows',
    query: (options) => ({ status: options.status }),
    columns: ['ID', 'NAME', 'STATUS', 'STEPS', 'RUNS', 'SUCCESS', 'LAST RUN', 'NEXT RUN'],
    row: (w: Workflow) => [
      w.id,
      w.name,
      statusColour(w.status),
      String(w.steps.length),
      String(w.stats.total_executions),
      percent(w.stats.success_rate),
      w.last_executed_at ?? '-',
      w.next_run_at ? clockTime(w.next_run_at) : '-',
    ],
    nextPageHint: true,
  }),
  {
    path: ['workflows', 'get'],
    description: 'Show a workflow and its steps (and its next run, for a schedule trigger)',
    args: [WORKFLOW_ID],
    async run(ctx, [id]) {
      const workflow = await (await ctx.api()).data<Workflow>('GET', apiPath('workflows', id!));
      await printWorkflow(ctx, workflow);
    },
  },
  {
    path: ['workflows', 'create'],
    description: 'Create a workflow from a JSON or YAML file (created draft unless it says status)',
    options: [
      {
        flags: '-f, --file <file>',
        description: 'workflow file, .json, .yaml or .yml (- for stdin)',
      },
      {
        flags: '--status <status>',
        description: 'draft (default), active, paused or archived',
        values: WORKFLOW_STATUSES,
      },
    ],
    examples: ['svc workflows create -f refund.yaml --status active --json'],
    async run(ctx, _args, options) {
      const { file, document } = await documentFrom(options);
      const workflow = await sendDocument(ctx, 'POST', '/workflows', file, document);
      await printWorkflow(ctx, workflow, 'Created ');
    },
  },
  {
    path: ['workflows', 'apply'],
    description:
      'Create or update the workflow the file names (keyed by name), printing what changed',
    options: [
      {
        flags: '-f, --file <file>',
        description: 'workflow file, .json, .yaml or .yml (- for stdin)',
      },
      {
        flags: '--status <status>',
        description: 'created draft unless given',
        values: WORKFLOW_STATUSES,
      },
    ],
    examples: ['svc workflows apply -f refund.yaml', 'svc workflows apply -f refund.yaml --json'],
    async run(ctx, _args, options) {
      const { file, document } = await documentFrom(options);
      if (typeof document.name !== 'string' || document.name === '') {
        throw new UsageError(
          `-f ${file}: apply finds the workflow by its name, and the file has none. Add name: to the file.`,
        );
      }
      const same = await workflowsNamed(ctx, document.name);
      if (same.length > 1) {
        throw new CliError(
          `${same.length} workflows are named "${document.name}": ${same.map((w) => `${w.id} (${w.status})`).join(', ')}. apply updates the one workflow of a name: delete or rename the others (svc workflows delete ID), or update one by id: svc workflows update ID -f ${file}`,
          1,
          'ambiguous_workflow_name',
        );
      }
      const { changedFields } = await import('../workflow-apply.js');
      const before = same[0];
      const changed = before ? changedFields(document, before) : [];
      const action = !before ? 'created' : changed.length ? 'updated' : 'unchanged';
      const workflow = !before
        ? await sendDocument(ctx, 'POST', '/workflows', file, document)
        : changed.length
          ? await sendDocument(ctx, 'PATCH', apiPath('workflows', before.id), file, document)
          : before;
      ctx.out.result({ action, changed, workflow }, () => {
        const name = `${chalk.cyan(workflow.id)} "${workflow.name}"`;
        if (action === 'created') return `Created ${name} (${statusColour(workflow.status)})`;
        if (action === 'unchanged') return `Unchanged ${name}: the file matches it`;
        return `Updated ${name}: ${changed.join(', ')}`;
      });
    },
  },
  {
    path: ['workflows', 'update'],
    description: 'Change a workflow: the fields given in the file replace the stored ones',
    args: [WORKFLOW_ID],
    options: [
      {
        flags: '-f, --file <file>',
        description: 'workflow file, .json, .yaml or .yml (- for stdin)',
      },
      { flags: '--status <status>', description: 'workflow status', values: WORKFLOW_STATUSES },
    ],
    examples: ['svc workflows update wfl_... -f refund.yaml'],
    async run(ctx, [id], options) {
      const { file, document } = await documentFrom(options);
      const workflow = await sendDocument(ctx, 'PATCH', apiPath('workflows', id!), file, document);
      await printWorkflow(ctx, workflow, 'Updated ');
    },
  },
  apiCommand({
    path: ['workflows', 'delete'],
    description: 'Delete a workflow (its running runs are cancelled first)',
    args: [WORKFLOW_ID],
    method: 'DELETE',
    endpoint: ([id]) => apiPath('workflows', id!),
    print: (result: { id: string }) => `Deleted workflow ${result.id}`,
  }),
  {
    path: ['workflows', 'activate'],
    description: 'Make a workflow active (its triggers fire; manual runs work in draft too)',
    args: [WORKFLOW_ID],
    run: (ctx, [id]) => setStatus(ctx, id!, 'active'),
  },
  {
    path: ['workflows', 'pause'],
    description: 'Pause a workflow (new runs are refused with workflow_not_active)',
    args: [WORKFLOW_ID],
    run: (ctx, [id]) => setStatus(ctx, id!, 'paused'),
  },
  command({
    path: ['workflows', 'run'],
    description:
      'Start a run; with --wait, show each step live and print the result (exit 1 if the run fails)',
    args: [WORKFLOW_ID],
    options: [
      {
        flags: '--input <json>',
        description: 'the trigger payload: a JSON object, or @file.json (default {})',
      },
      { flags: '--wait', description: 'follow the run to its end and print the result' },
      FOLLOW_TIMEOUT_OPTION,
    ],
    examples: [
      `svc workflows run wfl_... --input '{"order_id": "A-1", "amount": 120}' --wait`,
      'svc workflows run wfl_... --wait --timeout 2m',
      'svc workflows run wfl_... --input @order.json --wait --json',
    ],
    async run(ctx, [id], options) {
      const { readRunInput } = await import('../workflow-file.js');
      const input = await readRunInput(stringOption(options, 'input'));
      const timeoutMs = followTimeoutMs(options.timeout, options.wait === true);
      if (options.wait === true) {
        const { followToEnd } = await import('../run-wait.js');
        await followToEnd(ctx, {
          workflowId: id!,
          endWhenParked: true,
          ...(timeoutMs === undefined ? {} : { timeoutMs }),
          async start() {
            const started = await (
              await ctx.api()
            ).data<{ execution_id: string }>('POST', apiPath('workflows', id!, 'execute'), {
              body: { input, wait_for_completion: false },
            });
            return started.execution_id;
          },
        });
        return;
      }
      const started = await (
        await ctx.api()
      ).data<{ execution_id: string; status: string; created_at: string }>(
        'POST',
        apiPath('workflows', id!, 'execute'),
        { body: { input, wait_for_completion: false } },
      );
      ctx.out.result(
        started,
        () => `Started run ${chalk.cyan(started.execution_id)} (${statusColour(started.status)})`,
      );
      ctx.out.note(chalkStderr.dim(`Follow it with: svc workflows watch ${started.execution_id}`));
    },
  }),
  listCommand({
    path: ['workflows', 'executions'],
    description: 'List the runs of a workflow, newest first',
    args: [WORKFLOW_ID],
    options: [
      {
        flags: '--status <status>',
        description: 'run status',
        values: WORKFLOW_EXECUTION_STATUSES,
      },
      ...NEXT_PAGE_OPTIONS,
    ],
    endpoint: ([id]) => apiPath('workflows', id!, 'executions'),
    query: (options) => ({ status: options.status }),
    columns: ['EXECUTION', 'STATUS', 'STEPS', 'CURRENT', 'STARTED', 'DURATION'],
    row: (e: Execution) => [
      e.execution_id,
      statusColour(e.status),
      `${e.steps_completed}/${e.steps_total}`,
      e.current_step ?? '-',
      e.created_at,
      e.duration_seconds === null || e.duration_seconds === undefined
        ? '-'
        : formatDuration(e.duration_seconds * 1000),
    ],
    nextPageHint: true,
  }),
  {
    path: ['workflows', 'execution'],
    description: 'Show a run (by its id alone, or workflow id and run id): each step, the result',
    args: RUN_TARGET_ARGS,
    examples: ['svc workflows execution wex_...', 'svc workflows execution wfl_... wex_... --json'],
    async run(ctx, args) {
      const target = await resolveRun(ctx, args, 'svc workflows execution wex_...');
      const execution =
        target.execution ??
        (await (
          await ctx.api()
        ).data<Execution>(
          'GET',
          apiPath('workflows', target.workflowId, 'executions', target.executionId),
        ));
      const clock = execution.step_results.some((step) => step.wakes_at)
        ? await readClock(ctx)
        : undefined;
      ctx.out.result(execution, () => describeExecution(execution, clock && sandboxNow(clock)));
    },
  },
  {
    path: ['workflows', 'watch'],
    description:
      'Follow any run live to its end (started by a hook, a schedule, an event or by hand), as run --wait does',
    args: RUN_TARGET_ARGS,
    examples: ['svc workflows watch wex_...', 'svc workflows watch wex_... --json'],
    async run(ctx, args) {
      const target = await resolveRun(ctx, args, 'svc workflows watch wex_...');
      const { followToEnd } = await import('../run-wait.js');
      await followToEnd(ctx, {
        workflowId: target.workflowId,
        start: () => Promise.resolve(target.executionId),
      });
    },
  },
  {
    path: ['workflows', 'cancel'],
    description: 'Cancel a run wherever it is (in a wait, a parallel branch, awaiting approval)',
    args: RUN_TARGET_ARGS,
    examples: ['svc workflows cancel wex_...'],
    async run(ctx, args) {
      const target = await resolveRun(ctx, args, 'svc workflows cancel wex_...');
      const result = await (
        await ctx.api()
      ).data<{ execution_id: string; status: string; cancelled_at: string }>(
        'POST',
        apiPath('workflows', target.workflowId, 'executions', target.executionId, 'cancel'),
      );
      ctx.out.result(
        result,
        () => `Cancelled run ${chalk.cyan(result.execution_id)} at ${result.cancelled_at}`,
      );
    },
  },
]);
