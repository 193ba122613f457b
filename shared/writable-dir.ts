// The data dir, created and checked before anything is written there (by `svc daemon start`
// and by the daemon itself), so that one the daemon cannot use is a single line naming the
// path and the cause, not a stack, and the cause is the real one.
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Why a path cannot be written, in words, by errno code. */
const REASONS: Record<string, string> = {
  EROFS: 'it is on a read-only file system',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOSPC: 'no space is left on its file system',
  EDQUOT: 'the disk quota is used up',
  EFBIG: 'a file there is over the size limit (ulimit -f)',
  ENOTDIR: 'part of the path is a file, not a directory',
  ENAMETOOLONG: 'the path is too long',
  ELOOP: 'the path has a symbolic link loop',
};

/**
 * Creates `dir` (mode 0700) where missing and checks that this process may write in it; throws
 * the file system's error otherwise. One level at a time: Node's recursive mkdir answers ENOENT
 * for a directory whose parent it could not create, hiding the cause (EROFS, EACCES).
 */
export function makeWritableDir(dir: string): void {
  const missing: string[] = [];
  for (let at = resolve(dir); !existsSync(at); at = dirname(at)) {
    missing.unshift(at);
    if (dirname(at) === at) break;
  }
  for (const path of missing) {
    try {
      mkdirSync(path, { mode: 0o700 });
    } catch (error) {
      // Made meanwhile by another process (two starts at once): as good as made here.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  accessSync(dir, constants.W_OK);
}

/**
 * One line for a file system error met while preparing the data dir (or opening its log):
 * the path, the cause and what to do. Undefined for anything else (not a file system error).
 */
export function unwritableDataDir(dataDir: string, error: unknown): string | undefined {
  const { code, path } = (error ?? {}) as NodeJS.ErrnoException;
  if (typeof code !== 'string' || !/^E[A-Z]+$/.test(code)) return undefined;
  const reason = REASONS[code] ?? String((error as Error).message).split('\n')[0];
  const where = path && resolve(path) !== resolve(dataDir) ? ` (${path})` : '';
  return (
    `Cannot use the data dir ${dataDir}: ${reason}${where}, ${code}. ` +
    'Give the daemon a writable directory with --data-dir (or SVC_DATA_DIR), or fix this one.'
  );
}
