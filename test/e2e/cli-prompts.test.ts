// With a terminal, `svc keys create` asks for what its flags did not give (a real pseudo-terminal
// through util-linux `script`); without one it never prompts (see cli-operator.test.ts).
import test from 'ava';
import { spawn } from 'node:child_process';
import { ROOT, SVC_BIN, startDaemon, type TestDaemon } from '../helpers/daemon.js';

let daemon: TestDaemon;

test.before(async () => {
  daemon = await startDaemon();
});

test.after.always(async () => {
  await daemon?.stop();
});

/** Runs a command in a pseudo-terminal, answering each prompt when its text appears. */
function inTerminal(
  command: string,
  answers: [prompt: string, keys: string][],
  env: NodeJS.ProcessEnv,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: ROOT,
      env: { ...process.env, ...env, CI: '', NO_COLOR: '1', TERM: 'xterm' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    let next = 0;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no answer in time; screen so far:\n${screen}`));
    }, 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      screen += chunk.toString('utf8');
      while (next < answers.length && screen.includes(answers[next]![0])) {
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

test('keys create asks for a name and scopes in a terminal, and the key works', async (t) => {
  const screen = await inTerminal(
    `node ${SVC_BIN} keys create --json`,
    [
      ['Key name', 'from-a-terminal\r'],
      // The first choice is agents:read: select it with space, submit with enter.
      ['Scopes for the key', ' \r'],
    ],
    daemon.env,
  );
  const json = screen.slice(screen.indexOf('{\r\n  "id"'));
  const created = JSON.parse(json.slice(0, json.lastIndexOf('}') + 1).replace(/\r/g, '')) as {
    key: string;
    name: string;
    scopes: string[];
  };
  t.is(created.name, 'from-a-terminal');
  t.deepEqual(created.scopes, ['agents:read']);
  const me = await daemon.request('/v1/auth/me', { key: created.key });
  t.is(me.status, 200);
  t.deepEqual(me.body.data.scopes, ['agents:read']);
});
