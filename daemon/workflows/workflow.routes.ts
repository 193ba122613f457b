// /v1/workflows: the resource, its runs (execute, alias run), and cancel.
import {
  CancelledExecution,
  ExecuteAnswer,
  ExecuteBody,
  ExecutionIdParams,
  ExecutionListQuery,
  ExecutionParams,
  RerunBody,
  Workflow,
  WorkflowCreateBody,
  WorkflowExecution,
  WorkflowListQuery,
  WorkflowParams,
  WorkflowUpdateBody,
} from '../../shared/schemas/workflows.js';
import { listRoute, objectRoute, tenantRoute, type RouteDef } from '../http/route.js';
import { resourceRoutes } from '../http/resource-routes.js';
import type { RestModule } from '../http/rest-module.js';
import type { WorkflowExecutionsService } from './executions.service.js';
import type { WorkflowService } from './workflow.service.js';

const read = tenantRoute('workflows:read');
const execute = tenantRoute('workflows:execute');
const resources = { operation: 'resources' } as const;
const tag = 'Workflows';

const EXECUTE_DESCRIPTION =
  'Starts a run with `input` as trigger.payload. wait_for_completion false (default): 202 {execution_id, workflow_id, status: running, created_at}. true: 200 with the completed (or cancelled) execution; 500 step_failed (extras step_id, step_name, underlying_error {code, message}, execution_id); 408 workflow_timeout; 202 with the execution when it still runs after 60 s on the daemon clock or awaits an approval. draft and active workflows run; paused and archived answer 409 workflow_not_active. Step error codes inside underlying_error include the API codes of the agent path (guardrail_violation, agent_not_found, agent_not_active, external_api_error, ...) and secret_not_found, invalid_expression, approval_rejected, invalid_url.';

const workflow = resourceRoutes({
  tag,
  path: '/v1/workflows',
  idParam: 'workflow_id',
  name: { singular: 'workflow', plural: 'workflows', article: 'a' },
  scopes: { read: 'workflows:read', write: 'workflows:write' },
  rateLimit: resources,
  notFound: 'workflow_not_found',
  item: Workflow,
  params: WorkflowParams,
  listQuery: WorkflowListQuery,
  createBody: WorkflowCreateBody,
  updateBody: WorkflowUpdateBody,
});

export const workflowModule: RestModule<{
  workflows: WorkflowService;
  runs: WorkflowExecutionsService;
}> = { tag: { name: tag }, routes: ({ workflows, runs }) => workflowRoutes(workflows, runs) };

export function workflowRoutes(
  workflows: WorkflowService,
  runs: WorkflowExecutionsService,
): RouteDef[] {
  const executeRoute = (path: string, operationId: string, summary: string) =>
    objectRoute({
      method: 'POST',
      path,
      operationId,
      summary,
      description: EXECUTE_DESCRIPTION,
      tag,
      auth: execute,
      rateLimit: { operation: 'workflows.execute', perParam: 'workflow_id' },
      params: WorkflowParams,
      body: ExecuteBody,
      status: 202,
      alsoStatus: [200],
      errors: ['workflow_not_found', 'workflow_not_active', 'step_failed', 'workflow_timeout'],
      response: ExecuteAnswer,
      handler: async ({ params, body, ctx, reply }) => {
        const { status, execution } = await runs.execute(
          ctx.workspace.id,
          params.workflow_id,
          body,
        );
        reply.code(status);
        return execution;
      },
    });
  return [
    workflow.list(({ query, ctx }) => workflows.list(ctx.workspace.id, query)),
    workflow.create(({ body, ctx }) => workflows.create(ctx.workspace.id, body), {
      description:
        "Created draft unless status is given. The whole step graph is validated: unique step ids, every reference (next_step_id, if_true, if_false, parallel steps, on_error) names a step, required config per type, agents of the workspace, expressions that parse (400 invalid_step_config with param such as steps[2].config.if_false), at most 2,000 characters an expression and 500 expressions of 10,000 characters in all per workflow (400 invalid_step_config naming the field where the bound is passed), and secrets used only whole: {{secrets.NAME}} alone between the braces, text around it allowed; an index, member such as .length, comparison, operator, filter, call, bare secrets, this or secrets['NAME'] is 400 invalid_step_config naming the step, the field and the rule, and a condition may not read secrets at all; any loop is 400 circular_dependency with extras cycle. A step reached twice while a parallel step runs (by two of its branches, through next_step_id, on_error, a condition's targets or a nested parallel step, or by a branch and the parallel step's own next_step_id, which runs after the join) would run twice per run: 400 invalid_step_config naming the step, the parallel step and the shortest path through each, with extras step_id, parallel_step_id and paths, and param at the field that makes the second path; paths that exclude each other (a condition's two targets, next_step_id and on_error) may meet. The first step is the entry. A webhook trigger's config.secret is write-only: stored sealed, never returned (this answer too shows has_secret: true).",
      rateLimit: { operation: 'workflows.create' },
      errors: ['invalid_step_config', 'circular_dependency', 'invalid_url'],
    }),
    workflow.get(({ params, ctx }) => workflows.get(ctx.workspace.id, params.workflow_id)),
    workflow.update(
      ({ params, body, ctx }) => workflows.update(ctx.workspace.id, params.workflow_id, body),
      {
        description:
          'Change name, description, status, trigger, steps or settings (merged). The graph is validated again, as on create (a step reached twice while a parallel step runs included), even when the steps are not in the request. Runs already started keep the definition they started with. A webhook trigger sent without config.secret keeps the stored secret; secret: null removes it; a string replaces it (has_secret is read-only and ignored).',
        errors: ['invalid_step_config', 'circular_dependency', 'invalid_url'],
      },
    ),
    workflow.delete(({ params, ctx }) => workflows.delete(ctx.workspace.id, params.workflow_id), {
      description: 'Irreversible; its running runs are cancelled first.',
    }),
    executeRoute('/v1/workflows/:workflow_id/execute', 'executeWorkflow', 'Run a workflow'),
    executeRoute(
      '/v1/workflows/:workflow_id/run',
      'runWorkflow',
      'Run a workflow (alias of execute)',
    ),
    listRoute({
      method: 'GET',
      path: '/v1/workflows/:workflow_id/executions',
      operationId: 'listWorkflowExecutions',
      summary: 'List runs of a workflow',
      description: 'Newest first; runs are kept 30 days.',
      tag,
      auth: read,
      rateLimit: resources,
      params: WorkflowParams,
      query: ExecutionListQuery,
      errors: ['workflow_not_found'],
      response: WorkflowExecution,
      handler: ({ params, query, ctx }) => runs.list(ctx.workspace.id, params.workflow_id, query),
    }),
    objectRoute({
      method: 'GET',
      path: '/v1/workflows/:workflow_id/executions/:execution_id',
      operationId: 'getWorkflowExecution',
      summary: 'Retrieve a run',
      description:
        'With current_step, steps_completed, steps_total and step_results (one entry per step attempt, then the steps running or waiting now). Secret values show as [secret:NAME].',
      tag,
      auth: read,
      rateLimit: resources,
      params: ExecutionParams,
      errors: ['workflow_not_found', 'execution_not_found'],
      response: WorkflowExecution,
      handler: ({ params, ctx }) =>
        runs.get(ctx.workspace.id, params.workflow_id, params.execution_id),
    }),
    objectRoute({
      method: 'GET',
      path: '/v1/executions/:execution_id',
      operationId: 'getExecution',
      summary: 'Retrieve a run by its id alone',
      description:
        'The same run as GET /v1/workflows/{workflow_id}/executions/{execution_id}, found without its workflow id (run ids are unique; workflow_id is in the answer). For a run started by a hook, a schedule or an event, whose workflow the caller may not know (svc workflows watch wex_...). A run of another workspace, or past the 30 days runs are kept: 404 execution_not_found.',
      tag,
      auth: read,
      rateLimit: resources,
      params: ExecutionIdParams,
      errors: ['execution_not_found'],
      response: WorkflowExecution,
      handler: ({ params, ctx }) => runs.getById(ctx.workspace.id, params.execution_id),
    }),
    objectRoute({
      method: 'POST',
      path: '/v1/workflows/:workflow_id/executions/:execution_id/cancel',
      operationId: 'cancelWorkflowExecution',
      summary: 'Cancel a run',
      description:
        'Stops the run wherever it is (a step, a wait, a parallel branch, an approval) and drops its timers, in one transaction. The steps it was at stay in step_results with status cancelled; failed_step names the step it was cancelled at, error.code is execution_cancelled. An agent execution it awaits approval from is cancelled with it (status cancelled, error.code workflow_run_cancelled, agent.execution.failed with status cancelled): approving or rejecting it afterwards is 409 conflict naming this run. The run publishes workflow.execution.failed with status cancelled (the spec has no cancelled event type), then nothing more. A run that already ended: 409 execution_not_cancellable.',
      tag,
      auth: execute,
      rateLimit: resources,
      params: ExecutionParams,
      errors: ['workflow_not_found', 'execution_not_found', 'execution_not_cancellable'],
      response: CancelledExecution,
      handler: ({ params, ctx }) =>
        runs.cancel(ctx.workspace.id, params.workflow_id, params.execution_id),
    }),
    objectRoute({
      method: 'POST',
      path: '/v1/workflows/:workflow_id/executions/:execution_id/rerun',
      operationId: 'rerunWorkflowExecution',
      summary: 'Re-run a run',
      description:
        "Starts a new run with the original run's input (and trigger type), on the workflow as it is now. With from_step_id, the step results the original run recorded before it first reached that step are kept (copied into the new run's step_results, not run again) and execution starts at that step, like Temporal's reset; a step inside a parallel step's branches is 400 invalid_parameter, a step the original never reached is 409 conflict. The new run has rerun_of (and from_step_id); the original lists it in reruns. Answers like execute: 202 {execution_id, workflow_id, status, created_at, rerun_of, from_step_id}, or with wait_for_completion the finished run (200; 500 step_failed; 408 workflow_timeout).",
      tag,
      auth: execute,
      rateLimit: { operation: 'workflows.execute', perParam: 'workflow_id' },
      params: ExecutionParams,
      body: RerunBody,
      status: 202,
      alsoStatus: [200],
      errors: [
        'workflow_not_found',
        'execution_not_found',
        'workflow_not_active',
        'conflict',
        'step_failed',
        'workflow_timeout',
      ],
      response: ExecuteAnswer,
      handler: async ({ params, body, ctx, reply }) => {
        const { status, execution } = await runs.rerun(
          ctx.workspace.id,
          params.workflow_id,
          params.execution_id,
          body,
        );
        reply.code(status);
        return execution;
      },
    }),
  ];
}
