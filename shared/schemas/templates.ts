// Workflow templates: the data files in templates/, the catalogue the API lists, and the body of
// POST /v1/workflows/from-template. A template's agent steps name a role instead of an agent;
// from-template maps each role to an agent of the workspace.
import { z } from 'zod';
import { DisplayName } from './common.js';
import { AGENT_TYPES, AUTONOMY_LEVELS } from './enums.js';
import {
  EventTriggerConfig,
  ManualTriggerConfig,
  ScheduleTriggerConfig,
  WebhookTriggerConfig,
} from './triggers.js';

export const TemplateRole = z
  .strictObject({
    name: z.string().regex(/^[a-z][a-z0-9_]*$/),
    description: z.string(),
    agent_type: z.enum(AGENT_TYPES),
    autonomy_level: z.enum(AUTONOMY_LEVELS).optional().meta({
      description:
        'The autonomy of an agent created for this role (svc workflows init --create-agents, or the prompt); L3 when absent. L2 where a person must approve the step.',
    }),
  })
  .meta({ title: 'TemplateRole' });

export const TemplateStep = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    type: z.string(),
    role: z
      .string()
      .optional()
      .meta({ description: 'agent_action steps: the role whose agent runs the step' }),
    config: z.record(z.string(), z.unknown()),
    next_step_id: z.string().optional(),
    on_error: z.string().optional(),
  })
  .meta({ title: 'TemplateStep' });

/**
 * A value the template cannot know and leaves to its user (a pager's URL): the template's step
 * holds `example` so that it reads as a whole workflow, and `svc workflows init` asks for the
 * real one in a terminal, or takes it as --set PATH=VALUE.
 */
export const TemplatePlaceholder = z
  .strictObject({
    path: z
      .string()
      .regex(/^steps\.[a-z0-9_]+\.[a-z0-9_]+$/)
      .meta({
        description:
          'steps.<step id>.<config key>: the step config value to set (svc workflows init --set PATH=VALUE; from-template: customizations.steps.<step id>.<config key>)',
      }),
    description: z.string().meta({ description: 'What the value is, as a prompt asks for it' }),
    example: z.string().meta({ description: "The template's stand-in, which does not work as is" }),
    format: z.enum(['url', 'text']).default('text').meta({ description: 'url: an http(s) URL' }),
  })
  .meta({ title: 'TemplatePlaceholder' });
export type TemplatePlaceholder = z.infer<typeof TemplatePlaceholder>;

/** A workflow trigger with its config per type (what every workflow write checks). */
export const TemplateTrigger = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('manual'), config: ManualTriggerConfig.default({}) }),
    z.strictObject({ type: z.literal('webhook'), config: WebhookTriggerConfig }),
    z.strictObject({ type: z.literal('schedule'), config: ScheduleTriggerConfig }),
    z.strictObject({ type: z.literal('event'), config: EventTriggerConfig }),
  ])
  .meta({ title: 'WorkflowTrigger' });

/** What a file in templates/ holds (steps_count is derived, not written). */
export const TemplateFile = z.strictObject({
  id: z.string().regex(/^tmpl_[a-z0-9_]+$/),
  name: z.string(),
  description: z.string(),
  industry: z.string(),
  avg_duration_seconds: z.number().nonnegative(),
  roles: z.array(TemplateRole).min(1),
  trigger: TemplateTrigger.default({ type: 'manual', config: {} }),
  settings: z.record(z.string(), z.unknown()).default({}),
  steps: z.array(TemplateStep).min(1),
  placeholders: z.array(TemplatePlaceholder).default([]),
});
export type TemplateFile = z.infer<typeof TemplateFile>;

export const WorkflowTemplate = z
  .object({
    id: z.string().meta({ description: 'prefix tmpl_' }),
    name: z.string(),
    description: z.string(),
    industry: z.string().meta({ description: 'A sector, or all' }),
    steps_count: z.number().int(),
    avg_duration_seconds: z.number(),
    roles: z.array(TemplateRole),
    trigger: TemplateTrigger,
    settings: z.record(z.string(), z.unknown()),
    steps: z.array(TemplateStep),
    placeholders: z.array(TemplatePlaceholder).meta({
      description:
        "Values the template leaves to its user: its steps hold each one's example, which does not work as is",
    }),
  })
  .meta({ title: 'WorkflowTemplate' });
export type WorkflowTemplate = z.infer<typeof WorkflowTemplate>;

export const TemplateListQuery = z.strictObject({
  industry: z.string().optional().meta({ description: 'Only templates of this industry' }),
});

export const FromTemplateBody = z
  .strictObject({
    template_id: z.string().meta({ description: 'tmpl_...' }),
    name: DisplayName,
    description: z.string().max(2000).optional(),
    status: z.enum(['draft', 'active']).optional().meta({ description: 'Default draft' }),
    customizations: z
      .strictObject({
        agents: z
          .record(z.string(), z.string())
          .default({})
          .meta({ description: 'Template role name -> agent id (agt_...) of this workspace' }),
        settings: z
          .record(z.string(), z.unknown())
          .optional()
          .meta({ description: "Merged over the template's settings" }),
        trigger: TemplateTrigger.optional().meta({
          description: "Replaces the template's trigger (e.g. another cron or hook path)",
        }),
        steps: z.record(z.string(), z.record(z.string(), z.unknown())).optional().meta({
          description:
            'Step id -> config keys merged over that step\'s config, e.g. {"page": {"url": "https://pager.example.com/hook"}}',
        }),
      })
      .default({ agents: {} }),
  })
  .meta({ title: 'FromTemplateBody' });
export type FromTemplateBody = z.infer<typeof FromTemplateBody>;
