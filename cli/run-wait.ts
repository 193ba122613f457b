// One way to follow a workflow run to its end, shared by `svc workflows run --wait`, `svc
// workflows rerun --wait` and `svc workflows watch`: the live view on stderr (approval and wait
// hints included), the result on stdout, exit 1 if the run ended badly, 130 when the user stops
// watching. Only how the run is found differs: started here (execute, rerun) or already going.
import type { ClockState } from '../shared/schemas/control-output.js';
import { apiPath } from './api-commands.js';
import { readClock, sandboxNow } from './wake-text.js';
import type { CliContext } from './context.js';
import {
  detailsInWords,
  endedBadly,
  failure,
  failureLine,
  formatDuration,
  type Workflow,
} from './workflow-views.js';

export interface FollowToEndOptions {
  workflowId: string;
  /** Starts the run (or names the one to watch) once the event stream is open; its id. */
  start(): Promise<string>;
  /** Said after the view's first line, e.g. "a re-run of wex_1 from step page". */
  origin?: string;
  /** --timeout: follow at most this long (real time), then exit 1; the run goes on. */
  timeoutMs?: number;
  /**
   * End at once, exit 1, when the run is parked on the frozen sandbox clock (nothing happens
   * until the clock moves or an approval is decided), saying what moves it on. Not for watch.
   */
  endWhenParked?: boolean;
}

export async function followToEnd(ctx: CliContext, options: FollowToEndOptions): Promise<void> {
  const { workflowId } = options;
  const api = await ctx.api();
  const [{ followRun }, { RunView }] = await Promise.all([
    import('./follow-run.js'),
    import('./run-view.js'),
  ]);
  // The daemon clock, read with the workflow (no wait added before the first line), then again
  // in the background after each update that shows a wait or a retry (the safety poll makes one
  // a second): `svc clock advance` elsewhere moves it without any run event.
  let clock: ClockState | undefined;
  let reading: Promise<void> | undefined;
  const readAgain = () => {
    reading ??= readClock(ctx).then((state) => {
      clock = state ?? clock;
      reading = undefined;
    });
  };
  const [workflow] = await Promise.all([
    api.data<Workflow>('GET', apiPath('workflows', workflowId)),
    readClock(ctx).then((state) => void (clock = state)),
  ]);
  const stderrTty = Boolean(process.stderr.isTTY);
  const view = new RunView(process.stderr, workflow.steps, {
    live: stderrTty && !ctx.out.json,
    colour: stderrTty && process.env.NO_COLOR === undefined,
    columns: process.stderr.columns,
    clock: () => clock && sandboxNow(clock),
  });
  let outcome;
  const control = options.endWhenParked ? await ctx.control().catch(() => undefined) : undefined;
  try {
    outcome = await followRun({
      ctx,
      api,
      workflowId,
      ...(options.timeoutMs === undefined ? {} : { deadline: Date.now() + options.timeoutMs }),
      ...(control
        ? {
            parked: async (execution) =>
              (await control.workflows.parked.query({ execution_id: execution.execution_id }))
                .message ?? undefined,
          }
        : {}),
      async start() {
        const executionId = await options.start();
        // The id first, before any step: a script (or a user) that stops here can find the run.
        if (options.origin) ctx.out.note(`run ${executionId} is ${options.origin}`);
        return executionId;
      },
      onUpdate(execution) {
        view.update(execution);
        if (execution.step_results.some((step) => step.wakes_at)) readAgain();
      },
    });
  } finally {
    view.close();
  }
  if (outcome.type === 'detached') {
    ctx.out.note(
      `Stopped watching; run ${outcome.executionId} goes on. ` +
        `Follow it again with: svc workflows watch ${outcome.executionId}`,
    );
    if (ctx.out.json)
      ctx.out.result(outcome.execution ?? { execution_id: outcome.executionId }, () => '');
    process.exitCode = 130;
    return;
  }
  if (outcome.type === 'parked' || outcome.type === 'timeout') {
    const executionId =
      outcome.type === 'parked' ? outcome.execution.execution_id : outcome.executionId;
    ctx.out.summary(
      'waiting',
      outcome.type === 'parked'
        ? outcome.message
        : `Stopped following run ${executionId} after ${formatDuration(options.timeoutMs!)} (--timeout); it goes on.`,
    );
    ctx.out.note(`Follow it again with: svc workflows watch ${executionId}`);
    if (ctx.out.json) ctx.out.result(outcome.execution ?? { execution_id: executionId }, () => '');
    process.exitCode = 1;
    return;
  }
  // stdout carries the data only (the execution with --json, else the run's result); what
  // happened is said on stderr, so `svc workflows run ... --wait | jq .` reads the result.
  const execution = outcome.execution;
  const seeSteps = `See every step with: svc workflows execution ${workflowId} ${execution.execution_id}`;
  if (endedBadly(execution)) {
    const { error, stepId } = failure(execution);
    ctx.out.summary('failed', failureLine(execution, workflow.steps));
    const details = detailsInWords(error?.details, stepId);
    if (details) ctx.out.note(details);
    ctx.out.note(seeSteps);
    if (ctx.out.json) ctx.out.result(execution, () => '');
    process.exitCode = 1;
    return;
  }
  ctx.out.summary(
    'ok',
    `Run ${execution.execution_id} completed in ${formatDuration(execution.elapsed_ms ?? (execution.duration_seconds ?? 0) * 1000)}`,
  );
  ctx.out.result(execution, () => JSON.stringify(execution.result ?? null, null, 2));
}
