// The API of the Templates page: the workflow templates (the catalogue of GET
// /v1/workflows/templates and `svc workflows templates`), each with its steps placed as a graph,
// and a workflow made from one with what `svc workflows init` asks for: a name, the values the
// template leaves to its user (checked by the same placeholderProblem) and an agent per role.
// The workflow is created by the TemplateService of POST /v1/workflows/from-template.
import { z } from 'zod';
import { AGENT_STATUSES, AGENT_TYPES } from '../../shared/schemas/enums.js';
import { WorkflowTemplate } from '../../shared/schemas/templates.js';
import { Workflow, type WorkflowStepView } from '../../shared/schemas/workflows.js';
import { placeholderProblem } from '../../shared/templates.js';
import { invalidParameter } from '../domain/errors.js';
import { StepGraph } from './answers.js';
import { params, route, WorkspaceQuery, type ApiKit } from './api-kit.js';
import type { DashboardServices } from './deps.js';
import { stepGraph } from './step-graph.js';

const CreateBody = z.strictObject({
  name: z.string().trim().min(1).max(200),
  status: z.enum(['draft', 'active']).default('draft'),
  /** Role -> agent id. */
  agents: z.record(z.string().max(100), z.string().max(100)).default({}),
  /** Placeholder path (steps.STEP.KEY) -> value. */
  values: z.record(z.string().max(200), z.string().max(2000)).default({}),
});

/** The agents a role may be given (the newest hundred of the workspace). */
const AGENT_CHOICES = 100;

export const templatesRoutes = {
  'GET /templates': route(
    WorkspaceQuery,
    z.object({
      data: z.array(WorkflowTemplate.extend({ graph: StepGraph })),
      /** The agents a role may be given. */
      agents: z.array(
        z.object({
          id: z.string(),
          name: z.string(),
          type: z.enum(AGENT_TYPES),
          status: z.enum(AGENT_STATUSES),
        }),
      ),
    }),
  ),
  'POST /templates/:template_id/workflows': route(CreateBody, Workflow),
};

export function templatesApi(kit: ApiKit, services: DashboardServices): void {
  kit.serve(templatesRoutes, {
    'GET /templates': (_input, workspaceId) => ({
      data: services.templates
        .list()
        .map((template) => ({ ...template, graph: stepGraph(graphSteps(template)) })),
      agents: services.agents
        .list(workspaceId, { limit: AGENT_CHOICES })
        .items.map(({ id, name, type, status }) => ({ id, name, type, status })),
    }),
    'POST /templates/:template_id/workflows': (input, workspaceId, request) => {
      const template = services.templates.get(params(request).template_id!);
      return services.templates.createWorkflow(services.workspaces.get(workspaceId)!, {
        template_id: template.id,
        name: input.name,
        status: input.status,
        customizations: { agents: input.agents, steps: stepValues(template, input.values) },
      });
    },
  });
}

/** The placeholders' values as customizations.steps, each checked as `svc workflows init` does. */
function stepValues(template: WorkflowTemplate, values: Record<string, string>) {
  const known = new Set(template.placeholders.map((placeholder) => placeholder.path));
  const unknown = Object.keys(values).find((path) => !known.has(path));
  if (unknown !== undefined) {
    throw invalidParameter(
      `values.${unknown}`,
      `Template ${template.id} leaves no value ${unknown} to set. Its values: ${[...known].join(', ') || 'none'}.`,
    );
  }
  const steps: Record<string, Record<string, string>> = {};
  for (const placeholder of template.placeholders) {
    const value = values[placeholder.path] ?? '';
    const problem = placeholderProblem(placeholder, value);
    if (problem)
      throw invalidParameter(`values.${placeholder.path}`, `${placeholder.path}: ${problem}`);
    const [, stepId, key] = placeholder.path.split('.') as [string, string, string];
    (steps[stepId] ??= {})[key] = value.trim();
  }
  return steps;
}

/**
 * A template's steps as the graph reads workflow steps: ids, types, configs and links, which a
 * template step has; its agent is still a role (no agent id yet).
 */
function graphSteps(template: WorkflowTemplate): WorkflowStepView[] {
  return template.steps.map(
    (step) =>
      ({
        id: step.id,
        name: step.name,
        type: step.type,
        agent_id: null,
        config: step.config,
        next_step_id: step.next_step_id ?? null,
        on_error: step.on_error ?? null,
      }) as WorkflowStepView,
  );
}
