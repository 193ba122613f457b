// The README's tour as data, so the README and its test cannot drift: every fenced block marked
// ```sh tour, split into commands (a line, its `\` continuations and here-documents) and the
// `#>` lines under each, which say what that command prints. tourScript() turns them into one
// bash script that runs each command in the same shell (variables carry over), writes what it
// printed (stdout and stderr) and its exit code to a file per command, and stops at the first
// that fails.

export interface TourStep {
  /** The command as written, continuation lines and here-document included. */
  command: string;
  /** Its first line in README.md (1-based). */
  line: number;
  /** The `#>` lines after it, without the marker: each must match a line of what it printed. */
  expect: string[];
}

const TOUR_FENCE = /^```sh\s+tour\s*$/;

export function tourSteps(readme: string): TourStep[] {
  const lines = readme.split('\n');
  const steps: TourStep[] = [];
  let inTour = false;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (!inTour) {
      inTour = TOUR_FENCE.test(line);
      continue;
    }
    if (line.startsWith('```')) {
      inTour = false;
      continue;
    }
    const expected = /^#>\s?(.*)$/.exec(line);
    if (expected) {
      const step = steps.at(-1);
      if (!step) throw new Error(`README.md:${index + 1}: a #> line before any command`);
      step.expect.push(expected[1]!.trim());
      continue;
    }
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const start = index;
    const command = [line];
    // A here-document runs to its terminator; a trailing backslash continues the line.
    const heredoc = /<<-?\s*(['"]?)(\w+)\1/.exec(line)?.[2];
    if (heredoc) {
      while (index + 1 < lines.length && lines[index + 1] !== heredoc)
        command.push(lines[++index]!);
      command.push(lines[++index] ?? '');
    }
    while (command.at(-1)!.endsWith('\\') && index + 1 < lines.length)
      command.push(lines[++index]!);
    steps.push({ command: command.join('\n'), line: start + 1, expect: [] });
  }
  if (inTour) throw new Error('README.md: a ```sh tour block is not closed');
  return steps;
}

/**
 * A `#>` line as a pattern over one line of output: `...` stands for anything on the line, runs
 * of spaces for any run of spaces (tables pad their columns), the rest is literal.
 */
export function expectation(text: string): RegExp {
  const parts = text.split('...').map((part) =>
    part
      .split(/ +/)
      .map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join(' +'),
  );
  return new RegExp(parts.join('.*'), 'm');
}

/** The bash script that runs the steps; `outDir/<n>.out` and `<n>.rc` per step (0-based). */
export function tourScript(steps: TourStep[], outDir: string): string {
  const quoted = (path: string) => `'${path.replaceAll("'", `'\\''`)}'`;
  const body = steps.map((step, index) => {
    const out = quoted(`${outDir}/${index}.out`);
    const rc = quoted(`${outDir}/${index}.rc`);
    // The braces keep the command in this shell, so its variables carry over to the next.
    return `{\n${step.command}\n} > ${out} 2>&1 < /dev/null\nstatus=$?; echo $status > ${rc}; [ $status -eq 0 ] || exit 90\n`;
  });
  return `set -o pipefail\n${body.join('\n')}`;
}
