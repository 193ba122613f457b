// The template catalogue and POST /v1/workflows/from-template: maps the template's roles to
// agents of the workspace and creates the workflow through the workflow service (same checks
// as POST /v1/workflows).
import type { FromTemplateBody, WorkflowTemplate } from '../../shared/schemas/templates.js';
import { WorkflowCreateBody, type WorkflowCreateInput } from '../../shared/schemas/workflows.js';
import {
  unknownChoices,
  unmappedRoles,
  workflowFromTemplate,
  type WorkflowBody,
} from '../../shared/templates.js';
import { ApiError, missingFields } from '../domain/errors.js';
import type { Workspace } from '../domain/workspace.js';

export interface AgentLookup {
  find(id: string): { workspace_id: string; type: string } | undefined;
}

export interface WorkflowCreator<W> {
  create(workspace: Workspace, body: WorkflowCreateInput): W;
}

export class TemplateService<W> {
  private catalogue: Map<string, WorkflowTemplate> | undefined;

  /**
   * `load` reads the templates (loadTemplates) at their first use, not at start: parsing their
   * YAML was about a tenth of a daemon start's CPU, and most daemons never list a template.
   */
  constructor(
    private readonly load: () => readonly WorkflowTemplate[],
    private readonly agents: AgentLookup,
    private readonly workflows: WorkflowCreator<W>,
  ) {}

  /** The templates by id, in the order read. */
  private byId(): Map<string, WorkflowTemplate> {
    this.catalogue ??= new Map(this.load().map((template) => [template.id, template]));
    return this.catalogue;
  }

  list(industry?: string): WorkflowTemplate[] {
    const wanted = industry?.toLowerCase();
    return [...this.byId().values()].filter(
      (template) => !wanted || template.industry === wanted,
    );
  }

  get(id: string): WorkflowTemplate {
    const template = this.byId().get(id);
    if (!template) {
      throw new ApiError(
        'not_found',
        `No workflow template '${id}'. List them with GET /v1/workflows/templates or: svc workflows templates`,
        { param: 'template_id' },
      );
    }
    return template;
  }

  createWorkflow(workspace: Workspace, body: FromTemplateBody): W {
    return this.workflows.create(workspace, this.workflowBody(workspace, body));
  }

  /** The workflow a template and its customizations make, checked (roles mapped to agents). */
  workflowBody(workspace: Workspace, body: FromTemplateBody): WorkflowCreateInput {
    const template = this.get(body.template_id);
    const { agents, settings, trigger, steps } = body.customizations;
    const choices = { ...body, agents, settings, trigger, steps };
    const unknown = unknownChoices(template, choices);
    if (unknown.length > 0) {
      throw new ApiError(
        'invalid_parameter',
        `${unknown[0]} names no role or step of template ${template.id}. Its roles: ${template.roles.map((role) => role.name).join(', ')}.`,
        { param: unknown[0] },
      );
    }
    const missing = unmappedRoles(template, agents);
    if (missing.length > 0) {
      throw missingFields(
        missing.map((role) => `customizations.agents.${role}`),
        `Template ${template.id} needs an agent for each role; missing: ${missing.join(', ')}. Map them in customizations.agents, e.g. {"${missing[0]}": "agt_..."}.`,
      );
    }
    for (const role of template.roles) {
      const agentId = agents[role.name]!;
      const agent = this.agents.find(agentId);
      if (!agent || agent.workspace_id !== workspace.id) {
        throw new ApiError(
          'invalid_step_config',
          `Agent ${agentId} (role ${role.name}) is not an agent of workspace ${workspace.id}. Pick one from: svc agents list`,
          { param: `customizations.agents.${role.name}` },
        );
      }
    }
    return checkedBody(workflowFromTemplate(template, choices));
  }
}

/** The workflow made from a template and the customizations, in the shape POST /v1/workflows takes. */
function checkedBody(body: WorkflowBody): WorkflowCreateInput {
  const parsed = WorkflowCreateBody.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const param = issue.path.join('.');
  throw new ApiError(
    param.startsWith('steps') ? 'invalid_step_config' : 'invalid_parameter',
    `The workflow made from the template is not valid at '${param}': ${issue.message}. Check customizations.`,
    { param },
  );
}
