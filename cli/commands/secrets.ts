// svc secrets set|list|delete: per-workspace secrets for `{{secrets.NAME}}` in workflow steps,
// over the control channel. A value goes in and never comes back out: not here, not in the API.
import { defineCommands, stringOption, type Options, group } from '../command.js';
import { UsageError } from '../errors.js';
import { chalk, table } from '../output.js';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function checkName(name: string): string {
  if (!NAME.test(name)) {
    throw new UsageError(
      `Secret names are letters, digits and _ (not starting with a digit), as in {{secrets.STRIPE_KEY}}; got "${name}".`,
    );
  }
  return name;
}

function workspaceOf(options: Options): { workspace_id?: string } {
  const workspace = stringOption(options, 'workspace') ?? process.env.SVC_WORKSPACE;
  return workspace ? { workspace_id: workspace } : {};
}

export default defineCommands([
  group(
    ['secrets'],
    'Workspace secrets for {{secrets.NAME}} in workflow steps (values never shown)',
  ),
  {
    path: ['secrets', 'set'],
    description: 'Store (or replace) a secret of the workspace; the value is never shown again',
    args: [
      { name: 'name', description: 'NAME, used as {{secrets.NAME}}' },
      { name: 'value', description: 'the value (stored encrypted)' },
    ],
    examples: ['svc secrets set STRIPE_KEY sk_test_123 --workspace ws_...'],
    async run(ctx, [name, value], options) {
      if (!value) throw new UsageError('Missing VALUE: svc secrets set NAME VALUE');
      const secret = await (
        await ctx.control()
      ).secrets.set.mutate({ name: checkName(name!), value, ...workspaceOf(options) });
      ctx.out.result(
        secret,
        () =>
          `Secret ${chalk.bold(secret.name)} stored in ${secret.workspace_id}; use it as {{secrets.${secret.name}}}`,
      );
    },
  },
  {
    path: ['secrets', 'list'],
    description: 'List the secret names of the workspace (never the values)',
    async run(ctx, _args, options) {
      const secrets = await (await ctx.control()).secrets.list.query(workspaceOf(options));
      ctx.out.list(secrets, () =>
        table(
          ['NAME', 'UPDATED'],
          secrets.map((secret) => [secret.name, secret.updated_at]),
        ),
      );
    },
  },
  {
    path: ['secrets', 'delete'],
    description: 'Delete a secret (steps that use it then fail, naming it)',
    args: [{ name: 'name', description: 'NAME' }],
    async run(ctx, [name], options) {
      const result = await (
        await ctx.control()
      ).secrets.delete.mutate({ name: checkName(name!), ...workspaceOf(options) });
      ctx.out.result(result, () => `Deleted secret ${result.name}`);
    },
  },
]);
