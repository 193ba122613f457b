// The paths a fixture file names (agents' knowledge documents, workflow files) stay inside the
// fixture file's folder. Fixtures live in repositories people clone: a path reaching out
// (`../../notes.md`, `/home/me/.aws/credentials`) would send a local file to the daemon as
// knowledge, and from there wherever a workflow posts it. Checked on the path as written, by the
// daemon's schema (any client of the control channel) and the CLI; the CLI also resolves
// symlinks before it reads (fixture-file.ts).

/** Why a path is refused (a phrase to follow the field's name), or undefined when it is fine. */
export function fixturePathProblem(path: string): string | undefined {
  if (path.includes('\0')) return 'a path holds no NUL character';
  if (/^[\\/]/.test(path) || /^[A-Za-z]:/.test(path)) {
    return `${path} is an absolute path; a fixture names files relative to its own folder (copy the file next to the fixture)`;
  }
  let depth = 0;
  for (const part of path.split(/[\\/]+/)) {
    if (part === '..') depth -= 1;
    else if (part !== '.' && part !== '') depth += 1;
    if (depth < 0) {
      return `${path} leads out of the fixture file's folder; a fixture reads files in its own folder and below only (copy the file next to the fixture)`;
    }
  }
  if (depth === 0) return `${path} names the fixture's folder itself, not a file`;
  return undefined;
}
