// The data dirs of sandboxes: one temp dir each, with an `owner` file naming the process that
// made it. stop() removes its dir; a dir whose owner process is gone (a test run that crashed)
// is removed by the next createSandbox, so nothing piles up in the temp folder.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PREFIX = 'svc-sandbox-';
const OWNER_FILE = 'owner';

export function makeSandboxDir(): string {
  const dir = mkdtempSync(join(tmpdir(), PREFIX));
  writeFileSync(join(dir, OWNER_FILE), String(process.pid));
  return dir;
}

export function removeSandboxDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Removes the sandbox dirs whose owner process has ended; answers how many. */
export function reapStaleSandboxDirs(root = tmpdir()): number {
  let reaped = 0;
  for (const name of safeList(root)) {
    if (!name.startsWith(PREFIX)) continue;
    const dir = join(root, name);
    const owner = ownerOf(dir);
    // A dir being created has no owner file yet for an instant: left alone.
    if (owner === undefined || alive(owner)) continue;
    removeSandboxDir(dir);
    reaped += 1;
  }
  return reaped;
}

function safeList(root: string): string[] {
  try {
    return readdirSync(root);
  } catch {
    return [];
  }
}

function ownerOf(dir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dir, OWNER_FILE), 'utf8'));
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, owned by someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
