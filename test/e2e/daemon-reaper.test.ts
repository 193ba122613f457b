// The e2e helpers leave no daemon behind when a test file's process ends without stopping it:
// ava ends a file that timed out with SIGTERM, and an uncaught error ends it too. A process
// here starts a daemon with the helpers, as a test file does, and is ended both ways; the
// daemon (detached: no child of that process) must be gone and its temp data dir removed.
import test, { type ExecutionContext } from 'ava';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { ROOT } from '../helpers/daemon.js';
import { waitForExit } from '../helpers/processes.js';

/** A process that starts a daemon through the helpers, then runs `then` (source text). */
async function fileProcess(t: ExecutionContext, then: string) {
  const source = [
    "import { startDaemon } from './test/helpers/daemon.js';",
    'const d = await startDaemon();',
    'console.log(JSON.stringify({ pid: d.pid, dataDir: d.dataDir }));',
    then,
  ].join('\n');
  const child = spawn(process.execPath, ['--import=tsx', '--input-type=module', '-e', source], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => child.kill('SIGKILL'));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const started = new Promise<{ pid: number; dataDir: string }>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const lines = stdout.split('\n');
      lines.pop(); // a line not ended yet
      const line = lines.find((text) => text.startsWith('{'));
      if (line) resolve(JSON.parse(line) as { pid: number; dataDir: string });
    });
    child.once('exit', (code) => reject(new Error(`exited ${code} first: ${stderr}`)));
  });
  return { child, exited, daemon: await started, stderr: () => stderr };
}

test('SIGTERM (ava ending a timed-out file): the daemon is killed and its data dir removed', async (t) => {
  const { child, exited, daemon } = await fileProcess(t, 'setInterval(() => {}, 1000);');
  t.true(existsSync(daemon.dataDir));
  child.kill('SIGTERM');
  const [, signal] = await exited;
  t.is(signal, 'SIGTERM', 'the process still ends by the signal');
  t.true(await waitForExit(daemon.pid), `daemon ${daemon.pid} is gone`);
  t.false(existsSync(daemon.dataDir), 'its data dir is removed');
});

test('an uncaught error ends the process: the daemon is killed and its data dir removed', async (t) => {
  const { exited, daemon, stderr } = await fileProcess(t, "throw new Error('boom');");
  const [code] = await exited;
  t.is(code, 1, stderr());
  t.true(await waitForExit(daemon.pid), `daemon ${daemon.pid} is gone`);
  t.false(existsSync(daemon.dataDir), 'its data dir is removed');
});
