// Every hint names an svc command a user can run: each "svc <group> <word>" in the CLI's and
// the daemon's messages, the templates and the README names a command of the command table
// (an earlier hint said `svc workflows runs`, which never existed). "svc daemon" followed by
// prose ("svc daemon stopped") is the program's name, not a command, and is left out.
import test from 'ava';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isGroup } from '../../cli/command.js';
import { COMMANDS } from '../../cli/registry.js';
import { ROOT } from '../helpers/daemon.js';

const commands = COMMANDS.filter((entry) => !isGroup(entry)).map((entry) =>
  (entry as { path: string[] }).path.join(' '),
);
const prefixes = new Set(
  commands.flatMap((path) => path.split(' ').map((_, i, words) => words.slice(0, i + 1).join(' '))),
);
const isGroupPath = (path: string) =>
  !commands.includes(path) && commands.some((c) => c.startsWith(`${path} `));

function files(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return files(path);
    return /\.(ts|md|ya?ml)$/.test(name) ? [path] : [];
  });
}

test('each "svc <group> <subcommand>" in messages, templates and the README exists', (t) => {
  const sources = [
    ...['cli', 'daemon', 'shared', 'templates', 'docs'].flatMap((dir) => files(join(ROOT, dir))),
    join(ROOT, 'README.md'),
  ];
  const unknown: string[] = [];
  let checked = 0;
  for (const file of sources) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/\bsvc ([a-z][a-z-]*) ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?/g)) {
      const [, first, ...rest] = match;
      if (!prefixes.has(first!) || first === 'daemon') continue;
      let path = first!;
      for (const word of rest) {
        if (!word || !isGroupPath(path)) break;
        if (!prefixes.has(`${path} ${word}`)) {
          unknown.push(`${file.slice(ROOT.length + 1)}: "${match[0]}"`);
          break;
        }
        path = `${path} ${word}`;
        checked++;
      }
    }
  }
  t.log(`${checked} named subcommands checked in ${sources.length} files`);
  t.true(checked > 100);
  t.deepEqual(unknown, []);
});
