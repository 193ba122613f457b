// svc dashboard: prints a one-time login link for the daemon's web dashboard and opens it in
// the default browser when a person is there to see it (a terminal, a desktop, not CI).
import { command, defineCommands, type Options } from '../command.js';
import { chalk } from '../output.js';

/** Whether opening a browser makes sense here; `svc dashboard --no-open` never tries. */
export function canOpenBrowser(env: NodeJS.ProcessEnv = process.env): boolean {
  if (!process.stdout.isTTY || env.CI === 'true' || env.CI === '1') return false;
  if (process.platform === 'darwin' || process.platform === 'win32') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

/** Opens the login link in the browser if a person can see it; false when it did not start. */
async function openInBrowser(url: string): Promise<boolean> {
  if (!canOpenBrowser()) return false;
  const { default: open } = await import('open');
  // A browser that cannot start is not a failure: the link is printed anyway.
  return open(url).then(
    () => true,
    () => false,
  );
}

export default defineCommands([
  command({
    path: ['dashboard'],
    description:
      'Print a login link for the web dashboard (valid 5 minutes, once) and open it in the browser',
    options: [{ flags: '--no-open', description: 'only print the link, never open a browser' }],
    examples: ['svc dashboard', 'svc dashboard --no-open', 'svc dashboard --json'],
    async run(ctx, _args, options) {
      const login = await (await ctx.control()).dashboard.login.mutate();
      const wantsOpen = (options as Options).open !== false && !ctx.options.json;
      const opened = wantsOpen && (await openInBrowser(login.login_url));
      ctx.out.result({ ...login, opened }, () =>
        [
          `Dashboard: ${chalk.cyan(login.url)}`,
          `Log in with this link (valid until ${login.expires_at}, once):`,
          `  ${chalk.cyan(login.login_url)}`,
          opened ? chalk.dim('Opened in your browser.') : '',
        ]
          .filter(Boolean)
          .join('\n'),
      );
    },
  }),
  command({
    path: ['open'],
    description:
      'Open a run, agent execution, delivery, webhook, agent or workflow on its dashboard page (a login link valid 5 minutes, once)',
    args: [
      {
        name: 'id',
        description: 'the id to show: wex_, exec_, del_, hook_, agt_ or wfl_...',
        required: true,
      },
    ],
    options: [{ flags: '--print', description: 'only print the link, never open a browser' }],
    examples: ['svc open wex_2Nf8...', 'svc open wfl_9a... --print', 'svc open del_7Qx... --json'],
    async run(ctx, [id], options) {
      const login = await (await ctx.control()).dashboard.login.mutate({ id: id! });
      const wantsOpen = !options.print && !ctx.options.json;
      const opened = wantsOpen && (await openInBrowser(login.login_url));
      ctx.out.result({ ...login, opened }, () =>
        [
          `${id}: ${chalk.cyan(login.url)}`,
          `Log in and land there with this link (valid until ${login.expires_at}, once):`,
          `  ${chalk.cyan(login.login_url)}`,
          opened ? chalk.dim('Opened in your browser.') : '',
        ]
          .filter(Boolean)
          .join('\n'),
      );
    },
  }),
]);
