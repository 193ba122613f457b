// svc daemon start|stop|restart|status|logs
import { formatOffset } from '../../shared/duration.js';
import { passEarlySignals } from '../early-signals.js';
import { command, defineCommands, group, stringOption, type Options } from '../command.js';
import type { CliContext } from '../context.js';
import type { Started } from '../daemon-process.js';
import type { RuntimeInfo } from '../../shared/paths.js';
import { CliError } from '../errors.js';
import { LOG_LEVELS } from '../logs-levels.js';
import { chalk } from '../output.js';
import { resolveStoreSetting, storeWords, StoreSettingError } from '../../shared/store-url.js';

function daemonFlags(ctx: CliContext, options: Options) {
  return {
    dataDir: ctx.dataDir,
    port: stringOption(options, 'port'),
    host: stringOption(options, 'host'),
    env: stringOption(options, 'env'),
    logLevel: stringOption(options, 'logLevel'),
    allowPrivateNetwork: options.allowPrivateNetwork === true ? true : undefined,
    store: stringOption(options, 'store'),
    sandbox: stringOption(options, 'sandbox'),
    secretKeyFile: stringOption(options, 'secretKeyFile'),
  };
}

/**
 * The store the daemon would open, checked here first: a bad URL or sandbox name is a usage
 * error (exit 2) before any daemon is spawned. The daemon reads the same flags and variables.
 */
function checkStore(ctx: CliContext, flags: ReturnType<typeof daemonFlags>): void {
  try {
    resolveStoreSetting(
      {
        store: flags.store ?? process.env.SVC_STORE_URL,
        sandbox: flags.sandbox ?? process.env.SVC_SANDBOX,
      },
      ctx.dataDir,
    );
  } catch (error) {
    if (error instanceof StoreSettingError) throw new CliError(error.message, 2, 'usage_error');
    throw error;
  }
}

/** Where the sandbox is kept: start's options, and restart's (default there: as it was started). */
const STORE_OPTIONS = [
  {
    flags: '--store <url>',
    description:
      'keep the sandbox in PostgreSQL: postgres://user@host:5432/db (env SVC_STORE_URL; default: SQLite in the data dir)',
  },
  {
    flags: '--sandbox <name>',
    description:
      "with --store: the sandbox (schema) to open (env SVC_SANDBOX, or ?sandbox= in the URL; default: the data dir's own)",
  },
  {
    flags: '--secret-key-file <file>',
    description:
      'the key that seals the sandbox secrets (env SVC_SECRET_KEY_FILE; default <data dir>/secret.key, created for a new sandbox)',
  },
];

/**
 * restart: the store, sandbox and key file the running daemon was started with, where neither
 * an option nor a variable gives them again, so it comes back on the same sandbox rather than on
 * the data dir's SQLite file. A store URL's password is never written down: a daemon started
 * with one is refused here, before it is stopped, with how to give it again.
 */
function keepStoreOf(before: RuntimeInfo, flags: ReturnType<typeof daemonFlags>): void {
  const env = process.env;
  if (before.store && flags.store === undefined && !env.SVC_STORE_URL) {
    if (before.store.password) {
      throw new CliError(
        `The daemon serves the PostgreSQL store ${before.store.url}${before.store.sandbox ? ` (sandbox ${before.store.sandbox})` : ''}, whose URL was given with a password, and svc does not keep passwords. Give the store again: svc daemon restart --store postgres://user:PASSWORD@host:5432/db (or SVC_STORE_URL), or keep the password in PGPASSWORD or ~/.pgpass and leave it out of the URL. The daemon was not stopped.`,
        2,
        'usage_error',
      );
    }
    flags.store = before.store.url;
  }
  // The sandbox stays the one it served, also when the store URL is given again (its password).
  const store = flags.store ?? env.SVC_STORE_URL;
  const sandboxGiven =
    flags.sandbox !== undefined || !!env.SVC_SANDBOX || /[?&]sandbox=/.test(store ?? '');
  if (before.store?.sandbox !== undefined && store && !sandboxGiven) {
    flags.sandbox = before.store.sandbox;
  }
  if (before.secret_key_file && flags.secretKeyFile === undefined && !env.SVC_SECRET_KEY_FILE) {
    flags.secretKeyFile = before.secret_key_file;
  }
}

export default defineCommands([
  group(['daemon'], 'Start, stop and inspect the local daemon'),
  command({
    path: ['daemon', 'start'],
    description: 'Start the daemon in the background (or --foreground) and print its URL',
    options: [
      { flags: '--foreground', description: 'stay attached; logs go to stdout' },
      {
        flags: '--env <env>',
        description: 'sandbox or production (env SVC_ENV; default sandbox)',
        choices: ['sandbox', 'production'],
      },
      {
        flags: '--log-level <level>',
        description: 'fatal, error, warn, info, debug, trace, silent (env SVC_LOG_LEVEL)',
      },
      {
        flags: '--allow-private-network',
        description: 'production: allow outbound calls to loopback/private addresses',
      },
      ...STORE_OPTIONS,
      {
        flags: '--fixtures <file>',
        description: 'apply this fixture file once the daemon is up, before returning',
      },
    ],
    examples: [
      'svc daemon start',
      'svc daemon start --fixtures fixtures/support-desk.yaml --json',
      'svc daemon start --port 0 --data-dir ./.svc --json',
      'svc daemon start --store postgres://svc@db.internal:5432/svc --sandbox staging',
      'svc daemon start --foreground',
    ],
    // A supervisor may signal a foreground daemon's CLI before it has started the daemon.
    takesEarlySignals: true,
    async run(ctx, _args, options) {
      const flags = daemonFlags(ctx, options);
      checkStore(ctx, flags);
      if (options.foreground && options.fixtures) {
        throw new CliError(
          '--fixtures applies a file before `svc daemon start` returns, which --foreground never does. Start in the background, or run svc fixtures apply FILE from another terminal.',
          2,
          'usage_error',
        );
      }
      if (!options.foreground) passEarlySignals();
      const { runInForeground, startInBackground } = await import('../daemon-process.js');
      if (options.foreground) {
        // At once, for the reason daemon/process/entry.ts gives: a late signal must not kill the CLI
        // while the natural exit closes its signal handlers.
        process.exit(await runInForeground(ctx, flags));
      }
      await reportStart(ctx, await startInBackground(ctx, flags), options.fixtures);
    },
  }),
  command({
    path: ['daemon', 'stop'],
    description: 'Stop the daemon gracefully (in-flight work finishes or is persisted)',
    async run(ctx) {
      const { stopDaemon } = await import('../daemon-process.js');
      const stopped = await stopDaemon(ctx);
      ctx.out.result(
        { stopped: stopped.wasRunning, pid: stopped.pid ?? null, data_dir: ctx.dataDir },
        () =>
          stopped.wasRunning
            ? `svc daemon stopped (pid ${stopped.pid})`
            : `No svc daemon was running for ${ctx.dataDir}`,
      );
    },
  }),
  command({
    path: ['daemon', 'restart'],
    description:
      'Stop the daemon (if it runs) and start it again, at the same address, environment and store unless given',
    options: [
      {
        flags: '--env <env>',
        description: 'sandbox or production (default: the running daemon’s, else SVC_ENV)',
        choices: ['sandbox', 'production'],
      },
      {
        flags: '--log-level <level>',
        description: 'fatal, error, warn, info, debug, trace, silent (env SVC_LOG_LEVEL)',
      },
      {
        flags: '--allow-private-network',
        description: 'production: allow outbound calls to loopback/private addresses',
      },
      ...STORE_OPTIONS,
    ],
    examples: ['svc daemon restart', 'svc daemon restart --env production'],
    async run(ctx, _args, options) {
      const { startInBackground, stopDaemon } = await import('../daemon-process.js');
      const { isSvcDaemon } = await import('../../shared/process.js');
      const before = ctx.runtime();
      const wasRunning = before !== undefined && isSvcDaemon(before.pid);
      const flags = daemonFlags(ctx, options);
      if (wasRunning) {
        flags.port ??= String(before.port);
        flags.host ??= before.host;
        flags.env ??= before.environment;
        keepStoreOf(before, flags);
      }
      checkStore(ctx, flags);
      await stopDaemon(ctx);
      await reportStart(ctx, await startInBackground(ctx, flags), undefined, wasRunning);
    },
  }),
  command({
    path: ['daemon', 'status'],
    description: 'Show whether the daemon runs, where, and its clock',
    async run(ctx) {
      const runtime = ctx.runtime();
      const { isAlive } = await import('../../shared/process.js');
      if (!runtime || !isAlive(runtime.pid)) {
        ctx.out.result(
          { running: false, data_dir: ctx.dataDir },
          () =>
            `svc daemon is not running (data dir ${ctx.dataDir}). Start it with: svc daemon start`,
        );
        process.exitCode = 1;
        return;
      }
      // Reports the data dir's daemon only: --port/--host/SVC_* naming another is refused
      // (daemon-address.ts), rather than answering about a daemon the user did not mean.
      const status = await (await ctx.control()).daemon.status.query();
      ctx.out.result({ running: true, ...status }, () =>
        [
          `${chalk.green('running')} at ${chalk.cyan(status.url)}`,
          `pid            ${status.pid}`,
          `version        ${status.version}`,
          `environment    ${status.environment}`,
          `data dir       ${status.data_dir}`,
          `store          ${storeWords(status.store)}`,
          `started        ${status.started_at}`,
          `clock          ${status.clock.now}${status.clock.offset_ms ? chalk.yellow(` (offset ${formatOffset(status.clock.offset_ms)})`) : ''}`,
          `pending timers ${status.pending_timers}`,
          `memory         ${megabytes(status.memory.rss)} resident, V8 heap ${megabytes(status.memory.heap_used)} used of ${megabytes(status.memory.heap_total)}`,
          ...(status.dead_timers > 0
            ? [
                chalk.red(
                  `dead timers    ${status.dead_timers} (failed every attempt; see svc daemon logs)`,
                ),
              ]
            : []),
          `workspace      ${status.default_workspace_id} (default)`,
        ].join('\n'),
      );
    },
  }),
  logsCommand(['daemon', 'logs'], 'Print the daemon log (-f to follow; also: svc logs)'),
  logsCommand(['logs'], 'Print the daemon log, as svc daemon logs (-f to follow)'),
]);

/** The start's answer (and the fixture file's, with --fixtures), for start and restart. */
async function reportStart(
  ctx: CliContext,
  started: Started,
  fixtureFile: string | undefined,
  restarted?: boolean,
): Promise<void> {
  const how = started.alreadyRunning ? 'already running' : restarted ? 'restarted' : 'running';
  const startedLine =
    `svc daemon ${how} at ${chalk.cyan(started.url)} (pid ${started.pid}, ${started.environment}, data dir ${ctx.dataDir})\n` +
    `Dashboard at ${chalk.cyan(`${started.url}/ui`)} (log in with: svc dashboard)`;
  const answer = {
    url: started.url,
    pid: started.pid,
    environment: started.environment,
    data_dir: ctx.dataDir,
    dashboard_url: `${started.url}/ui`,
    already_running: started.alreadyRunning,
  };
  if (!fixtureFile) {
    ctx.out.result(answer, () => startedLine);
    return;
  }
  const { applyFixtureFile, describeApply } = await import('./fixtures.js');
  const fixtures = await applyFixtureFile(ctx, fixtureFile, { appUrl: started.url });
  ctx.out.result({ ...answer, fixtures }, () => [startedLine, describeApply(fixtures)].join('\n'));
}

/** svc daemon logs and its short form svc logs: one command under two names. */
function logsCommand(path: [string, ...string[]], description: string) {
  return command({
    path,
    description,
    options: [
      { flags: '-f, --follow', description: 'keep printing new lines' },
      {
        flags: '-n, --lines <count>',
        description: 'how many of the last lines to print (of those --level picks)',
        default: '50',
      },
      {
        flags: '--level <level>',
        description: 'only lines at this level or above',
        choices: LOG_LEVELS,
      },
    ],
    examples: [`svc ${path.join(' ')} --level warn`, `svc ${path.join(' ')} -f`],
    async run(ctx, _args, options) {
      const lines = Number(options.lines ?? '50');
      if (!Number.isInteger(lines) || lines < 0)
        throw new CliError('--lines takes a whole number.', 2, 'usage_error');
      const { printLogs } = await import('../logs.js');
      await printLogs(ctx, { lines, follow: options.follow === true, level: options.level });
    },
  });
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
