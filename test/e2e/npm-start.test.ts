// `npm start` is all a fresh clone needs after `npm install` (issue 55, point 11): it runs the
// daemon in the foreground, its log on stdout, and Ctrl-C (SIGINT to the terminal's process
// group: npm and the daemon) stops it cleanly: exit code 0, the data dir's lock, runtime file
// and control token gone.
import test from 'ava';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/daemon.js';
import { svcEnv } from '../helpers/env.js';
import { tempDir } from '../helpers/temp-dir.js';

test('npm start runs the daemon in the foreground; Ctrl-C stops it cleanly', async (t) => {
  const dataDir = tempDir('svc-e2e-npm-start-');
  // A process group of its own, as a terminal gives the command it runs: Ctrl-C signals it whole.
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    detached: true,
    env: svcEnv({ SVC_DATA_DIR: dataDir, SVC_PORT: '0', NO_COLOR: '1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // Only a guard against a hang: a loaded 2-core machine took over 30 s to start a daemon.
  const url = await new Promise<string | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(undefined), 120_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const listening = stdout
        .split('\n')
        .find((line) => line.includes('"msg":"svc daemon listening"'));
      if (listening) {
        clearTimeout(timer);
        resolve((JSON.parse(listening) as { url: string }).url);
      }
    });
  });
  t.truthy(url, `stdout: ${stdout}\nstderr: ${stderr}`);
  t.is((await fetch(`${url}/healthz`)).status, 200);
  t.true(existsSync(join(dataDir, 'daemon.lock')), 'the running daemon holds the lock');

  process.kill(-child.pid!, 'SIGINT');
  const [code, signal] = await exited;
  t.is(signal, null, stderr);
  t.is(code, 0, stderr);
  t.true(stdout.includes('"msg":"svc daemon stopped"'), stdout);
  for (const file of ['daemon.lock', 'daemon.json', 'control-token']) {
    t.false(existsSync(join(dataDir, file)), `${file} left behind`);
  }
  await t.throwsAsync(fetch(`${url}/healthz`));
});
