// One daemon per data dir: an exclusive lock file holding the owner's pid. A lock whose owner
// is gone (a crash, SIGKILL), or whose pid now belongs to a process that is not an svc daemon
// (the pid was reused), is stale and taken over at once.
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';

export class DataDirLockedError extends Error {
  constructor(
    readonly pid: number,
    readonly dataDir: string,
  ) {
    super(
      `The data dir ${dataDir} is in use by another svc daemon (pid ${pid}). Stop it with: svc daemon stop --data-dir ${dataDir}, or use another --data-dir.`,
    );
  }
}

export interface LockLog {
  warn(obj: object, msg: string): void;
}

export function acquireLock(file: string, dataDir: string, log?: LockLog): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => releaseLock(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(file, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isSvcDaemon(owner)) {
        throw new DataDirLockedError(owner, dataDir);
      }
      log?.warn(
        { lock: file, stale_pid: Number.isInteger(owner) && owner > 0 ? owner : null },
        'taking over a stale lock: its process is gone or is not an svc daemon',
      );
      unlinkSync(file);
    }
  }
  throw new Error(`could not lock ${file}`);
}

function releaseLock(file: string): void {
  try {
    if (Number(readFileSync(file, 'utf8').trim()) === process.pid) unlinkSync(file);
  } catch {
    // Already gone: nothing to release.
  }
}

/** Whether the pid exists at all (a zombie, exited but not reaped, counts). */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the process runs (a zombie, killed but not yet reaped by its parent, does not: it
 * holds its pid until then, which after a SIGKILL can be long in a container without an init).
 */
export function isAlive(pid: number): boolean {
  if (!pidExists(pid)) return false;
  const state = procState(pid);
  return state === undefined || !/^[ZX]/.test(state);
}

/**
 * Whether the pid is a live svc daemon: the background entry point (daemon/entry.js) or
 * `svc daemon start --foreground`. Where /proc is missing (macOS), any live process counts.
 */
export function isSvcDaemon(pid: number): boolean {
  if (!isAlive(pid)) return false;
  const args = procCmdline(pid);
  if (args === undefined) return true;
  const entry = args.some((arg) => /(^|[\\/])daemon[\\/]entry\.[cm]?[jt]s$/.test(arg));
  const cli =
    args.some((arg) => /(^|[\\/])svc(\.[cm]?[jt]s)?$/.test(arg)) && args.includes('daemon');
  return entry || cli;
}

/** The state letter from /proc/<pid>/stat (R, S, D, Z...), undefined without /proc. */
function procState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may itself contain ") ".
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return undefined;
  }
}

function procCmdline(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return undefined;
  }
}
