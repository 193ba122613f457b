// Entry of the svc command: builds the commander tree from the command specs, runs one, and maps
// failures to exit codes (1 the operation failed, 2 usage).
import { Command, CommanderError, Option } from 'commander';
import { VERSION } from '../shared/package-info.js';
import { isGroup, type CommandSpec } from './command.js';
import { CliContext, type GlobalOptions } from './context.js';
import { COMMANDS } from './registry.js';
import { reportError } from './report-error.js';

function buildProgram(): Command {
  const program = new Command('svc')
    .description('Local sandbox of the agent and workflow automation service.')
    .version(VERSION, '-v, --version')
    .option('--json', 'print one JSON document on stdout')
    .option('--data-dir <dir>', 'daemon data dir (env SVC_DATA_DIR; default $XDG_DATA_HOME/svc)')
    .option('--port <port>', 'daemon port (env SVC_PORT; default: the running daemon, else 7717)')
    .option('--host <host>', 'daemon host (env SVC_HOST; default 127.0.0.1)')
    .option(
      '--api-key <key>',
      'call the API with this key (env SVC_API_KEY) instead of the operator credential',
    )
    .option(
      '--workspace <id>',
      'workspace (X-Tenant-ID) to act in (env SVC_WORKSPACE; default: the default workspace)',
    )
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();

  const descriptions = new Map(
    COMMANDS.filter(isGroup).map((entry) => [entry.group.join(' '), entry.description]),
  );
  const groups = new Map<string, Command>();
  for (const spec of COMMANDS) {
    if (isGroup(spec)) continue;
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

function addCommand(parent: Command, spec: CommandSpec): void {
  const command = parent.command(spec.path.at(-1)!).description(spec.description).exitOverride();
  for (const arg of spec.args ?? [])
    command.argument(arg.required === false ? `[${arg.name}]` : `<${arg.name}>`, arg.description);
  for (const option of spec.options ?? []) {
    const described = option.values
      ? `${option.description} (one of: ${option.values.join(', ')})`
      : option.description;
    const opt = new Option(option.flags, described);
    if (option.default !== undefined) opt.default(option.default);
    if (option.choices) opt.choices(option.choices);
    command.addOption(opt);
  }
  if (spec.examples?.length)
    command.addHelpText('after', `\nExamples:\n${spec.examples.map((e) => `  $ ${e}`).join('\n')}`);
  command.action(async (...received: unknown[]) => {
    const self = received.at(-1) as Command;
    const args = received.slice(0, spec.args?.length ?? 0) as string[];
    const options = self.optsWithGlobals<GlobalOptions>();
    await spec.run(new CliContext(options), args, options);
  });
}

async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
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
    process.exitCode = reportError(error, json);
  }
}

await main(process.argv).catch((error: unknown) => {
  process.exitCode = reportError(error, false);
});
