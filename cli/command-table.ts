// The command table: every command's words, arguments, options and help, without its handler.
// The build writes it to dist/cli/command-table.json so `svc --help` (and commander's parsing)
// needs only commander and this file; a command's module is loaded when the command runs.
import { isGroup, type ArgSpec, type CliEntry, type OptionSpec } from './command.js';

export interface TableCommand {
  path: string[];
  description: string;
  args: ArgSpec[];
  options: OptionSpec[];
  examples: string[];
  takesEarlySignals: boolean;
  isDefault: boolean;
}

export interface CommandTable {
  groups: Record<string, string>;
  commands: TableCommand[];
}

export const COMMAND_TABLE_FILE = 'command-table.json';

export function describeCommands(entries: readonly CliEntry[]): CommandTable {
  const groups: Record<string, string> = {};
  const commands: TableCommand[] = [];
  for (const entry of entries) {
    if (isGroup(entry)) {
      groups[entry.group.join(' ')] = entry.description;
      continue;
    }
    commands.push({
      path: entry.path,
      description: entry.description,
      args: entry.args ?? [],
      options: (entry.options ?? []).map((option) => ({ ...option })),
      examples: entry.examples ?? [],
      takesEarlySignals: entry.takesEarlySignals ?? false,
      isDefault: entry.isDefault ?? false,
    });
  }
  return { groups, commands };
}
