// Starting and stopping the daemon process. Start spawns dist/daemon/entry.js detached, waits
// for its readiness message and for /healthz, and reports why it failed otherwise; --foreground
// spawns it attached instead and waits for it to end; stop asks over the control channel
// (SIGTERM if that fails) and waits for the exit.
import { takeEarlySignals } from './early-signals.js';
import { foregroundExit } from './foreground-exit.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ky from 'ky';
import {
  daemonEnv,
  DAEMON_NODE_FLAGS,
  FOREGROUND_ARG,
  type DaemonFlags,
  type DaemonMessage,
} from '../shared/daemon-launch.js';
import { PACKAGE_ROOT } from '../shared/package-info.js';
import { makeWritableDir, unwritableDataDir } from '../shared/writable-dir.js';
import { isAlive, isSvcDaemon, pidExists } from '../shared/process.js';
import type { CliContext } from './context.js';
import { CliError } from './errors.js';

const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 30_000;
const REAP_GRACE_MS = 2_000;
const DAEMON_ENTRY = join(PACKAGE_ROOT, 'dist', 'daemon', 'process', 'entry.js');

export interface Started {
  url: string;
  pid: number;
  environment: string;
}

export async function startInBackground(ctx: CliContext, flags: DaemonFlags): Promise<Started> {
  const existing = ctx.runtime();
  if (existing && isSvcDaemon(existing.pid)) {
    throw new CliError(
      `An svc daemon is already running for ${ctx.dataDir} at ${existing.url} (pid ${existing.pid}). Stop it with: svc daemon stop`,
      1,
      'daemon_already_running',
    );
  }
  const files = ctx.files;
  const stderrFd = openDaemonStderr(ctx.dataDir, files);
  const child = spawn(process.execPath, [...DAEMON_NODE_FLAGS, DAEMON_ENTRY], {
    detached: true,
    env: daemonEnv({ ...flags, dataDir: ctx.dataDir }, process.env),
    stdio: ['ignore', 'ignore', stderrFd, 'ipc'],
  });
  closeSync(stderrFd);

  const message = await new Promise<Extract<DaemonMessage, { type: 'ready' | 'error' }>>(
    (resolve) => {
      const timer = setTimeout(
        () =>
          resolve({
            type: 'error',
            message: `The daemon did not become ready within ${START_TIMEOUT_MS / 1000} s. See: svc daemon logs`,
          }),
        START_TIMEOUT_MS,
      );
      child.on('message', (received: DaemonMessage) => {
        if (received.type === 'signals' || received.type === 'stopped') return;
        clearTimeout(timer);
        resolve(received);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        resolve({
          type: 'error',
          message:
            `The daemon exited during start-up (code ${code}). ${lastLines(files.stderr)}`.trim(),
        });
      });
    },
  );
  child.removeAllListeners();
  if (child.connected) child.disconnect();
  child.unref();
  if (message.type === 'error') throw new CliError(message.message, 1, 'daemon_start_failed');

  await waitForHealth(message.url);
  const runtime = ctx.runtime();
  return { url: message.url, pid: message.pid, environment: runtime?.environment ?? 'sandbox' };
}

/**
 * Creates the data dir and logs/ and opens the file that takes the daemon's stderr. A data dir
 * that cannot be written is one line naming the path and the cause (shared/writable-dir.ts).
 */
function openDaemonStderr(dataDir: string, files: CliContext['files']): number {
  try {
    makeWritableDir(dataDir);
    makeWritableDir(files.logDir);
    return openSync(files.stderr, 'a', 0o600);
  } catch (error) {
    const message = unwritableDataDir(dataDir, error);
    if (message === undefined) throw error;
    throw new CliError(message, 1, 'daemon_start_failed');
  }
}

/**
 * Runs the daemon attached to this terminal (its logs on stdout) until it stops; answers its
 * exit code. The daemon runs in a process group of its own, so a signal sent to this CLI's
 * group (Ctrl-C, docker stop, systemd, `timeout`) reaches it once, through this CLI, which
 * passes each SIGINT or SIGTERM on as a SIGTERM: once or twice is a graceful stop, a third
 * forces it (daemon/process/stop-signals.ts); one that lands while the daemon is being forked ends it
 * before it runs, a clean stop too (foreground-exit.ts). If the CLI dies, the daemon stops too
 * (entry.ts watches the IPC channel).
 */
export async function runInForeground(ctx: CliContext, flags: DaemonFlags): Promise<number> {
  // This CLI's own handlers go in before the held ones come out: with no listener at all for a
  // moment, Node would stop watching the signal and drop one that is on its way.
  // eslint-disable-next-line prefer-const -- assigned once spawned, read by the handler before
  let child: ChildProcess | undefined;
  let received = 0;
  const stop = () => {
    received += 1;
    if (child) forward(child);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // Stopped before the daemon was started: nothing to stop, a clean exit.
  if (takeEarlySignals().length > 0 || received > 0) return 0;
  child = spawn(process.execPath, [...DAEMON_NODE_FLAGS, DAEMON_ENTRY, FOREGROUND_ARG], {
    env: daemonEnv({ ...flags, dataDir: ctx.dataDir }, process.env),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    detached: true,
  });
  // A signal that comes before the daemon handles signals waits for it (until then the
  // default action would kill it, uncleanly). The first signal starts the graceful stop; a
  // second is only acknowledged (with the group's own copy, supervisors often send two); a
  // third is passed on twice, which forces the daemon out.
  let handlesSignals = false;
  let forwarded = 0;
  let stoppedCode: number | undefined;
  const forward = (target: ChildProcess) => {
    if (!handlesSignals) return;
    for (; forwarded < received; forwarded += 1) {
      if (forwarded === 0 || forwarded >= 2) target.kill('SIGTERM');
      if (forwarded === 1) process.stderr.write('svc: stopping; a third signal forces it\n');
    }
  };
  const daemon = child;
  daemon.on('message', (message: DaemonMessage) => {
    if (message.type === 'error') process.stderr.write(`svc: ${message.message}\n`);
    if (message.type === 'stopped') stoppedCode = message.code;
    if (message.type !== 'signals') return;
    handlesSignals = true;
    forward(daemon);
  });
  // The handlers stay once the daemon has exited: a supervisor's late second signal must not
  // kill this CLI on its way out and turn the daemon's exit code into a signal.
  const [code, signal] = (await once(daemon, 'exit')) as [number | null, NodeJS.Signals | null];
  const exit = foregroundExit({
    code,
    signal,
    stoppedCode,
    handlesSignals,
    signalsReceived: received,
  });
  if (exit.message) process.stderr.write(`svc: ${exit.message}\n`);
  return exit.code;
}

async function waitForHealth(url: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    try {
      await ky.get(`${url}/healthz`, { timeout: 2000, retry: 0 });
      return;
    } catch (error) {
      if (Date.now() > deadline) {
        throw new CliError(
          `The daemon started but ${url}/healthz does not answer: ${String(error)}`,
          1,
          'daemon_start_failed',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

export async function stopDaemon(ctx: CliContext): Promise<{ wasRunning: boolean; pid?: number }> {
  const runtime = ctx.runtime();
  const pid = runtime?.pid ?? lockOwner(ctx.files.lock);
  if (pid === undefined || !isSvcDaemon(pid)) return { wasRunning: false };
  try {
    await (await ctx.control()).daemon.shutdown.mutate();
  } catch {
    process.kill(pid, 'SIGTERM');
  }
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (isAlive(pid)) {
    if (Date.now() > deadline) {
      throw new CliError(
        `The daemon (pid ${pid}) did not stop within ${STOP_TIMEOUT_MS / 1000} s. Check: svc daemon logs`,
        1,
        'daemon_stop_failed',
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // Exited: give its parent a moment to reap it, so that the pid is gone when stop returns.
  const reaped = Date.now() + REAP_GRACE_MS;
  while (pidExists(pid) && Date.now() < reaped) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { wasRunning: true, pid };
}

function lockOwner(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function lastLines(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-5).join('\n');
  } catch {
    return '';
  }
}
