// svc daemon logs: the last lines of the daemon's JSON log, rendered for people (or raw with
// --json), optionally following the file as it grows.
import { closeSync, existsSync, openSync, readSync, statSync, watch } from 'node:fs';
import type { CliContext } from './context.js';
import { CliError } from './errors.js';
import { chalk } from './output.js';
import { LOG_LEVELS, type LogLevel } from './logs-levels.js';

/** Whether a log line is at `level` or above (pino's labels in order); lines not JSON pass. */
function atOrAbove(level: LogLevel): (line: string) => boolean {
  const floor = LOG_LEVELS.indexOf(level);
  return (line) => {
    try {
      const rank = LOG_LEVELS.indexOf(
        String((JSON.parse(line) as { level?: unknown }).level) as LogLevel,
      );
      return rank < 0 || rank >= floor;
    } catch {
      return true;
    }
  };
}

const LEVEL_COLOURS: Record<string, (text: string) => string> = {
  fatal: chalk.bgRed.white,
  error: chalk.red,
  warn: chalk.yellow,
  info: chalk.green,
  debug: chalk.dim,
  trace: chalk.dim,
};

export async function printLogs(
  ctx: CliContext,
  options: { lines: number; follow: boolean; level?: LogLevel | undefined },
): Promise<void> {
  const shown = atOrAbove(options.level ?? 'trace');
  const printLine = (line: string, json: boolean) => {
    if (shown(line)) printOne(line, json);
  };
  const file = ctx.files.log;
  if (!existsSync(file)) {
    throw new CliError(
      `No daemon log at ${file} yet. Start the daemon with: svc daemon start`,
      1,
      'no_logs',
    );
  }
  let position = statSync(file).size;
  // Filter first, then take the last N: --level warn -n 50 is the last 50 warnings and errors.
  const picked = readRange(file, 0, position)
    .split('\n')
    .filter((line) => line !== '' && shown(line));
  const tail = picked.slice(Math.max(0, picked.length - options.lines));
  for (const line of tail) printOne(line, ctx.out.json);
  if (!options.follow) return;

  let partial = '';
  const readNew = () => {
    const size = statSync(file).size;
    if (size < position) position = 0;
    if (size === position) return;
    const text = partial + readRange(file, position, size);
    position = size;
    const lines = text.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines.filter(Boolean)) printLine(line, ctx.out.json);
  };
  const watcher = watch(file, () => readNew());
  const poll = setInterval(readNew, 500);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  watcher.close();
  clearInterval(poll);
}

function readRange(file: string, start: number, end: number): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(end - start);
    readSync(fd, buffer, 0, buffer.length, start);
    return buffer.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function printOne(line: string, json: boolean): void {
  if (json) {
    process.stdout.write(line + '\n');
    return;
  }
  try {
    const {
      time,
      level,
      msg,
      pid: _pid,
      hostname: _host,
      ...rest
    } = JSON.parse(line) as Record<string, unknown>;
    const colour = LEVEL_COLOURS[String(level)] ?? ((text: string) => text);
    const fields = Object.entries(rest)
      .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
      .join(' ');
    process.stdout.write(
      `${chalk.dim(String(time))} ${colour(String(level).padEnd(5))} ${String(msg)} ${chalk.dim(fields)}\n`,
    );
  } catch {
    process.stdout.write(line + '\n');
  }
}
