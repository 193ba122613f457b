// The command table names each command's module, so that running a command loads that module
// alone: every command the registry lists is found in the module the table names, and the
// table keeps what the help and parser need.
import test from 'ava';
import { isGroup, type CliEntry } from '../../cli/command.js';
import { commandModules, describeCommands, readCommandTable } from '../../cli/command-table.js';
import { COMMANDS } from '../../cli/registry.js';

test('every command of the registry is in the module the table names for it', async (t) => {
  const table = describeCommands(COMMANDS, await commandModules());
  const commands = COMMANDS.filter((entry) => !isGroup(entry));
  t.is(table.commands.length, commands.length);
  for (const command of table.commands) {
    const key = command.path.join(' ');
    t.truthy(command.module, `${key} has a module`);
    const loaded = (await import(`../../cli/commands/${command.module}.js`)) as {
      default: CliEntry[];
    };
    t.true(
      loaded.default.some((entry) => !isGroup(entry) && entry.path.join(' ') === key),
      `${key} is in cli/commands/${command.module}`,
    );
  }
  t.like(
    table.commands.find((command) => command.path.join(' ') === 'clock show'),
    { module: 'clock', isDefault: true },
  );
  t.like(
    table.commands.find((command) => command.path.join(' ') === 'webhooks replay'),
    { module: 'webhook-replay' },
  );
  t.like(
    table.commands.find((command) => command.path.join(' ') === 'status'),
    { module: 'status', args: [] },
  );
  t.like(
    table.commands.find((command) => command.path.join(' ') === 'completion'),
    { module: 'completion', args: [{ name: 'shell', description: 'bash, zsh or fish' }] },
  );
  // Hidden from the help and the completion scripts, still parsed and run.
  t.like(
    table.commands.find((command) => command.path.join(' ') === '__complete'),
    { module: 'completion', hidden: true },
  );
  t.is(table.commands.filter((command) => command.hidden).length, 1);
});

test('the table read at run time is the one the commands describe (sources: from the modules)', async (t) => {
  const table = await readCommandTable();
  const paths = (commands: { path: string[] }[]) =>
    commands.map((command) => command.path.join(' ')).sort();
  t.deepEqual(
    paths(table.commands),
    paths(COMMANDS.filter((entry) => !isGroup(entry)) as { path: string[] }[]),
  );
});

test('without the modules the table has none, and the CLI looks in the registry', (t) => {
  const table = describeCommands(COMMANDS);
  t.true(table.commands.every((command) => command.module === undefined));
  t.is(table.groups.clock, 'The sandbox clock: show, advance, set, reset, freeze, resume');
});
