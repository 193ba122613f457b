// The executions API of a workflow: start a run by hand (answering at once or once it ends, up
// to 60 s on the daemon clock), list and show runs (kept 30 days), cancel one.
import { successors } from '../../shared/schemas/steps.js';
import type {
  ExecuteAnswerView,
  ExecuteInput,
  RerunInput,
  WorkflowExecutionView,
  WorkflowStepView,
} from '../../shared/schemas/workflows.js';
import type { Definition } from '../engine/ports.js';
import { toIso, type Clock } from '../time/clock.js';
import type { WorkflowEngine } from '../engine/engine.js';
import type { RunRepository, RunRow } from '../engine/run.repository.js';
import { readRunState } from '../store/run-state.js';
import { ApiError } from '../domain/errors.js';
import type { ListQueryInput, Page } from '../domain/pages.js';
import type { CommitQueue } from '../store/commit-queue.js';
import type { WorkflowService } from './workflow.service.js';

export const RUN_RETENTION_MS = 30 * 86_400_000;
/** wait_for_completion answers 202 with the running execution past this. */
export const MAX_WAIT_MS = 60_000;

/** What the dashboard shows of a run: the API's view, the steps it ran, and what it waits for. */
export interface RunDetail {
  execution: WorkflowExecutionView;
  /** The definition the run started with (its pinned version). */
  steps: WorkflowStepView[];
  /** Pending activations; a wait or a retry has the time it wakes up (daemon clock). */
  pending: {
    step_id: string;
    state: string;
    attempt: number;
    started_at: string;
    wake_at: string | null;
    agent_execution_id: string | null;
  }[];
}

/** Runs of workflows; an agent's executions are `agents/execution.service.ts`'s ExecutionService. */
export class WorkflowExecutionsService {
  constructor(
    private readonly commits: CommitQueue,
    private readonly repo: RunRepository,
    private readonly workflows: WorkflowService,
    private readonly engine: WorkflowEngine,
    private readonly clock: Clock,
  ) {}

  async execute(
    workspaceId: string,
    workflowId: string,
    body: ExecuteInput,
  ): Promise<{ status: 200 | 202; execution: ExecuteAnswerView }> {
    const workflow = this.runnable(workspaceId, workflowId);
    // Group-committed with other starts, with the first steps that need no waiting; the next
    // ones start once it is committed.
    const started = await this.commits.run(() =>
      this.engine.start(workspaceId, workflow.id, {
        input: body.input,
        trigger: { type: 'manual', payload: body.input },
        inline: true,
      }),
    );
    return this.answer(started, body.wait_for_completion === true);
  }

  /**
   * POST .../executions/{id}/rerun: a new run with the original's input (and trigger type and
   * headers), on the workflow as it is now. With from_step_id, the step rows the original
   * wrote before its first attempt of that step become the new run's own (their results in
   * scope, not run again) and the run starts at that step, like Temporal's reset.
   */
  async rerun(
    workspaceId: string,
    workflowId: string,
    executionId: string,
    body: RerunInput,
  ): Promise<{ status: 200 | 202; execution: ExecuteAnswerView }> {
    const source = this.row(workspaceId, workflowId, executionId);
    const workflow = this.runnable(workspaceId, workflowId);
    const fromStepId = body.from_step_id;
    const state = readRunState(source.frontier, source.id);
    let keep: ReturnType<RunRepository['steps']> = [];
    if (fromStepId !== undefined) {
      const definition = this.workflows.definition(workflow.id, workflow.version)!;
      checkRerunStep(definition, fromStepId);
      const steps = this.repo.steps(source.id);
      const reached = steps.some((step) => step.step_id === fromStepId);
      const pending = state.acts.some((act) => act.step_id === fromStepId);
      if (!reached && !pending) {
        throw new ApiError(
          'conflict',
          `Run ${source.id} never reached step ${fromStepId}: there are no earlier results to keep. Re-run it whole (without from_step_id) or pick a step it ran.`,
          { param: 'from_step_id' },
        );
      }
      // A parallel step's row is written at its join, after its branches' rows; those steps run
      // again from it, so what is kept ends before the first row of a step it leads to.
      const again = reachFrom(definition, [fromStepId]);
      const cut = steps.findIndex((step) => again.has(step.step_id));
      keep = cut === -1 ? steps : steps.slice(0, cut);
    }
    const input = JSON.parse(source.input) as Record<string, unknown>;
    const headers = state.headers;
    const started = await this.commits.run(() =>
      this.engine.start(workspaceId, workflow.id, {
        input,
        trigger: {
          type: source.trigger_type as 'manual',
          payload: input,
          ...(headers ? { headers } : {}),
        },
        inline: true,
        rerun: { of: source.id, fromStepId, keep },
      }),
    );
    return this.answer(started, body.wait_for_completion === true);
  }

  private runnable(workspaceId: string, workflowId: string) {
    const workflow = this.workflows.configuredRow(workspaceId, workflowId);
    if (workflow.status === 'paused' || workflow.status === 'archived') {
      throw new ApiError(
        'workflow_not_active',
        `Workflow ${workflow.id} is ${workflow.status}. Activate it first: PATCH /v1/workflows/${workflow.id} {"status": "active"}.`,
        { extras: { workflow_status: workflow.status } },
      );
    }
    return workflow;
  }

  /** What execute and rerun answer: at once (202), or the run once it ended (up to 60 s). */
  private async answer(
    started: WorkflowExecutionView,
    wait: boolean,
  ): Promise<{ status: 200 | 202; execution: ExecuteAnswerView }> {
    if (!wait) {
      return {
        status: 202,
        execution: {
          execution_id: started.execution_id,
          workflow_id: started.workflow_id,
          status: 'running',
          created_at: started.created_at,
          ...(started.rerun_of
            ? { rerun_of: started.rerun_of, from_step_id: started.from_step_id }
            : {}),
        },
      };
    }
    const row = (await this.engine.waitFor(started.execution_id, MAX_WAIT_MS))!;
    const view = this.engine.viewOf(row);
    switch (row.status) {
      case 'completed':
      case 'cancelled':
        return { status: 200, execution: view };
      case 'running':
      case 'awaiting_approval':
        return { status: 202, execution: view };
      case 'timeout':
        throw new ApiError(
          'workflow_timeout',
          `The run ${row.id} exceeded settings.timeout_seconds and was stopped.`,
          { extras: { execution_id: row.id, failed_step: row.failed_step } },
        );
      case 'failed': {
        const step = view.failed_step ?? null;
        const name =
          step === null
            ? null
            : (this.workflows.definition(row.workflow_id, row.version)?.byId.get(step)?.name ??
              step);
        throw new ApiError(
          'step_failed',
          `Step ${step ?? '(unknown)'} failed: ${row.error_message ?? 'no detail'}`,
          {
            extras: {
              step_id: step,
              step_name: name,
              underlying_error: {
                code: row.error_code ?? 'step_failed',
                message: row.error_message ?? '',
              },
              execution_id: row.id,
            },
          },
        );
      }
    }
  }

  list(
    workspaceId: string,
    workflowId: string,
    query: ListQueryInput & { status?: string | undefined },
  ): Page<WorkflowExecutionView> {
    const workflow = this.workflows.row(workspaceId, workflowId);
    return this.viewPage(
      this.repo.page({ ...query, workflowId: workflow.id, since: this.cutoff() }),
    );
  }

  get(workspaceId: string, workflowId: string, executionId: string): WorkflowExecutionView {
    return this.engine.view(this.row(workspaceId, workflowId, executionId));
  }

  cancel(
    workspaceId: string,
    workflowId: string,
    executionId: string,
  ): { execution_id: string; status: 'cancelled'; cancelled_at: string } {
    const row = this.row(workspaceId, workflowId, executionId);
    const cancelled = this.engine.cancel(row.id);
    if (!cancelled) {
      throw new ApiError(
        'execution_not_cancellable',
        `Execution ${row.id} already ended (${row.status}); only running runs can be cancelled.`,
        { extras: { execution_status: row.status } },
      );
    }
    return {
      execution_id: row.id,
      status: 'cancelled',
      cancelled_at: toIso(cancelled.cancelled_at!),
    };
  }

  /** The runs of a workspace across its workflows, newest first (the dashboard's runs page). */
  listInWorkspace(
    workspaceId: string,
    query: ListQueryInput & {
      workflow_id?: string | undefined;
      status?: string | undefined;
      from?: number | undefined;
      to?: number | undefined;
    },
  ): Page<WorkflowExecutionView> {
    return this.viewPage(
      this.repo.pageOfWorkspace({
        ...query,
        workspaceId,
        workflowId: query.workflow_id,
        since: this.cutoff(),
      }),
    );
  }

  private viewPage(page: Page<RunRow>): Page<WorkflowExecutionView> {
    return { ...page, items: this.engine.views(page.items) };
  }

  /** Runs of the workspace created in the last `ms` on the daemon clock, by status. */
  statusCounts(workspaceId: string, ms: number): Record<string, number> {
    return this.repo.statusCounts(workspaceId, Math.max(this.cutoff(), this.clock.now() - ms));
  }

  /** GET /v1/executions/{id}: a run of the workspace by its id alone (run ids are unique). */
  getById(workspaceId: string, executionId: string): WorkflowExecutionView {
    return this.engine.view(this.rowInWorkspace(workspaceId, executionId));
  }

  /** A run of the workspace by its id alone, with its definition and pending work. */
  detail(workspaceId: string, executionId: string): RunDetail {
    const row = this.rowInWorkspace(workspaceId, executionId);
    const definition = this.workflows.definition(row.workflow_id, row.version);
    return {
      execution: this.engine.view(row),
      steps: definition?.steps ?? [],
      pending: readRunState(row.frontier, row.id).acts.map((act) => ({
        step_id: act.step_id,
        state: act.state,
        attempt: act.attempt,
        started_at: toIso(act.started_at),
        wake_at: toIso(act.wake_at ?? null),
        agent_execution_id: act.agent_execution_id ?? null,
      })),
    };
  }

  /** Cancel, knowing the run's id alone (same rule as cancel). */
  cancelInWorkspace(workspaceId: string, executionId: string) {
    const row = this.rowInWorkspace(workspaceId, executionId);
    return this.cancel(workspaceId, row.workflow_id, row.id);
  }

  /** Starts a new manual run of the same workflow with the same input. */
  runAgain(workspaceId: string, executionId: string) {
    const row = this.rowInWorkspace(workspaceId, executionId);
    return this.execute(workspaceId, row.workflow_id, {
      input: JSON.parse(row.input) as Record<string, unknown>,
      wait_for_completion: false,
    });
  }

  /** The run that waits on an agent execution's approval, if a workflow step asked for it. */
  runAwaiting(agentExecutionId: string): string | null {
    return this.repo.approval(agentExecutionId)?.execution_id ?? null;
  }

  /** Deletes runs past the 30-day retention on the daemon clock. */
  purgeExpired(): number {
    return this.engine.purgeBefore(this.cutoff());
  }

  private cutoff(): number {
    return this.clock.now() - RUN_RETENTION_MS;
  }

  private rowInWorkspace(workspaceId: string, executionId: string): RunRow {
    const row = this.repo.get(executionId);
    if (!row || row.workspace_id !== workspaceId || row.created_at < this.cutoff()) {
      throw new ApiError(
        'execution_not_found',
        `No execution ${executionId} in this workspace (executions are kept 30 days).`,
        { param: 'execution_id' },
      );
    }
    return row;
  }

  private row(workspaceId: string, workflowId: string, executionId: string): RunRow {
    const workflow = this.workflows.row(workspaceId, workflowId);
    const row = this.repo.get(executionId);
    if (!row || row.workflow_id !== workflow.id || row.created_at < this.cutoff()) {
      throw new ApiError(
        'execution_not_found',
        `No execution ${executionId} for workflow ${workflow.id} (executions are kept 30 days).`,
        { param: 'execution_id' },
      );
    }
    return row;
  }
}

/** The given steps and every step they may lead to, by any edge (one walk of the graph). */
function reachFrom(definition: Definition, starts: Iterable<string>): Set<string> {
  const found = new Set<string>();
  const todo = [...starts];
  for (let id = todo.pop(); id !== undefined; id = todo.pop()) {
    if (found.has(id)) continue;
    found.add(id);
    const step = definition.byId.get(id);
    if (step) todo.push(...successors(step));
  }
  return found;
}

/**
 * A re-run starts at a step of the top level: a step inside a parallel step's chains would run
 * without its join (its siblings and what follows the join would never run).
 */
function checkRerunStep(definition: Definition, stepId: string): void {
  if (!definition.byId.has(stepId)) {
    throw new ApiError(
      'invalid_parameter',
      `The workflow has no step ${stepId}. from_step_id names one of its steps.`,
      { param: 'from_step_id' },
    );
  }
  const inBranches = reachFrom(
    definition,
    definition.steps.flatMap((step) => (step.type === 'parallel' ? step.config.steps : [])),
  );
  if (inBranches.has(stepId)) {
    throw new ApiError(
      'invalid_parameter',
      `Step ${stepId} runs inside a parallel step's branches; a re-run starts at a step outside them (e.g. the parallel step itself).`,
      { param: 'from_step_id' },
    );
  }
}
