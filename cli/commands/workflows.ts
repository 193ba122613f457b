// svc workflows list|get|create|update|delete|activate|pause|run|executions|execution|cancel
import { apiCommand, apiPath, listCommand } from '../api-commands.js';
import { command, defineCommands, stringOption, type Options, group } from '../command.js';
import type { CliContext } from '../context.js';
import { CliError, UsageError } from '../errors.js';
import { chalk, chalkStderr, table } from '../output.js';
import {
  brief,
  detailsInWords,
  endedBadly,
  failure,
  failureLine,
  formatDuration,
  type Execution,
  type Workflow,
  type WorkflowStep,
} from '../workflow-views.js';
import type { WorkflowDocument } from '../workflow-file.js';

const WORKFLOW_ID = { name: 'id', description: 'workflow id (wfl_...)' };
const RUN_ARGS = [WORKFLOW_ID, { name: 'execution', description: 'execution id (wex_...)' }];
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

function stepEdges(step: WorkflowStep): string {
  const edges: string[] = [];
  if (step.type === 'condition') {
    edges.push(
      `true -> ${String(step.config?.if_true ?? '-')}`,
      `false -> ${String(step.config?.if_false ?? '-')}`,
    );
  }
  if (step.type === 'parallel' && Array.isArray(step.config?.steps)) {
    edges.push(
      `[${step.config.steps.join(', ')}]${step.config.wait_for_all === false ? ' (first)' : ''}`,
    );
  }
  if (step.next_step_id) edges.push(`-> ${step.next_step_id}`);
  if (step.on_error) edges.push(`on error -> ${step.on_error}`);
  return edges.join('  ');
}

function describeWorkflow(workflow: Workflow): string {
  const settings = workflow.settings ?? {};
  const retry = settings.retry_policy;
  const lines = [
    `${chalk.cyan(workflow.id)} "${workflow.name}" ${statusColour(workflow.status)}`,
    ...(workflow.description ? [workflow.description] : []),
    `trigger:  ${workflow.trigger.type}${workflow.trigger.config && Object.keys(workflow.trigger.config).length ? ` ${JSON.stringify(workflow.trigger.config)}` : ''}`,
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
        stepEdges(step),
      ]),
    ),
  ];
  return lines.join('\n');
}

function describeExecution(execution: Execution): string {
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
    lines.push(`duration: ${formatDuration(execution.duration_seconds * 1000)}`);
  if (execution.step_results?.length) {
    lines.push(
      '',
      table(
        ['STEP', 'TYPE', 'STATUS', 'DURATION', 'RESULT'],
        execution.step_results.map((step) => [
          step.attempt > 1 ? `${step.step_id} #${step.attempt}` : step.step_id,
          step.type,
          statusColour(step.status),
          formatDuration(step.duration_ms),
          step.error ? `${step.error.code}: ${step.error.message}` : brief(step.result, 60),
        ]),
      ),
    );
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

async function setStatus(ctx: CliContext, id: string, status: 'active' | 'paused') {
  const workflow = await (
    await ctx.api()
  ).data<Workflow>('PATCH', apiPath('workflows', id), { body: { status } });
  ctx.out.result(
    workflow,
    () => `Workflow ${chalk.cyan(workflow.id)} is ${statusColour(workflow.status)}`,
  );
}

/** The run with --wait: a live view on stderr, the result on stdout, exit 1 if it ended badly. */
async function runAndWait(
  ctx: CliContext,
  workflowId: string,
  input: Record<string, unknown>,
): Promise<void> {
  const api = await ctx.api();
  const [{ followRun }, { RunView }] = await Promise.all([
    import('../follow-run.js'),
    import('../run-view.js'),
  ]);
  const workflow = await api.data<Workflow>('GET', apiPath('workflows', workflowId));
  const stderrTty = Boolean(process.stderr.isTTY);
  const view = new RunView(process.stderr, workflow.steps, {
    live: stderrTty && !ctx.out.json,
    colour: stderrTty && process.env.NO_COLOR === undefined,
    columns: process.stderr.columns,
  });
  let outcome;
  try {
    outcome = await followRun({
      ctx,
      api,
      workflowId,
      async start() {
        const started = await api.data<{ execution_id: string }>(
          'POST',
          apiPath('workflows', workflowId, 'execute'),
          { body: { input, wait_for_completion: false } },
        );
        return started.execution_id;
      },
      onUpdate: (execution) => view.update(execution),
    });
  } finally {
    view.close();
  }
  if (outcome.type === 'detached') {
    ctx.out.note(
      `Stopped watching; run ${outcome.executionId} goes on. ` +
        `Follow it with: svc workflows execution ${workflowId} ${outcome.executionId}`,
    );
    if (ctx.out.json)
      ctx.out.result(outcome.execution ?? { execution_id: outcome.executionId }, () => '');
    process.exitCode = 130;
    return;
  }
  // stdout carries the data only (the execution with --json, else the run's result); what
  // happened is said on stderr, so `svc workflows run ... --wait | jq .` reads the result.
  const execution = outcome.execution;
  const seeSteps = `See every step with: svc workflows execution ${workflowId} ${execution.execution_id}`;
  if (endedBadly(execution)) {
    const { error } = failure(execution);
    ctx.out.summary('failed', failureLine(execution, workflow.steps));
    const details = detailsInWords(error?.details, failure(execution).stepId);
    if (details) ctx.out.note(details);
    ctx.out.note(seeSteps);
    if (ctx.out.json) ctx.out.result(execution, () => '');
    process.exitCode = 1;
    return;
  }
  ctx.out.summary(
    'ok',
    `Run ${execution.execution_id} completed in ${formatDuration((execution.duration_seconds ?? 0) * 1000)}`,
  );
  ctx.out.result(execution, () => JSON.stringify(execution.result ?? null, null, 2));
}

export default defineCommands([
  group(['workflows'], 'Workflows: create from JSON/YAML files, run (live progress), runs, cancel'),
  listCommand({
    path: ['workflows', 'list'],
    description: 'List workflows',
    options: [
      { flags: '--status <status>', description: 'draft, active, paused or archived' },
      ...NEXT_PAGE_OPTIONS,
    ],
    endpoint: () => '/workflows',
    query: (options) => ({ status: options.status }),
    columns: ['ID', 'NAME', 'STATUS', 'STEPS', 'RUNS', 'SUCCESS', 'LAST RUN'],
    row: (w: Workflow) => [
      w.id,
      w.name,
      statusColour(w.status),
      String(w.steps.length),
      String(w.stats.total_executions),
      percent(w.stats.success_rate),
      w.last_executed_at ?? '-',
    ],
    nextPageHint: true,
  }),
  apiCommand({
    path: ['workflows', 'get'],
    description: 'Show a workflow and its steps',
    args: [WORKFLOW_ID],
    endpoint: ([id]) => apiPath('workflows', id!),
    print: describeWorkflow,
  }),
  {
    path: ['workflows', 'create'],
    description: 'Create a workflow from a JSON or YAML file (created draft unless it says status)',
    options: [
      {
        flags: '-f, --file <file>',
        description: 'workflow file, .json, .yaml or .yml (- for stdin)',
      },
      { flags: '--status <status>', description: 'draft (default), active, paused or archived' },
    ],
    examples: ['svc workflows create -f refund.yaml --status active --json'],
    async run(ctx, _args, options) {
      const { file, document } = await documentFrom(options);
      const workflow = await sendDocument(ctx, 'POST', '/workflows', file, document);
      ctx.out.result(workflow, () => `Created ${describeWorkflow(workflow)}`);
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
      { flags: '--status <status>', description: 'draft, active, paused or archived' },
    ],
    examples: ['svc workflows update wfl_... -f refund.yaml'],
    async run(ctx, [id], options) {
      const { file, document } = await documentFrom(options);
      const workflow = await sendDocument(ctx, 'PATCH', apiPath('workflows', id!), file, document);
      ctx.out.result(workflow, () => `Updated ${describeWorkflow(workflow)}`);
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
    ],
    examples: [
      `svc workflows run wfl_... --input '{"order_id": "A-1", "amount": 120}' --wait`,
      'svc workflows run wfl_... --input @order.json --wait --json',
    ],
    async run(ctx, [id], options) {
      const { readRunInput } = await import('../workflow-file.js');
      const input = await readRunInput(stringOption(options, 'input'));
      if (options.wait === true) {
        await runAndWait(ctx, id!, input);
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
      ctx.out.note(
        chalkStderr.dim(`Follow it with: svc workflows execution ${id} ${started.execution_id}`),
      );
    },
  }),
  listCommand({
    path: ['workflows', 'executions'],
    description: 'List the runs of a workflow, newest first',
    args: [WORKFLOW_ID],
    options: [
      {
        flags: '--status <status>',
        description: 'running, awaiting_approval, completed, failed, cancelled or timeout',
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
  apiCommand({
    path: ['workflows', 'execution'],
    description: 'Show a run: status, current step, each step result, the result',
    args: RUN_ARGS,
    endpoint: ([id, executionId]) => apiPath('workflows', id!, 'executions', executionId!),
    print: describeExecution,
  }),
  apiCommand({
    path: ['workflows', 'cancel'],
    description: 'Cancel a run wherever it is (in a wait, a parallel branch, awaiting approval)',
    args: RUN_ARGS,
    method: 'POST',
    endpoint: ([id, executionId]) =>
      apiPath('workflows', id!, 'executions', executionId!, 'cancel'),
    print: (result: { execution_id: string; status: string; cancelled_at: string }) =>
      `Cancelled run ${chalk.cyan(result.execution_id)} at ${result.cancelled_at}`,
  }),
]);
