// Everything the CLI prints goes through here: human text by default, exactly one JSON document
// on stdout with --json. stdout carries the command's data only; summaries, hints and progress go
// to stderr, so `svc ... | jq` reads the data alone. Colour (and a summary's symbol) follows each
// stream's own terminal: off for NO_COLOR and for a stream that is not a TTY.
import chalk, { chalkStderr } from 'chalk';

const noColour = process.env.NO_COLOR !== undefined;
if (noColour || !process.stdout.isTTY) chalk.level = 0;
if (noColour || !process.stderr.isTTY) chalkStderr.level = 0;

/** Colour for what goes to stdout (`chalk`) and to stderr (`chalkStderr`). */
export { chalk, chalkStderr };

const SUMMARY_SYMBOLS = {
  ok: chalkStderr.green('✔'),
  failed: chalkStderr.red('✘'),
  waiting: chalkStderr.yellow('?'),
} as const;

/** A list as every `--json` list prints it: the API's page, or a whole list in that shape. */
export interface ListEnvelope<T> {
  data: T[];
  has_more: boolean;
  total_count: number;
  meta: {
    request_id: string | null;
    timestamp: string | null;
    has_more: boolean;
    next_cursor: string | null;
  };
}

/**
 * A whole list (the control channel answers lists whole) in the envelope of the API's pages,
 * meta included, so a script reads every list alike: no REST request answered it, so its
 * request_id and timestamp (the daemon clock's, in a REST answer) are null.
 */
export function envelope<T>(items: T[]): ListEnvelope<T> {
  return {
    data: items,
    has_more: false,
    total_count: items.length,
    meta: { request_id: null, timestamp: null, has_more: false, next_cursor: null },
  };
}

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

  /**
   * The one-line summary of what a command did, beside its data: on stderr, the symbol (✔ ✘ ?)
   * only when stderr is a terminal, so a log or a script sees plain words.
   */
  summary(kind: keyof typeof SUMMARY_SYMBOLS, text: string): void {
    const symbol = process.stderr.isTTY ? `${SUMMARY_SYMBOLS[kind]} ` : '';
    process.stderr.write(`${symbol}${text}\n`);
  }

  /** A list: the envelope with --json (a script reads .data[] of every list), else the table. */
  list<T>(items: T[], human: () => string): void {
    this.result(envelope(items), human);
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
