// Build step after tsc: writes dist/cli/command-table.json from the compiled command registry, so
// the CLI builds its help and parser without loading every command module, and loads only the
// module of the command it runs (each command's module is recorded with it).
import { writeFileSync } from 'node:fs';

const { COMMANDS } = await import('../dist/cli/registry.js');
const { describeCommands, commandModules, COMMAND_TABLE_FILE } =
  await import('../dist/cli/command-table.js');
const target = new URL(`../dist/cli/${COMMAND_TABLE_FILE}`, import.meta.url);
writeFileSync(target, JSON.stringify(describeCommands(COMMANDS, await commandModules())) + '\n');
