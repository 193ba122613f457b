// Entry of the svc command: builds the commander tree from the command table, runs one command,
// and maps failures to exit codes (1 the operation failed, 2 usage). Only commander and the table
// load for help and parsing; the command's module, the context and chalk load when it runs.
import { Command, CommanderError, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { VERSION } from '../shared/package-info.js';
import type { CliEntry, CommandSpec } from './command.js';
import { COMMAND_TABLE_FILE, type CommandTable, type TableCommand } from './command-table.js';
import type { GlobalOptions } from './context.js';
import { GLOBAL_OPTIONS } from './global-options.js';

/** The table written by the build; computed from the registry when it is absent (sources). */
async function loadTable(): Promise<CommandTable> {
  try {
    const text = readFileSync(new URL(COMMAND_TABLE_FILE, import.meta.url), 'utf8');
    return JSON.parse(text) as CommandTable;
  } catch {
    const [{ COMMANDS }, { describeCommands }] = await Promise.all([
      import('./registry.js'),
      import('./command-table.js'),
    ]);
    // Without the modules: findSpec then looks in the registry, which is loaded already.
    return describeCommands(COMMANDS);
  }
}

/**
 * The runnable spec of a command: from its own module when the table names it (one module
 * loads, not all), else from the registry (a table computed from the sources).
 */
async function findSpec(command: TableCommand): Promise<CommandSpec> {
  const key = command.path.join(' ');
  const [entries, { isGroup }] = await Promise.all([
    command.module === undefined
      ? import('./registry.js').then((loaded) => loaded.COMMANDS)
      : import(`./commands/${command.module}.js`).then(
          (loaded: { default: CliEntry[] }) => loaded.default,
        ),
    import('./command.js'),
  ]);
  const spec = entries.find((entry) => !isGroup(entry) && entry.path.join(' ') === key);
  if (!spec || isGroup(spec))
    throw new Error(`svc: no handler for "${key}"; rebuild with npm run build`);
  return spec;
}

async function reportError(error: unknown, json: boolean): Promise<number> {
  const { reportError: report } = await import('./report-error.js');
  return report(error, json);
}

function buildProgram(table: CommandTable): Command {
  const program = new Command('svc')
    .description('Local sandbox of the agent and workflow automation service.')
    .version(VERSION, '-v, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  for (const option of GLOBAL_OPTIONS) program.option(option.flags, option.description);

  const descriptions = new Map(Object.entries(table.groups));
  const groups = new Map<string, Command>();
  for (const spec of table.commands) {
    let parent = program;
    for (const [depth, word] of spec.path.slice(0, -1).entries()) {
      const key = spec.path.slice(0, depth + 1).join(' ');
      let group = groups.get(key);
      if (!group) {
        group = parent
          .command(word)
          .description(descriptions.get(key) ?? word)
          .exitOverride();
        groups.set(key, group);
      }
      parent = group;
    }
    addCommand(parent, spec);
  }
  return program;
}

function addCommand(parent: Command, spec: TableCommand): void {
  const command = parent
    .command(spec.path.at(-1)!, {
      isDefault: spec.isDefault === true,
      hidden: spec.hidden === true,
    })
    .description(spec.description)
    .exitOverride();
  for (const arg of spec.args)
    command.argument(arg.required === false ? `[${arg.name}]` : `<${arg.name}>`, arg.description);
  // A missing argument says what it takes ("missing required argument 'shell': bash, zsh or fish").
  // (commander's hook for it, not in its types)
  (command as unknown as { missingArgument(name: string): void }).missingArgument = (name) => {
    const described = spec.args.find((arg) => arg.name === name)?.description;
    command.error(
      `error: missing required argument '${name}'${described ? `: ${described}` : ''}`,
      { code: 'commander.missingArgument' },
    );
  };
  for (const option of spec.options) {
    const opt = new Option(option.flags, option.description);
    if (option.default !== undefined) opt.default(option.default);
    // The API's own values (its schema's enum) are choices too: a value outside them is a usage
    // error naming them (exit 2), not an API error in REST words.
    const choices = option.choices ?? option.values;
    if (choices) opt.choices(choices);
    command.addOption(opt);
  }
  if (spec.examples.length)
    command.addHelpText('after', `\nExamples:\n${spec.examples.map((e) => `  $ ${e}`).join('\n')}`);
  command.action(async (...received: unknown[]) => {
    const self = received.at(-1) as Command;
    const args = received.slice(0, spec.args.length) as string[];
    const options = self.optsWithGlobals<GlobalOptions>();
    const [handler, { CliContext }, { passEarlySignals }] = await Promise.all([
      findSpec(spec),
      import('./context.js'),
      import('./early-signals.js'),
    ]);
    if (!spec.takesEarlySignals) passEarlySignals();
    const ctx = new CliContext(options);
    try {
      await handler.run(ctx, args, options);
    } catch (error) {
      const { withCliHints } = await import('./report-error.js');
      throw withCliHints(error, ctx.workspaceInUse());
    }
  });
}

/**
 * `svc help workflows run` is `svc workflows run --help`: commander's help command reads one
 * word and would print the group's help.
 */
function helpAsFlag(argv: string[]): string[] {
  const [node, script, first, ...rest] = argv;
  if (first !== 'help' || rest.length === 0 || rest.some((word) => word.startsWith('-')))
    return argv;
  return [node!, script!, ...rest, '--help'];
}

async function main(argv: string[]): Promise<void> {
  const program = buildProgram(await loadTable());
  const json = argv.includes('--json');
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.exitCode === 0
      ) {
        process.exitCode = 0;
        return;
      }
      process.exitCode = 2;
      return;
    }
    process.exitCode = await reportError(error, json);
  }
}

// A reader that stops early (`svc events list | head`) closes the pipe: that ends the command
// quietly, as it does for other Unix tools, instead of an unhandled EPIPE error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

await main(helpAsFlag(process.argv)).catch(async (error: unknown) => {
  process.exitCode = await reportError(error, false);
});
