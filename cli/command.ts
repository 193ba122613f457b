// Commands are data: a path ("keys create"), arguments, options and a handler. The registry
// builds the commander tree from them; handlers import what they need only when they run.
import type { CliContext } from './context.js';

export interface ArgSpec {
  name: string;
  description: string;
  required?: boolean;
}

export interface OptionSpec {
  /** Commander flags, e.g. "--name <name>" or "-f, --follow". */
  flags: string;
  description: string;
  default?: string | boolean;
  choices?: readonly string[];
}

export type Options = Record<string, string | boolean | undefined>;

export interface CommandSpec {
  path: [string, ...string[]];
  description: string;
  args?: ArgSpec[];
  options?: OptionSpec[];
  /** Shown under the help: example invocations. */
  examples?: string[];
  run(ctx: CliContext, args: string[], options: Options): Promise<void>;
}

export function defineCommands(commands: CommandSpec[]): CommandSpec[] {
  return commands;
}

/** Reads a string option; undefined when absent. */
export function stringOption(options: Options, name: string): string | undefined {
  const value = options[name];
  return typeof value === 'string' ? value : undefined;
}
