// Starting and stopping the daemon process. Start spawns dist/daemon/entry.js detached, waits
// for its readiness message and for /healthz, and reports why it failed otherwise; --foreground
// spawns it attached instead and waits for it to end; stop asks over the control channel
// (SIGTERM if that fails) and waits for the exit.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, openSync, closeSync, readFileSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { join } from 'node:path';
import ky from 'ky';
import {
  daemonEnv,
  FOREGROUND_ARG,
  type DaemonFlags,
  type DaemonMessage,
  type ForegroundRequest,
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
 * exit code. A supervisor may signal the whole process group (docker stop, systemd, CI,
 * `timeout`), so the daemon may get the signal itself as well as through the CLI: the CLI passes
 * its first two SIGINT/SIGTERM on as stop requests over IPC, which never count towards forcing
 * the exit, and a third as a forced exit (daemon/stop-signals.ts). If the CLI dies, the daemon
 * stops too (entry.ts watches the IPC channel). A signal that came while the CLI loaded
 * (bin/svc.js keeps it) means the daemon is not started at all.
 */
export async function runInForeground(ctx: CliContext, flags: DaemonFlags): Promise<number> {
  if (earlySignal() !== undefined) {
    process.stderr.write(`svc: ${earlySignal()} before the daemon started; not starting it.\n`);
    return 0;
  }
  const child = spawn(process.execPath, [DAEMON_ENTRY, FOREGROUND_ARG], {
    env: daemonEnv({ ...flags, dataDir: ctx.dataDir }, process.env),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let ready = false;
  child.on('message', (message: DaemonMessage) => {
    if (message.type === 'ready') ready = true;
    if (message.type === 'error') process.stderr.write(`svc: ${message.message}\n`);
  });
  let signals = 0;
  const pass = (signal: NodeJS.Signals) => {
    signals += 1;
    const request: ForegroundRequest =
      signals >= FORCING_SIGNALS
        ? { type: 'force', reason: `${signal} to the foreground CLI ${signals} times` }
        : { type: 'stop', signal };
    if (child.connected) child.send(request, () => undefined);
    else child.kill(request.type === 'force' ? 'SIGKILL' : 'SIGTERM');
  };
  // Kept until the CLI exits: a supervisor's late signal must not kill it after the daemon's exit.
  process.on('SIGINT', pass);
  process.on('SIGTERM', pass);
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  if (code !== null) return code;
  // Killed by a stop signal while Node itself was booting, before the daemon's code could answer
  // it (a group signal right after the start): nothing had started, and stopping was asked.
  if (!ready && (signal === 'SIGTERM' || signal === 'SIGINT')) {
    process.stderr.write(`svc: the daemon was stopped by ${signal} before it started.\n`);
    return 0;
  }
  return 128 + (signal ? (osConstants.signals[signal] ?? 0) : 0);
}

/** The third SIGINT/SIGTERM of the foreground CLI forces the daemon's exit. */
const FORCING_SIGNALS = 3;

/** The signal bin/svc.js saw while the CLI was loading, if any. */
function earlySignal(): string | undefined {
  return (globalThis as { svcEarlySignal?: string }).svcEarlySignal;
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
