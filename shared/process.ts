// Whether a pid is alive and is an svc daemon: the daemon's lock asks it of a stale lock's
// owner, the CLI of the daemon it starts, stops or reports on.
import { readFileSync } from 'node:fs';

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
 * Whether the pid is a live svc daemon: the daemon's entry point (daemon/process/entry.js, which
 * `svc daemon start` spawns), or `svc daemon start --foreground`, which runs the daemon in its
 * own process. Where /proc is missing (macOS), any live process counts.
 */
export function isSvcDaemon(pid: number): boolean {
  if (!isAlive(pid)) return false;
  const args = procCmdline(pid);
  if (args === undefined) return true;
  return (
    args.some((arg) => /(^|[\\/])daemon[\\/](process[\\/])?entry\.[cm]?[jt]s$/.test(arg)) ||
    isForegroundCli(args)
  );
}

/** `svc daemon start --foreground`, which runs the daemon inside the CLI's own process. */
function isForegroundCli(args: string[]): boolean {
  const bin = args.findIndex((arg) => /(^|[\\/])svc(\.js)?$/.test(arg));
  if (bin === -1) return false;
  const rest = args.slice(bin + 1);
  const daemon = rest.indexOf('daemon');
  return daemon !== -1 && rest[daemon + 1] === 'start' && rest.includes('--foreground');
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
