// svc keys create|list|revoke|rotate
import { parseDuration } from '../../shared/duration.js';
import { parseScopes, SCOPES, type Scope } from '../../shared/scopes.js';
import { command, defineCommands, group } from '../command.js';
import { askChoices, askText } from '../dialogs.js';
import { UsageError } from '../errors.js';
import { chalk, table } from '../output.js';

function durationOption(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseDuration(value);
  if (ms === null || ms <= 0)
    throw new UsageError(
      `${flag} takes a duration such as 30s, 5m, 1h, 90d or PT1H (got "${value}").`,
    );
  return ms;
}

async function scopesOption(value: string | undefined): Promise<Scope[]> {
  if (value === undefined) return askChoices('--scopes', 'Scopes for the key', SCOPES);
  const { scopes, unknown } = parseScopes(value);
  if (unknown.length > 0)
    throw new UsageError(
      `Unknown scope${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}. Valid: ${SCOPES.join(' ')}`,
    );
  if (scopes.length === 0)
    throw new UsageError(
      '--scopes needs at least one scope, e.g. --scopes "agents:read agents:write".',
    );
  return scopes;
}

export default defineCommands([
  group(['keys'], 'API keys: create (shown once), list, revoke, rotate'),
  command({
    path: ['keys', 'create'],
    description: 'Create an API key; the key is printed this once',
    options: [
      { flags: '--name <name>', description: 'a descriptive name' },
      { flags: '--scopes <scopes>', description: `space-separated scopes: ${SCOPES.join(' ')}` },
      {
        flags: '--expires-in <duration>',
        description: 'expire after 30d, 12h, PT1H... (default: never)',
      },
    ],
    examples: [
      'svc keys create --name ci --scopes "agents:read workflows:execute" --expires-in 90d --json',
    ],
    async run(ctx, _args, options) {
      const name = options.name ?? (await askText('--name', 'Key name'));
      const scopes = await scopesOption(options.scopes);
      const expiresInMs = durationOption(options.expiresIn, '--expires-in');
      const workspaceId = options.workspace ?? process.env.SVC_WORKSPACE;
      const created = await (
        await ctx.control()
      ).keys.create.mutate({
        name,
        scopes,
        ...(workspaceId ? { workspace_id: workspaceId } : {}),
        ...(expiresInMs ? { expires_in_ms: expiresInMs } : {}),
      });
      ctx.out.result(created, () =>
        [
          `Created key ${chalk.cyan(created.id)} "${created.name}" for workspace ${created.workspace_id}`,
          `scopes:  ${created.scopes.join(' ')}`,
          `expires: ${created.expires_at ?? 'never'}`,
          '',
          `  ${chalk.bold(created.key)}`,
          '',
          chalk.yellow(
            'This is the only time the key is shown. Store it now (e.g. in an environment variable).',
          ),
        ].join('\n'),
      );
    },
  }),
  command({
    path: ['keys', 'list'],
    description: 'List API keys (never their values)',
    async run(ctx, _args, options) {
      const workspaceId = options.workspace;
      const keys = await (
        await ctx.control()
      ).keys.list.query(workspaceId ? { workspace_id: workspaceId } : undefined);
      ctx.out.list(keys, () =>
        table(
          ['ID', 'NAME', 'KEY', 'STATUS', 'SCOPES', 'WORKSPACE', 'EXPIRES', 'LAST USED'],
          keys.map((key) => [
            key.id,
            key.name,
            key.hint,
            statusColour(key.status),
            key.scopes.join(' '),
            key.workspace_id ?? '',
            key.expires_at ?? 'never',
            key.last_used_at ?? 'never',
          ]),
        ),
      );
    },
  }),
  command({
    path: ['keys', 'revoke'],
    description: 'Revoke a key at once',
    args: [{ name: 'id', description: 'key id (key_...)' }],
    async run(ctx, [id]) {
      const key = await (await ctx.control()).keys.revoke.mutate({ id: id! });
      ctx.out.result(key, () => `Revoked key ${chalk.cyan(key.id)} "${key.name}"`);
    },
  }),
  command({
    path: ['keys', 'rotate'],
    description: 'Issue a successor key; the old one keeps working for the grace period',
    args: [{ name: 'id', description: 'key id (key_...)' }],
    options: [
      {
        flags: '--grace <duration>',
        description: 'how long the old key stays valid (default 24h)',
      },
    ],
    async run(ctx, [id], options) {
      const graceMs = options.grace === undefined ? undefined : parseDuration(options.grace!);
      if (graceMs === null) throw new UsageError('--grace takes a duration such as 1h or 0s.');
      const rotated = await (
        await ctx.control()
      ).keys.rotate.mutate({ id: id!, ...(graceMs === undefined ? {} : { grace_ms: graceMs }) });
      ctx.out.result(rotated, () =>
        [
          `Rotated ${rotated.previous.id} -> ${chalk.cyan(rotated.id)}; the old key expires at ${rotated.previous.expires_at}.`,
          '',
          `  ${chalk.bold(rotated.key)}`,
          '',
          chalk.yellow('This is the only time the new key is shown.'),
        ].join('\n'),
      );
    },
  }),
]);

function statusColour(status: string): string {
  return status === 'active' ? chalk.green(status) : chalk.red(status);
}
