// Temp dirs for tests that leave nothing behind in the OS's temp dir, however the test ends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Temp dirs made by this test file's process, removed when it exits. */
const madeDirs = new Set<string>();

/**
 * A new temp dir. It is removed when the test file's process exits (each ava test file runs in
 * a process of its own), so a test that does not remove it itself leaves nothing behind.
 */
export function tempDir(prefix = 'svc-unit-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (madeDirs.size === 0) process.once('exit', removeMadeDirs);
  madeDirs.add(dir);
  return dir;
}

function removeMadeDirs(): void {
  for (const dir of madeDirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // A process still writing into it (a daemon being killed): the OS's temp clean-up will do.
    }
  }
}
