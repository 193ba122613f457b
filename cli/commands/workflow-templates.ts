// svc workflows templates | init [FILE]: the template catalogue, and scaffolding a workflow file
// from a template (asking in a terminal for what the flags leave open).
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { command, defineCommands, stringOption, type Options } from '../command.js';
import type { CliContext } from '../context.js';
import { CliError, UsageError } from '../errors.js';
import { chalk, table } from '../output.js';
import type { WorkflowTemplate } from '../../shared/schemas/templates.js';
import type { ApiClient } from '../../shared/api-client.js';

interface ListBody<T> {
  data: T[];
}

interface Agent {
  id: string;
  name: string;
  type: string;
  status: string;
  autonomy_level: string;
}

const NEW_AGENT = '__new__';

/** The catalogue as the API answers it: one page, in the envelope of every list. */
function templatePage(api: ApiClient, industry?: string): Promise<ListBody<WorkflowTemplate>> {
  return api.request<ListBody<WorkflowTemplate>>('GET', '/workflows/templates', {
    query: { industry },
  });
}

async function templates(api: ApiClient, industry?: string): Promise<WorkflowTemplate[]> {
  return (await templatePage(api, industry)).data;
}

/** --agent role=agt_... given once or more (a variadic option: an array, or one string). */
function agentFlags(options: Options): Record<string, string> {
  const raw = options.agent as unknown;
  const list: unknown[] = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  const agents: Record<string, string> = {};
  for (const item of list) {
    const match = /^([^=\s]+)=(\S+)$/.exec(String(item));
    if (!match)
      throw new UsageError(
        `--agent takes role=agent_id, e.g. --agent triager=agt_123 (got "${String(item)}").`,
      );
    agents[match[1]!] = match[2]!;
  }
  return agents;
}

async function pickTemplate(ctx: CliContext, options: Options): Promise<WorkflowTemplate> {
  const api = await ctx.api();
  const all = await templates(api);
  const wanted = stringOption(options, 'template');
  if (wanted) {
    const found = all.find(
      (template) => template.id === wanted || template.id === `tmpl_${wanted}`,
    );
    if (!found)
      throw new UsageError(
        `--template ${wanted}: no such template. List them with: svc workflows templates`,
      );
    return found;
  }
  const { askSelect } = await import('../dialogs.js');
  const id = await askSelect(
    '--template',
    'Which template',
    all.map((template) => ({
      value: template.id,
      name: `${template.name} (${template.industry}, ${template.steps_count} steps)`,
      description: template.description,
    })),
  );
  return all.find((template) => template.id === id)!;
}

async function pickAgents(
  ctx: CliContext,
  template: WorkflowTemplate,
  given: Record<string, string>,
  createMissing: boolean,
): Promise<Record<string, string>> {
  const roles = new Set(template.roles.map((role) => role.name));
  for (const role of Object.keys(given))
    if (!roles.has(role))
      throw new UsageError(
        `--agent ${role}=...: template ${template.id} has no role "${role}". Its roles: ${[...roles].join(', ')}.`,
      );
  const agents = { ...given };
  const api = await ctx.api();
  let existing: Agent[] | undefined;
  for (const role of template.roles) {
    if (agents[role.name]) continue;
    if (createMissing) {
      agents[role.name] = (await createAgent(ctx, api, template, role, undefined)).id;
      continue;
    }
    const dialogs = await import('../dialogs.js');
    if (!dialogs.canPrompt())
      throw new UsageError(
        `Missing --agent ${role.name}=agt_...: the agent for role "${role.name}" (${role.agent_type}: ${role.description}). Or pass --create-agents to create one per missing role. (No prompt is shown without a terminal or with CI=true.)`,
      );
    existing ??= (await api.request<ListBody<Agent>>('GET', '/agents', { query: { limit: 100 } }))
      .data;
    const fitting = [...existing].sort(
      (a, b) => Number(b.type === role.agent_type) - Number(a.type === role.agent_type),
    );
    const choice = await dialogs.askSelect(
      `--agent ${role.name}=agt_...`,
      `Agent for role "${role.name}" (${role.agent_type}: ${role.description})`,
      [
        ...fitting.map((agent) => ({
          value: agent.id,
          name: `${agent.name} (${agent.id}, ${agent.type}, ${agent.status}, ${autonomyWords(agent.autonomy_level)})`,
        })),
        { value: NEW_AGENT, name: `Create a new ${role.agent_type} agent for this role` },
      ],
    );
    if (choice === NEW_AGENT) {
      const name = await dialogs.askTextWithDefault(
        '--agent',
        `Name of the new ${role.agent_type} agent`,
        `${template.name}: ${role.name}`,
      );
      const created = await createAgent(ctx, api, template, role, name);
      existing.push(created);
      agents[role.name] = created.id;
    } else {
      agents[role.name] = choice;
    }
  }
  return agents;
}

/** "L2: each action waits for approval": what the picker says of an agent's autonomy. */
function autonomyWords(level: string): string {
  if (level === 'L1') return 'L1: suggests only';
  if (level === 'L2') return 'L2: each action waits for approval';
  return `${level}: acts unless require_approval_for`;
}

async function createAgent(
  ctx: CliContext,
  api: ApiClient,
  template: WorkflowTemplate,
  role: WorkflowTemplate['roles'][number],
  name: string | undefined,
): Promise<Agent> {
  const agent = await api.data<Agent>('POST', '/agents', {
    body: {
      name: name ?? `${template.name}: ${role.name}`,
      description: role.description,
      type: role.agent_type,
      ontology: 'general-v1',
      // The role's own autonomy (an approver is L2, so a person decides); else L3, which runs
      // without a human decision.
      autonomy_level: role.autonomy_level ?? 'L3',
    },
  });
  // Deployed at once: the workflow init writes is meant to run next, and a new agent is
  // `training` (SVC_AGENT_TRAINING_SECONDS, 2 s), which fails a step that reaches it then.
  const deployed = await api.data<Agent>('POST', '/agents/deploy', {
    body: { agent_id: agent.id },
  });
  ctx.out.note(`Created agent ${deployed.id} (${role.agent_type}, active) for role ${role.name}.`);
  return deployed;
}

async function serialise(file: string, body: unknown): Promise<string> {
  const extension = extname(file).toLowerCase();
  if (extension === '.json') return JSON.stringify(body, null, 2) + '\n';
  const { stringify } = await import('../yaml.js');
  return stringify(body, { lineWidth: 100 });
}

export default defineCommands([
  {
    path: ['workflows', 'templates'],
    description: 'List the workflow templates (svc workflows init scaffolds one)',
    options: [{ flags: '--industry <industry>', description: 'only this industry, e.g. finance' }],
    async run(ctx, _args, options) {
      const page = await templatePage(await ctx.api(), stringOption(options, 'industry'));
      ctx.out.result(page, () =>
        table(
          ['ID', 'INDUSTRY', 'STEPS', 'TRIGGER', 'ROLES', 'NAME'],
          page.data.map((template) => [
            chalk.cyan(template.id),
            template.industry,
            String(template.steps_count),
            template.trigger.type,
            template.roles.map((role) => role.name).join(','),
            template.name,
          ]),
        ),
      );
    },
  },
  command({
    path: ['workflows', 'init'],
    description:
      'Write a workflow file from a template, asking for the template, name, the values it leaves to you (or --set) and agents',
    args: [
      {
        name: 'file',
        description: 'file to write (.yaml, .yml or .json; default workflow.yaml)',
        required: false,
      },
    ],
    options: [
      {
        flags: '--template <id>',
        description: 'template id (tmpl_...), see svc workflows templates',
      },
      { flags: '--name <name>', description: "the workflow's name" },
      {
        flags: '--agent <role=agent_id...>',
        description: 'the agent for a role (repeat, or list several)',
      },
      {
        flags: '--set <steps.STEP.KEY=VALUE...>',
        description:
          "a step config value (repeat); the template's placeholders are asked for when not set",
      },
      { flags: '--create-agents', description: 'create an agent for each role left without one' },
      { flags: '--force', description: 'overwrite FILE if it exists' },
    ],
    examples: [
      'svc workflows init',
      'svc workflows init pager.yaml --template tmpl_incident_response --set steps.page.url=http://127.0.0.1:9000/page --create-agents',
      'svc workflows init triage.yaml --template tmpl_support_triage --name "Support triage" --agent triager=agt_1 --agent responder=agt_2 --agent escalation=agt_3',
      'svc workflows create -f triage.yaml',
    ],
    async run(ctx, [fileArg], options) {
      const file = fileArg ?? 'workflow.yaml';
      const given = agentFlags(options);
      const template = await pickTemplate(ctx, options);
      const { askPlaceholders, setFlags } = await import('../template-values.js');
      const set = setFlags(template, options);
      const dialogs = await import('../dialogs.js');
      const name =
        stringOption(options, 'name') ??
        (await dialogs.askTextWithDefault('--name', 'Workflow name', template.name));
      if (existsSync(file) && options.force !== true) {
        const overwrite = await dialogs.askConfirm(
          '--force',
          `${file} exists. Overwrite it`,
          false,
        );
        if (!overwrite) throw new CliError(`Left ${file} as it was.`, 1, 'cancelled');
      }
      const steps = await askPlaceholders(template, set);
      // Last, so that nothing (a new agent) is made before the other answers are settled.
      const agents = await pickAgents(ctx, template, given, options.createAgents === true);
      const { workflowFromTemplate } = await import('../../shared/templates.js');
      const workflow = workflowFromTemplate(template, { name, agents, steps });
      await writeFile(file, await serialise(file, workflow));
      ctx.out.result({ file, template_id: template.id, workflow }, () =>
        [
          `Wrote ${chalk.bold(file)} from ${template.id} (${template.steps_count} steps, trigger ${template.trigger.type}).`,
          `Review it, then create the workflow with: svc workflows create -f ${file}`,
        ].join('\n'),
      );
    },
  }),
]);
