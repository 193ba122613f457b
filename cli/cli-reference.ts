// docs/cli.md, the CLI reference, written from the command table (the one the CLI builds its
// help and parser from), so it cannot drift from the commands: `npm run docs:cli` writes it, and
// test/unit/cli-reference checks that the file is what the table gives now.
import type { OptionSpec } from './command.js';
import type { CommandTable, TableCommand } from './command-table.js';

export const CLI_REFERENCE_FILE = 'docs/cli.md';

/** The reference as Markdown (before prettier, which the writer and the check both run). */
export function renderCliReference(
  table: CommandTable,
  globalOptions: readonly OptionSpec[],
): string {
  const shown = table.commands.filter((command) => !command.hidden);
  const sections = [
    '# svc command reference',
    '',
    '<!-- Generated from the command table by `npm run docs:cli`; do not edit by hand (test/unit/cli-reference checks it). -->',
    '',
    'Every command prints human output, or exactly one JSON document on stdout with `--json`. Exit codes: 0 success, 1 the operation failed, 2 usage error. `svc help COMMAND...` or `svc COMMAND... --help` prints the same help in a terminal.',
    '',
    '## Options of every command',
    '',
    ...optionLines(globalOptions),
    '',
  ];
  let group: string | undefined;
  for (const command of shown) {
    const top = command.path.length > 1 ? command.path[0]! : undefined;
    if (top !== undefined && top !== group) {
      group = top;
      sections.push(`## svc ${top}`, '', escapeMarkdown(table.groups[top] ?? ''), '');
    }
    sections.push(...commandSection(command), '');
  }
  return sections.join('\n');
}

function commandSection(command: TableCommand): string[] {
  const usage = [
    'svc',
    ...command.path,
    ...command.args.map((arg) => (arg.required === false ? `[${arg.name}]` : `<${arg.name}>`)),
    ...(command.options.length ? ['[options]'] : []),
  ].join(' ');
  const lines = [
    `### svc ${command.path.join(' ')}`,
    '',
    `\`${usage}\``,
    '',
    escapeMarkdown(command.description),
  ];
  if (command.args.length) {
    lines.push('', 'Arguments:', '');
    for (const arg of command.args)
      lines.push(
        `- \`${arg.name}\`${arg.required === false ? ' (optional)' : ''}: ${escapeMarkdown(arg.description)}`,
      );
  }
  if (command.options.length) lines.push('', 'Options:', '', ...optionLines(command.options));
  if (command.examples.length) lines.push('', 'Examples:', '', '```sh', ...command.examples, '```');
  return lines;
}

function optionLines(options: readonly OptionSpec[]): string[] {
  return options.map((option) => {
    const choices = option.choices ?? option.values;
    const extra = [
      choices ? `one of: ${choices.map((choice) => `\`${choice}\``).join(', ')}` : '',
      option.default !== undefined ? `default \`${String(option.default)}\`` : '',
    ].filter(Boolean);
    return `- \`${option.flags}\`: ${escapeMarkdown(option.description)}${extra.length ? ` (${extra.join('; ')})` : ''}`;
  });
}

/** Descriptions are prose; a `*` or `_` in them (agent.*, SVC_PORT) is not emphasis. */
function escapeMarkdown(text: string): string {
  return text.replace(/([*_<>])/g, '\\$1');
}
