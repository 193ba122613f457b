// Starting and stopping the daemon process. Start spawns dist/daemon/entry.js detached, waits
// for its readiness message and for /healthz, and reports why it failed otherwise; --foreground
// spawns it attached instead and waits for it to end; stop asks over the control channel
// (SIGTERM if that fails) and waits for the exit.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, openSync, closeSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ky from 'ky';
import {
  daemonEnv,
  FOREGROUND_ARG,
  type DaemonFlags,
  type DaemonMessage,
} from '../shared/daemon-launch.js';
import { PACKAGE_ROOT } from '../shared/package-info.js';
import { isAlive, isSvcDaemon, pidExists } from '../shared/process.js';
import type { CliContext } from './context.js';
import { CliError } from './errors.js';

const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 30_000;
const REAP_GRACE_MS = 2_000;
const DAEMON_ENTRY = join(PACKAGE_ROOT, 'dist', 'daemon', 'entry.js');

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
  mkdirSync(files.logDir, { recursive: true, mode: 0o700 });
  const stderrFd = openSync(files.stderr, 'a', 0o600);
  const child = spawn(process.execPath, [DAEMON_ENTRY], {
    detached: true,
    env: daemonEnv({ ...flags, dataDir: ctx.dataDir }, process.env),
    stdio: ['ignore', 'ignore', stderrFd, 'ipc'],
  });
  closeSync(stderrFd);

  const message = await new Promise<DaemonMessage>((resolve) => {
    const timer = setTimeout(
      () =>
        resolve({
          type: 'error',
          message: `The daemon did not become ready within ${START_TIMEOUT_MS / 1000} s. See: svc daemon logs`,
        }),
      START_TIMEOUT_MS,
    );
    child.once('message', (received) => {
      clearTimeout(timer);
      resolve(received as DaemonMessage);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({
        type: 'error',
        message:
          `The daemon exited during start-up (code ${code}). ${lastLines(files.stderr)}`.trim(),
      });
    });
  });
  child.removeAllListeners();
  if (child.connected) child.disconnect();
  child.unref();
  if (message.type === 'error') throw new CliError(message.message, 1, 'daemon_start_failed');

  await waitForHealth(message.url);
  const runtime = ctx.runtime();
  return { url: message.url, pid: message.pid, environment: runtime?.environment ?? 'sandbox' };
}

/**
 * Runs the daemon attached to this terminal (its logs on stdout) until it stops; answers its
 * exit code. A SIGINT or SIGTERM of the CLI becomes a SIGTERM of the daemon (a graceful stop;
 * Ctrl-C also reaches the daemon from the terminal, and stopping twice is harmless); if the CLI
 * dies, the daemon stops too (entry.ts watches the IPC channel).
 */
export async function runInForeground(ctx: CliContext, flags: DaemonFlags): Promise<number> {
  const child = spawn(process.execPath, [DAEMON_ENTRY, FOREGROUND_ARG], {
    env: daemonEnv({ ...flags, dataDir: ctx.dataDir }, process.env),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child.on('message', (message: DaemonMessage) => {
    if (message.type === 'error') process.stderr.write(`svc: ${message.message}\n`);
  });
  const stop = () => child.kill('SIGTERM');
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    const [code] = (await once(child, 'exit')) as [number | null];
    return code ?? 1;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
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
