// svc workspaces create|list
import { TIERS, type Tier } from '../../shared/tiers.js';
import { command, defineCommands, group } from '../command.js';
import { askChoice, askText } from '../dialogs.js';
import { chalk, table } from '../output.js';

export default defineCommands([
  group(['workspaces'], 'Workspaces (tenants) and their tiers'),
  command({
    path: ['workspaces', 'create'],
    description: 'Create a workspace (a tenant) with a tier',
    options: [
      { flags: '--name <name>', description: 'display name' },
      {
        flags: '--tier <tier>',
        description: 'free, starter, business or enterprise',
        choices: TIERS,
      },
    ],
    examples: ['svc workspaces create --name "Acme" --tier starter --json'],
    async run(ctx, _args, options) {
      const name = options.name ?? (await askText('--name', 'Workspace name'));
      const tier = (options.tier as Tier | undefined) ?? (await askChoice('--tier', 'Tier', TIERS));
      const workspace = await (await ctx.control()).workspaces.create.mutate({ name, tier });
      ctx.out.result(
        workspace,
        () =>
          `Created workspace ${chalk.cyan(workspace.id)} "${workspace.name}" (${workspace.tier})`,
      );
    },
  }),
  command({
    path: ['workspaces', 'list'],
    description: 'List workspaces',
    async run(ctx) {
      const workspaces = await (await ctx.control()).workspaces.list.query();
      ctx.out.list(workspaces, () =>
        table(
          ['ID', 'NAME', 'TIER', 'CREATED'],
          workspaces.map((ws) => [
            ws.id + (ws.default ? chalk.dim(' (default)') : ''),
            ws.name,
            ws.tier,
            ws.created_at,
          ]),
        ),
      );
    },
  }),
]);
