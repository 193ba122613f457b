// What the e2e helpers started, ended with the test file's process: a file that ava times out
// (it ends the file's process with SIGTERM), an interrupt, or an uncaught error never reaches
// its test.after.always(), and would leave its daemons running. `svc daemon start` detaches
// the daemon, so it is found through the data dir (daemon.json names whichever daemon runs
// there now, after restarts too) and killed; CLI processes are children, killed directly.
import type { ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { dataDirFiles } from '../../shared/paths.js';
import { isSvcDaemon } from '../../shared/process.js';

/** Data dirs a daemon may run on -> whether the helpers made the dir (then it is removed too). */
const dataDirs = new Map<string, { remove: boolean }>();
const children = new Set<ChildProcess>();

/** A data dir a daemon may run on; `remove` when the helpers made it (a temp dir of theirs). */
export function reapDataDir(dataDir: string, options: { remove: boolean }): void {
  install();
  if (!dataDirs.get(dataDir)?.remove) dataDirs.set(dataDir, options);
}

/** The daemon of this data dir was stopped and the dir removed: nothing left to do for it. */
export function forgetDataDir(dataDir: string): void {
  dataDirs.delete(dataDir);
}

/** A child process (a CLI call) to kill if it still runs when the file's process ends. */
export function reapChild(child: ChildProcess): void {
  install();
  children.add(child);
  child.once('exit', () => children.delete(child));
}

/** Synchronous: it runs in the process's 'exit' event too. */
function reap(): void {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
  for (const [dataDir, { remove }] of dataDirs) {
    const pid = runtimePid(dataDir);
    // A stale daemon.json (a daemon the test killed) may name a pid another program uses now.
    if (pid !== undefined && isSvcDaemon(pid)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
    if (remove) rmSync(dataDir, { recursive: true, force: true });
  }
  dataDirs.clear();
}

function runtimePid(dataDir: string): number | undefined {
  try {
    const { pid } = JSON.parse(readFileSync(dataDirFiles(dataDir).runtime, 'utf8')) as {
      pid?: unknown;
    };
    return typeof pid === 'number' ? pid : undefined;
  } catch {
    return undefined;
  }
}

let installed = false;

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', reap);
  // A listener replaces the signal's default action: reap, then let the signal end the process
  // as it would have (the listener is gone by then).
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.once(signal, () => {
      reap();
      process.kill(process.pid, signal);
    });
  }
}
