// svc oauth apps create|list|get|delete and svc oauth grants list|revoke: the OAuth provider's
// apps (client id and secret, shown once) and what the operator granted them, over the control
// channel like keys.
import { parseScopes, SCOPES } from '../../shared/scopes.js';
import { command, defineCommands, group, stringOption, type Options } from '../command.js';
import { askChoices, askText } from '../dialogs.js';
import { UsageError } from '../errors.js';
import { chalk, table } from '../output.js';

function redirectUris(options: Options): string[] {
  const value = options.redirectUri as unknown;
  const list = Array.isArray(value)
    ? (value as string[])
    : typeof value === 'string'
      ? [value]
      : [];
  if (list.length === 0) {
    throw new UsageError(
      '--redirect-uri is required (repeat it for several), e.g. --redirect-uri http://localhost:3000/callback',
    );
  }
  for (const uri of list) {
    if (!URL.canParse(uri) || uri.includes('#')) {
      throw new UsageError(
        `--redirect-uri takes absolute URIs without a #fragment (got "${uri}").`,
      );
    }
  }
  return list;
}

export default defineCommands([
  group(['oauth'], 'The OAuth 2.0 provider: apps and grants'),
  group(['oauth', 'apps'], 'OAuth apps: create (secret shown once), list, get, delete'),
  group(['oauth', 'grants'], 'What was granted to OAuth apps: list, revoke'),
  command({
    path: ['oauth', 'apps', 'create'],
    description: 'Register an OAuth app; the client secret is printed this once',
    options: [
      { flags: '--name <name>', description: 'the name users see on the consent page' },
      {
        flags: '--redirect-uri <uri...>',
        description: 'an exact redirect URI (repeat the flag for several)',
      },
      {
        flags: '--scopes <scopes>',
        description: `space-separated scopes the app may ask for: ${SCOPES.join(' ')}`,
      },
      { flags: '--public', description: 'a public app (SPA, native): no secret, PKCE required' },
    ],
    examples: [
      'svc oauth apps create --name "My integration" --redirect-uri http://localhost:3000/callback --scopes "agents:read workflows:execute" --json',
      'svc oauth apps create --name CLI --redirect-uri http://127.0.0.1:8765/cb --scopes agents:read --public',
    ],
    async run(ctx, _args, options) {
      const name = stringOption(options, 'name') ?? (await askText('--name', 'App name'));
      const uris = redirectUris(options);
      const scopeText = stringOption(options, 'scopes');
      let scopes;
      if (scopeText === undefined) {
        scopes = await askChoices('--scopes', 'Scopes the app may ask for', SCOPES);
      } else {
        const parsed = parseScopes(scopeText);
        if (parsed.unknown.length > 0)
          throw new UsageError(
            `Unknown scope: ${parsed.unknown.join(', ')}. Valid: ${SCOPES.join(' ')}`,
          );
        if (parsed.scopes.length === 0) throw new UsageError('--scopes needs at least one scope.');
        scopes = parsed.scopes;
      }
      const workspaceId = stringOption(options, 'workspace') ?? process.env.SVC_WORKSPACE;
      const app = await (
        await ctx.control()
      ).oauth.apps.create.mutate({
        name,
        redirect_uris: uris,
        scopes,
        public: options.public === true,
        ...(workspaceId ? { workspace_id: workspaceId } : {}),
      });
      ctx.out.result(app, () =>
        [
          `Registered OAuth app ${chalk.cyan(app.client_id)} "${app.name}" (workspace ${app.workspace_id})`,
          `client_id:     ${app.client_id}`,
          app.client_secret
            ? `client_secret: ${chalk.bold(app.client_secret)}`
            : 'client_secret: none (public app: use PKCE S256)',
          `redirect_uris: ${app.redirect_uris.join(' ')}`,
          `scopes:        ${app.scopes.join(' ')}`,
          `discovery:     ${ctx.appUrl()}/.well-known/oauth-authorization-server`,
          ...(app.client_secret
            ? ['', chalk.yellow('This is the only time the client secret is shown. Store it now.')]
            : []),
        ].join('\n'),
      );
    },
  }),
  {
    path: ['oauth', 'apps', 'list'],
    description: 'List OAuth apps (never their secrets)',
    async run(ctx, _args, options) {
      const workspaceId = stringOption(options, 'workspace');
      const apps = await (
        await ctx.control()
      ).oauth.apps.list.query(workspaceId ? { workspace_id: workspaceId } : undefined);
      ctx.out.list(apps, () =>
        table(
          ['CLIENT ID', 'NAME', 'TYPE', 'SCOPES', 'REDIRECT URIS', 'WORKSPACE'],
          apps.map((app) => [
            app.client_id,
            app.name,
            app.public ? 'public' : 'confidential',
            app.scopes.join(' '),
            app.redirect_uris.join(' '),
            app.workspace_id,
          ]),
        ),
      );
    },
  },
  {
    path: ['oauth', 'apps', 'get'],
    description: 'Show one OAuth app',
    args: [{ name: 'client_id', description: 'the app (app_...)' }],
    async run(ctx, [clientId]) {
      const app = await (await ctx.control()).oauth.apps.get.query({ client_id: clientId! });
      ctx.out.result(app, () =>
        [
          `${chalk.cyan(app.client_id)} "${app.name}" (${app.public ? 'public' : 'confidential'}, workspace ${app.workspace_id})`,
          `redirect_uris: ${app.redirect_uris.join(' ')}`,
          `scopes:        ${app.scopes.join(' ')}`,
          `secret:        ${app.client_secret_hint ?? 'none'}`,
          `created:       ${app.created_at}`,
        ].join('\n'),
      );
    },
  },
  {
    path: ['oauth', 'apps', 'delete'],
    description: 'Delete an OAuth app and revoke every token it was issued',
    args: [{ name: 'client_id', description: 'the app (app_...)' }],
    async run(ctx, [clientId]) {
      const app = await (await ctx.control()).oauth.apps.delete.mutate({ client_id: clientId! });
      ctx.out.result(
        { ...app, deleted: true },
        () =>
          `Deleted OAuth app ${chalk.cyan(app.client_id)} "${app.name}"; its tokens are revoked.`,
      );
    },
  },
  command({
    path: ['oauth', 'grants', 'list'],
    description: 'List what was granted to OAuth apps (active grants; --all for revoked too)',
    options: [
      { flags: '--client <client_id>', description: 'only the grants of this app' },
      { flags: '--all', description: 'include revoked grants' },
    ],
    async run(ctx, _args, options) {
      const clientId = stringOption(options, 'client');
      const workspaceId = stringOption(options, 'workspace');
      const grants = await (
        await ctx.control()
      ).oauth.grants.list.query({
        ...(clientId ? { client_id: clientId } : {}),
        ...(workspaceId ? { workspace_id: workspaceId } : {}),
        ...(options.all === true ? { include_revoked: true } : {}),
      });
      ctx.out.list(grants, () =>
        table(
          ['GRANT', 'APP', 'WORKSPACE', 'SCOPES', 'STATUS', 'TOKENS', 'LAST USED'],
          grants.map((grant) => [
            grant.id,
            `${grant.app_name ?? '(deleted)'} ${chalk.dim(grant.client_id)}`,
            grant.workspace_id,
            grant.scopes.join(' '),
            grant.status === 'active'
              ? chalk.green(grant.status)
              : chalk.red(`${grant.status}: ${grant.revoked_reason ?? ''}`),
            String(grant.active_tokens),
            grant.last_used_at ?? 'never',
          ]),
        ),
      );
    },
  }),
  {
    path: ['oauth', 'grants', 'revoke'],
    description: 'Revoke a grant: every token issued under it stops working at once',
    args: [{ name: 'grant_id', description: 'the grant (grant_...)' }],
    async run(ctx, [grantId]) {
      const grant = await (await ctx.control()).oauth.grants.revoke.mutate({ id: grantId! });
      ctx.out.result(
        grant,
        () => `Revoked grant ${chalk.cyan(grant.id)} of ${grant.app_name ?? grant.client_id}.`,
      );
    },
  },
]);
