// What shell completion knows about svc, derived from the command table (never a list written by
// hand): the words that may follow each command path, each path's flags, which flags take a
// value and what that value is, and what each positional argument names (a file, a workflow id).
import type { OptionSpec } from './command.js';
import type { CommandTable, TableCommand } from './command-table.js';

/** The ids `svc __complete <kind>` lists from the running daemon, or a file. */
export const ID_KINDS = ['workflows', 'agents', 'webhooks', 'runs', 'objects'] as const;
export type IdKind = (typeof ID_KINDS)[number];
export type ArgKind = IdKind | 'file';

/** What the value of a flag is: one of some words, a file or folder name, or free text. */
export type ValueKind = { words: string[] } | 'file' | 'dir' | 'text';

export interface CompletionFlag {
  /** Every spelling: "-f", "--follow". */
  names: string[];
  description: string;
  /** Undefined for a flag without a value. */
  value?: ValueKind;
}

export interface CompletionNode {
  /** "" for svc itself, else the words of a group or command ("workflows run"). */
  path: string;
  description: string;
  /** The words that may follow: subcommands of a group. */
  children: { word: string; description: string }[];
  flags: CompletionFlag[];
  /** What each positional argument names, in order ('' where nothing can be offered). */
  args: (ArgKind | '')[];
}

export interface CompletionModel {
  /** Every path in help order, the root first. */
  nodes: CompletionNode[];
  /** The program's own flags, valid after any command. */
  globals: CompletionFlag[];
}

export function flagOf(option: OptionSpec): CompletionFlag {
  const names = option.flags.split(/[ ,]+/).filter((word) => word.startsWith('-'));
  const placeholder = /<([^>]+)>/.exec(option.flags)?.[1];
  const words = option.choices ?? option.values;
  let value: ValueKind | undefined;
  if (placeholder !== undefined) {
    if (words) value = { words: [...words] };
    else if (/dir/.test(placeholder)) value = 'dir';
    else if (/file|path/.test(placeholder)) value = 'file';
    else value = 'text';
  }
  return { names, description: option.description, ...(value ? { value } : {}) };
}

/**
 * What an argument names, from its name and its command's group: an `id` of `svc workflows` is
 * a workflow id, `run` takes a run or workflow id (wex_ alone, or wfl_ then wex_), `execution`
 * after a workflow id is one of its runs. Arguments named otherwise get nothing offered.
 */
export function argKind(command: TableCommand, name: string): ArgKind | '' {
  const group = command.path[0];
  if (name === 'file') return 'file';
  if (command.path.join(' ') === 'open') return 'objects';
  if (group === 'workflows' && (name === 'id' || name === 'run')) return 'workflows';
  if (group === 'workflows' && name === 'execution') return 'runs';
  if (group === 'agents' && (name === 'id' || name === 'agent')) return 'agents';
  if (group === 'webhooks' && name === 'id' && command.path[1] !== 'delivery') return 'webhooks';
  return '';
}

export function completionModel(
  table: CommandTable,
  globals: readonly OptionSpec[],
): CompletionModel {
  const nodes = new Map<string, CompletionNode>();
  const node = (words: string[]): CompletionNode => {
    const path = words.join(' ');
    let found = nodes.get(path);
    if (!found) {
      found = {
        path,
        description: table.groups[path] ?? '',
        children: [],
        flags: [],
        args: [],
      };
      nodes.set(path, found);
    }
    return found;
  };
  node([]);
  for (const command of table.commands) {
    if (command.hidden) continue;
    for (let depth = 1; depth <= command.path.length; depth++) {
      const parent = node(command.path.slice(0, depth - 1));
      const word = command.path[depth - 1]!;
      if (!parent.children.some((child) => child.word === word)) {
        const path = command.path.slice(0, depth).join(' ');
        parent.children.push({
          word,
          description:
            table.groups[path] ?? (depth === command.path.length ? command.description : ''),
        });
      }
    }
    const own = node(command.path);
    own.description = command.description;
    own.flags = command.options.map(flagOf);
    own.args = command.args.map((arg) => argKind(command, arg.name));
  }
  return { nodes: [...nodes.values()], globals: globals.map(flagOf) };
}
