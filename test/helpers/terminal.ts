// Drives a command in a real pseudo-terminal (util-linux `script`), as a user at a prompt would.
import { spawn } from 'node:child_process';
import { ROOT } from './daemon.js';
import { svcEnv } from './env.js';
import { reapChild } from './reaper.js';

/** Runs a command in a pseudo-terminal, answering each prompt when its text appears
 * after the previous one; resolves with everything the terminal showed. */
export function inTerminal(
  command: string,
  answers: [prompt: string, keys: string][],
  env: NodeJS.ProcessEnv,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: ROOT,
      env: svcEnv({ ...env, CI: '', NO_COLOR: '1', TERM: 'xterm' }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    reapChild(child);
    let screen = '';
    let next = 0;
    let seenUpTo = 0;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no answer in time; screen so far:\n${screen}`));
    }, 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      screen += chunk.toString('utf8');
      while (next < answers.length) {
        const at = screen.indexOf(answers[next]![0], seenUpTo);
        if (at < 0) break;
        seenUpTo = at + answers[next]![0].length;
        child.stdin.write(answers[next]![1]);
        next += 1;
      }
    });
    child.on('close', () => {
      clearTimeout(timer);
      resolve(screen);
    });
  });
}
