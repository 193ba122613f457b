// Everything the CLI prints goes through here: human text by default, exactly one JSON document
// on stdout with --json. Colour follows chalk's detection, off for NO_COLOR and non-TTY output.
import chalk from 'chalk';

if (process.env.NO_COLOR !== undefined || !process.stdout.isTTY) chalk.level = 0;

export { chalk };

export class Output {
  constructor(readonly json: boolean) {}

  /** The command's result: JSON as is, or the human rendering of it. */
  result(value: unknown, human: () => string): void {
    if (this.json) process.stdout.write(JSON.stringify(value, null, 2) + '\n');
    else process.stdout.write(human() + '\n');
  }

  /** Progress and notes: always on stderr, so stdout stays one JSON document with --json. */
  note(text: string): void {
    process.stderr.write(text + '\n');
  }

  /** One line for streams (tail, logs -f): a JSON line with --json. */
  line(value: unknown, human: () => string): void {
    process.stdout.write((this.json ? JSON.stringify(value) : human()) + '\n');
  }
}

/** A plain aligned table for human output. */
export function table(headers: string[], rows: string[][]): string {
  if (rows.length === 0) return chalk.dim('(none)');
  const widths = headers.map((header, i) =>
    Math.max(header.length, ...rows.map((row) => visibleLength(row[i] ?? ''))),
  );
  const render = (cells: string[]) =>
    cells
      .map((cell, i) =>
        i === cells.length - 1 ? cell : cell + ' '.repeat(widths[i]! - visibleLength(cell)),
      )
      .join('  ');
  return [chalk.bold(render(headers)), ...rows.map(render)].join('\n');
}

function visibleLength(text: string): number {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '').length;
}
