// A daemon whose `svc daemon start` stopped listening before it was ready (the CLI gave up
// waiting on a loaded machine, or was interrupted) goes on running: its ready report has no one
// to go to and is dropped. It crashed there before (an unhandled 'error' of the IPC channel),
// leaving its lock behind. The daemon process is spawned as the CLI spawns it, and its IPC
// channel closed at once.
import test from 'ava';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DAEMON_NODE_FLAGS } from '../../shared/daemon-launch.js';
import { dataDirFiles } from '../../shared/paths.js';
import { ROOT, runCli } from '../helpers/daemon.js';
import { svcEnv } from '../helpers/env.js';
import { isAlive } from '../helpers/processes.js';
import { reapDataDir } from '../helpers/reaper.js';
import { lookUntil } from '../helpers/waiting.js';

test('a daemon whose starting CLI went away before it was ready keeps running, and stops cleanly', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-abandoned-'));
  reapDataDir(dataDir, { remove: true });
  const env = svcEnv({ SVC_DATA_DIR: dataDir, SVC_PORT: '0' });
  const child = spawn(
    process.execPath,
    [...DAEMON_NODE_FLAGS, join(ROOT, 'dist', 'daemon', 'process', 'entry.js')],
    { detached: true, env, stdio: ['ignore', 'ignore', 'ignore', 'ipc'] },
  );
  child.disconnect();
  child.unref();
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));

  // Ready: it wrote where it listens (before its report) and answers there.
  const runtime = dataDirFiles(dataDir).runtime;
  const { url, pid } = await lookUntil(
    async () =>
      existsSync(runtime)
        ? (JSON.parse(readFileSync(runtime, 'utf8')) as { url: string; pid: number })
        : { url: '', pid: 0 },
    (info) => info.pid === child.pid,
    'the daemon ready (daemon.json)',
  );
  const health = await fetch(`${url}/healthz`);
  t.is(health.status, 200);
  // The report was sent right after daemon.json was written: a crash on it would have come by
  // now, and the CLI would find no daemon to stop.
  t.true(isAlive(pid), 'the daemon is still running after its ready report');
  const stopped = await runCli(['daemon', 'stop'], { env: { SVC_DATA_DIR: dataDir } });
  t.is(stopped.code, 0, stopped.stderr);
  t.is(await exited, 0, 'a graceful stop, not a crash');
  t.false(existsSync(dataDirFiles(dataDir).lock), 'no lock left behind');
});
