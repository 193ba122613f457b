// Commands are data: a path ("keys create"), arguments, typed options and a handler; groups
// ("svc agents") are data too, declared next to their commands. The registry builds the
// commander tree from them; handlers import what they need only when they run.
import type { CliContext, GlobalOptions } from './context.js';

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
  /** The accepted values, enforced by the CLI (commander refuses others: usage error). */
  choices?: readonly string[];
  /**
   * The values the API accepts, from the schema's enum: listed in the help, validated by the
   * API (whose error, e.g. invalid_autonomy_level, says more than a usage error).
   */
  values?: readonly string[];
}

/** "--starting-after <id>" -> "startingAfter", the key commander gives the option. */
type OptionKey<Flags extends string> = Flags extends `${string}--${infer Long}`
  ? Camel<Long extends `${infer Name} ${string}` ? Name : Long>
  : never;
type Camel<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<Camel<Tail>>}`
  : S;
/** An option with a <value> is a string (one of its choices when it has some), else a flag. */
type OptionValue<O extends OptionSpec> = O['flags'] extends `${string}<${string}>`
  ? O extends { choices: readonly (infer Choice extends string)[] }
    ? Choice
    : string
  : boolean;

/** The options a handler receives: its own, typed from their flags, and the global ones. */
export type OptionValues<Os extends readonly OptionSpec[]> = {
  [O in Os[number] as OptionKey<O['flags']>]?: OptionValue<O>;
} & GlobalOptions;

export type Options = Record<string, string | boolean | undefined>;

export interface CommandSpec<Os extends readonly OptionSpec[] = readonly OptionSpec[]> {
  path: [string, ...string[]];
  description: string;
  args?: ArgSpec[];
  options?: Os;
  /** Shown under the help: example invocations. */
  examples?: string[];
  /**
   * The command acts on SIGTERM/SIGINT that came while the CLI loaded (takeEarlySignals or
   * passEarlySignals); by default they take their default action before it runs.
   */
  takesEarlySignals?: boolean;
  /** The group's command when the group is given alone (`svc clock` shows the clock). */
  isDefault?: boolean;
  /** Left out of the help and of completion scripts (`svc __complete`, which they call). */
  hidden?: boolean;
  run(ctx: CliContext, args: string[], options: OptionValues<Os>): Promise<void>;
}

/** A command group ("svc agents", "svc agents knowledge"): its help line. */
export interface GroupSpec {
  group: [string, ...string[]];
  description: string;
}

export type CliEntry = CommandSpec | GroupSpec;

/** One command; keeps its handler's options typed from the declared flags. */
export function command<const Os extends readonly OptionSpec[] = []>(
  spec: CommandSpec<Os>,
): CommandSpec {
  return spec as unknown as CommandSpec;
}

export function group(path: GroupSpec['group'], description: string): GroupSpec {
  return { group: path, description };
}

export function defineCommands(entries: CliEntry[]): CliEntry[] {
  return entries;
}

export function isGroup(entry: CliEntry): entry is GroupSpec {
  return 'group' in entry;
}

/** Reads a string option; undefined when absent. */
export function stringOption(options: Options, name: string): string | undefined {
  const value = options[name];
  return typeof value === 'string' ? value : undefined;
}
