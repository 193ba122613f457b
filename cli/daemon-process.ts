// Starting and stopping the daemon process. Start spawns daemon/process/entry.js (from the bundle
// when it is current: shared/bundle-entry.ts) detached, waits for its readiness message and for /healthz, and reports why it failed otherwise;
// --foreground runs the daemon inside this process instead, loaded by path like the spawned
// entry (the CLI imports only its types), until it stops; stop asks over the control channel
// (SIGTERM if that fails) and waits for the exit.
import { takeEarlySignals } from './early-signals.js';
import { spawn } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import ky from 'ky';
import {
  daemonEnv,
  DAEMON_NODE_FLAGS,
  type DaemonFlags,
  type DaemonMessage,
} from '../shared/daemon-launch.js';
import { entryFile } from '../shared/bundle-entry.js';
import { PACKAGE_ROOT } from '../shared/package-info.js';
import { makeWritableDir, unwritableDataDir } from '../shared/writable-dir.js';
import { isAlive, isSvcDaemon, pidExists } from '../shared/process.js';
import { dataDirFiles, type RuntimeInfo } from '../shared/paths.js';
import type { CliContext } from './context.js';
import { CliError } from './errors.js';
import type * as DaemonProcess from '../daemon/process/daemon-process.js';
import type * as StopSignalsDefinition from '../daemon/process/stop-signals.js';

type DaemonProcessModule = typeof DaemonProcess;
type StopSignalsModule = typeof StopSignalsDefinition;

// Only a guard against a start that hangs: a start takes about a second here, but on a loaded
// 2-core machine (load 50) a start on PostgreSQL took 24-35 s. A start that is given up is
// stopped, so that a failed `svc daemon start` leaves no daemon behind.
const START_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 30_000;
const REAP_GRACE_MS = 2_000;
// The bundled daemon when the bundle is current, else the compiled files (bundle-entry.ts).
const DIST = join(PACKAGE_ROOT, 'dist');

export interface Started {
  url: string;
  pid: number;
  environment: string;
  /** The data dir's daemon was running already (and is what was asked for): nothing started. */
  alreadyRunning: boolean;
}

/**
 * Starts the data dir's daemon, or answers the one that runs (a script may start it twice) when
 * it is what the flags ask for; one that runs in another environment or on another port given
 * with --port is an error that says how to switch (svc daemon restart).
 */
export async function startInBackground(ctx: CliContext, flags: DaemonFlags): Promise<Started> {
  const existing = ctx.runtime();
  if (existing && isSvcDaemon(existing.pid)) {
    const other = differsFrom(existing, flags);
    if (other !== undefined) {
      throw new CliError(
        `An svc daemon is already running for ${ctx.dataDir} at ${existing.url} (pid ${existing.pid}, ${existing.environment}), not ${other}. Switch with: svc daemon restart${other.startsWith('port') ? ` --port ${flags.port}` : ` --env ${flags.env}`}`,
        1,
        'daemon_already_running',
      );
    }
    return {
      url: existing.url,
      pid: existing.pid,
      environment: existing.environment,
      alreadyRunning: true,
    };
  }
  const message = await launchDaemon(ctx.dataDir, flags, process.env);
  const runtime = ctx.runtime();
  return {
    url: message.url,
    pid: message.pid,
    environment: runtime?.environment ?? 'sandbox',
    alreadyRunning: false,
  };
}

/**
 * Spawns the daemon process of a data dir, detached, with the flags as SVC_* variables over
 * `baseEnv`; resolves once it said it is ready and answers /healthz, with its URL and pid. What
 * `svc daemon start` does after its checks; the e2e helpers (test/helpers/daemon.ts) call it
 * too, which saves a CLI process per test daemon.
 */
export async function launchDaemon(
  dataDir: string,
  flags: DaemonFlags,
  baseEnv: NodeJS.ProcessEnv,
): Promise<{ url: string; pid: number }> {
  const files = dataDirFiles(dataDir);
  const stderrFd = openDaemonStderr(dataDir, files);
  const child = spawn(process.execPath, [...DAEMON_NODE_FLAGS, entryFile(DIST, 'daemon/entry')], {
    detached: true,
    env: daemonEnv({ ...flags, dataDir }, baseEnv),
    stdio: ['ignore', 'ignore', stderrFd, 'ipc'],
  });
  closeSync(stderrFd);

  const message = await new Promise<
    | Extract<DaemonMessage, { type: 'ready' | 'error' }>
    | { type: 'error'; message: string; timedOut: true }
  >((resolve) => {
    const timer = setTimeout(
      () =>
        resolve({
          timedOut: true,
          type: 'error',
          message: `The daemon did not become ready within ${START_TIMEOUT_MS / 1000} s. See: svc daemon logs`,
        }),
      START_TIMEOUT_MS,
    );
    child.on('message', (received: DaemonMessage) => {
      if (received.type === 'stopped') return;
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
  });
  child.removeAllListeners();
  if (child.connected) child.disconnect();
  child.unref();
  if (message.type === 'error') {
    // Still starting after the bound: stopped as a signal stops it.
    if ('timedOut' in message) child.kill('SIGTERM');
    throw new CliError(message.message, 1, 'daemon_start_failed');
  }

  await waitForHealth(message.url);
  return message;
}

/** What of the flags' --env and --port the running daemon is not ("port 8000"), if any. */
function differsFrom(running: RuntimeInfo, flags: DaemonFlags): string | undefined {
  if (flags.env !== undefined && flags.env !== running.environment) return `${flags.env}`;
  const port = flags.port === undefined ? undefined : Number(flags.port);
  if (port !== undefined && port !== 0 && port !== running.port) return `port ${port}`;
  return undefined;
}

/**
 * Creates the data dir and logs/ and opens the file that takes the daemon's stderr. A data dir
 * that cannot be written is one line naming the path and the cause (shared/writable-dir.ts).
 */
function openDaemonStderr(dataDir: string, files: ReturnType<typeof dataDirFiles>): number {
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
 * Runs the daemon attached to this terminal (its logs on stdout) inside this process, until it
 * stops; answers its exit code. One process: the daemon's memory and nothing more waiting beside
 * it, and a signal sent to the group (Ctrl-C, docker stop, systemd, `timeout`) reaches it once.
 * The daemon's stop signals are installed before the early ones held since bin/svc.js are let go,
 * so no signal meets the default action: once or twice is a graceful stop, a third forces it
 * (daemon/process/stop-signals.ts); one that came while the CLI was loading is a clean stop
 * before the daemon starts (exit 0).
 */
export async function runInForeground(ctx: CliContext, flags: DaemonFlags): Promise<number> {
  const { StopSignals } = (await import(
    moduleUrl(entryFile(DIST, 'daemon/stop-signals'))
  )) as StopSignalsModule;
  const signals = new StopSignals().install();
  if (takeEarlySignals().length > 0) {
    signals.uninstall();
    return 0;
  }
  Object.assign(process.env, daemonEnv({ ...flags, dataDir: ctx.dataDir }, {}));
  exposeGc();
  const { runDaemonProcess } = (await import(
    moduleUrl(entryFile(DIST, 'daemon/daemon-process'))
  )) as DaemonProcessModule;
  return runDaemonProcess(signals, { foreground: true });
}

/**
 * What DAEMON_NODE_FLAGS gives a spawned daemon (--expose-gc, for memory-trim.ts), given to this
 * process at run time: V8 takes the flag now, and a new context hands out the gc function.
 */
function exposeGc(): void {
  setFlagsFromString('--expose-gc');
  globalThis.gc ??= runInNewContext('gc') as typeof globalThis.gc;
}

const moduleUrl = (file: string) => pathToFileURL(file).href;

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
  // --port/--host/SVC_* naming another daemon: refused before anything is stopped (it would be
  // this data dir's daemon, not the one they name).
  if (runtime) ctx.ownDaemonUrl();
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
