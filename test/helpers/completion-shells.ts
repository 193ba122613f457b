// svc's completion scripts run as a shell runs them, for the tests of what they offer: bash
// (COMP_WORDS, then _svc), zsh (outside the line editor compadd cannot run: a stand-in prints
// each word it is handed) and fish (complete -C). The shell runs without blocking this process,
// where a test's fake daemon may be answering meanwhile.
import { execFile, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runCli } from './daemon.js';

export type Shell = 'bash' | 'zsh' | 'fish';
export const SHELLS: Shell[] = ['bash', 'zsh', 'fish'];

export function installed(shell: Shell): boolean {
  return spawnSync(shell, ['-c', 'exit 0']).status === 0;
}

const scripts = new Map<string, string>();

/** `svc completion <shell>`, written once per folder. */
async function script(shell: Shell, dir: string): Promise<string> {
  const key = `${dir}/${shell}`;
  if (!scripts.has(key)) {
    const printed = await runCli(['completion', shell]);
    if (printed.code !== 0) throw new Error(`svc completion ${shell}: ${printed.stderr}`);
    const file = join(dir, `svc.${shell}`);
    writeFileSync(file, printed.stdout);
    scripts.set(key, file);
  }
  return scripts.get(key)!;
}

async function run(
  shell: Shell,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<string[]> {
  const { stdout } = await promisify(execFile)(shell, args, { encoding: 'utf8', ...options });
  return stdout.split('\n').filter(Boolean);
}

/**
 * What the shell's completion offers for `words` (the last one is the word under the cursor),
 * run in `cwd` with `env` (whose PATH finds the `svc` to run).
 */
export async function completionOffers(
  shell: Shell,
  words: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<string[]> {
  const file = await script(shell, options.cwd);
  const quotedWords = words.map((word) => `'${word}'`).join(' ');
  if (shell === 'bash')
    return run(
      'bash',
      [
        '--norc',
        '--noprofile',
        '-c',
        `source '${file}'
COMP_WORDS=(${quotedWords}); COMP_CWORD=${words.length - 1}; COMPREPLY=()
_svc
printf '%s\\n' "\${COMPREPLY[@]}"`,
      ],
      options,
    );
  if (shell === 'zsh')
    return run(
      'zsh',
      [
        '-f',
        '-c',
        `compdef() { : }
compadd() { while [[ $1 != -- ]]; do shift; done; shift; print -rl -- "$@" }
_files() { : }
source '${file}'
words=(${quotedWords}); CURRENT=${words.length}
_svc`,
      ],
      options,
    );
  const lines = await run(
    'fish',
    ['--no-config', '-c', `source '${file}'; complete -C '${words.join(' ')}'`],
    options,
  );
  return lines.map((line) => line.split('\t')[0]!);
}
