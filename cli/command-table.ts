// The command table: every command's words, arguments, options and help, without its handler,
// and the module under cli/commands that holds it. The build writes it to
// dist/cli/command-table.json so `svc --help` (and commander's parsing) needs only commander and
// this file, and running a command loads its own module, not all of them.
import { readdirSync, readFileSync } from 'node:fs';
import { isGroup, type ArgSpec, type CliEntry, type OptionSpec } from './command.js';

export interface TableCommand {
  path: string[];
  description: string;
  args: ArgSpec[];
  options: OptionSpec[];
  examples: string[];
  takesEarlySignals: boolean;
  isDefault: boolean;
  hidden?: boolean;
  /** The file name (no extension) of its module under cli/commands, when it has one there. */
  module?: string;
}

export interface CommandTable {
  groups: Record<string, string>;
  commands: TableCommand[];
}

export const COMMAND_TABLE_FILE = 'command-table.json';

/**
 * Each entry of the modules under cli/commands -> its module's file name: every module there
 * default-exports its entries (defineCommands), the objects the registry lists.
 */
export async function commandModules(): Promise<Map<CliEntry, string>> {
  const folder = new URL('./commands/', import.meta.url);
  // dist holds .js (and .d.ts, maps); the sources, run under tsx, .ts.
  const names = new Set(
    readdirSync(folder)
      .filter((file) => /\.[jt]s$/.test(file) && !file.endsWith('.d.ts'))
      .map((file) => file.slice(0, -3)),
  );
  const moduleOf = new Map<CliEntry, string>();
  for (const name of names) {
    const loaded = (await import(new URL(`${name}.js`, folder).href)) as { default?: unknown };
    if (!Array.isArray(loaded.default)) continue;
    for (const entry of loaded.default as CliEntry[]) moduleOf.set(entry, name);
  }
  return moduleOf;
}

export function describeCommands(
  entries: readonly CliEntry[],
  moduleOf: ReadonlyMap<CliEntry, string> = new Map(),
): CommandTable {
  const groups: Record<string, string> = {};
  const commands: TableCommand[] = [];
  for (const entry of entries) {
    if (isGroup(entry)) {
      groups[entry.group.join(' ')] = entry.description;
      continue;
    }
    const module = moduleOf.get(entry);
    commands.push({
      path: entry.path,
      description: entry.description,
      args: entry.args ?? [],
      options: (entry.options ?? []).map((option) => ({ ...option })),
      examples: entry.examples ?? [],
      takesEarlySignals: entry.takesEarlySignals ?? false,
      isDefault: entry.isDefault ?? false,
      ...(entry.hidden ? { hidden: true } : {}),
      ...(module === undefined ? {} : { module }),
    });
  }
  return { groups, commands };
}

/**
 * The table as the CLI sees it: the one the build wrote, else (sources under tsx) described from
 * the command modules themselves (read from the folder, so no module imports the registry).
 */
export async function readCommandTable(): Promise<CommandTable> {
  try {
    return JSON.parse(
      readFileSync(new URL(COMMAND_TABLE_FILE, import.meta.url), 'utf8'),
    ) as CommandTable;
  } catch {
    const moduleOf = await commandModules();
    return describeCommands([...moduleOf.keys()], moduleOf);
  }
}
