// /v1/workflows/templates and /v1/workflows/from-template. Both are static paths, so Fastify
// matches them before /v1/workflows/:workflow_id.
import type { z } from 'zod';
import {
  FromTemplateBody,
  TemplateListQuery,
  WorkflowTemplate,
} from '../../shared/schemas/templates.js';
import { listRoute, objectRoute, tenantRoute, type RouteDef } from '../http/route.js';
import type { RestModule } from '../http/rest-module.js';
import { Workflow, type WorkflowView } from '../../shared/schemas/workflows.js';
import type { TemplateService } from './template.service.js';

const tag = 'Workflow templates';

export const templateModule: RestModule<{ templates: TemplateService<WorkflowView> }> = {
  tag: {
    name: tag,
    description:
      'Ready-made workflows with agent roles; from-template maps each role to an agent and creates the workflow.',
  },
  routes: ({ templates }) => templateRoutes(templates, Workflow),
};

export function templateRoutes<W>(
  templates: TemplateService<W>,
  workflowSchema: z.ZodType<W>,
): RouteDef[] {
  return [
    listRoute({
      method: 'GET',
      path: '/v1/workflows/templates',
      operationId: 'listWorkflowTemplates',
      summary: 'List workflow templates',
      description:
        'The catalogue of ready-made workflows (templates/ in the package). Each agent step names a role instead of an agent; POST /v1/workflows/from-template maps roles to agents. Not paginated: the whole catalogue in one page.',
      tag,
      auth: tenantRoute('workflows:read'),
      rateLimit: { operation: 'resources' },
      query: TemplateListQuery,
      response: WorkflowTemplate,
      handler: ({ query }) => {
        const items = templates.list(query.industry);
        return { items, hasMore: false, totalCount: items.length };
      },
    }),
    objectRoute({
      method: 'POST',
      path: '/v1/workflows/from-template',
      operationId: 'createWorkflowFromTemplate',
      summary: 'Create a workflow from a template',
      description:
        "Creates a workflow (draft unless status is given) from a template: customizations.agents maps every role of the template to an agent of the workspace (a role left out -> 400 missing_required_field with required_fields; an agent of another workspace -> 400 invalid_step_config); customizations.settings is laid over the template's settings, customizations.trigger replaces its trigger, customizations.steps lays config keys over a step's config (e.g. a webhook step's url). The result is checked like POST /v1/workflows.",
      tag,
      auth: tenantRoute('workflows:write'),
      rateLimit: { operation: 'workflows.create' },
      status: 201,
      body: FromTemplateBody,
      errors: ['not_found', 'invalid_step_config', 'circular_dependency', 'conflict'],
      response: workflowSchema,
      handler: ({ body, ctx }) => templates.createWorkflow(ctx.workspace, body),
    }),
  ];
}
