// Where `svc state export FILE` may write. A snapshot replaces its target whole, so a slip of the
// path could destroy what it is meant to save: over <data dir>/secret.key every sealed secret is
// lost (the daemon no longer starts), over the live svc.db the whole sandbox. Any path inside the
// data dir (or the store, wherever it lives) is refused, after resolving symbolic links, and an
// existing file is replaced only when asked (--force).
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { ApiError } from '../domain/errors.js';

/** Links followed before a path is taken as it is (the kernel's own limit is 40). */
const MAX_LINKS = 40;

/**
 * The path `path` names once every link in it is followed, also when it (or its directory) does
 * not exist yet: the deepest part that exists is resolved and the rest appended.
 */
export function realTarget(path: string, links = 0): string {
  try {
    return realpathSync(path);
  } catch {
    // Does not exist, or is a link to something that does not.
  }
  if (links < MAX_LINKS) {
    try {
      return realTarget(resolve(dirname(path), readlinkSync(path)), links + 1);
    } catch {
      // Not a link.
    }
  }
  const parent = dirname(path);
  if (parent === path) return path;
  return join(realTarget(parent, links + 1), basename(path));
}

function inside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** Refuses an export to `file` (absolute) that would land in the data dir or replace a file unasked. */
export function checkExportTarget(
  file: string,
  options: { dataDir: string; databaseFile: string; force: boolean },
): void {
  const target = realTarget(file);
  const protectedPaths = [options.dataDir, realTarget(options.dataDir)];
  const store = realTarget(options.databaseFile);
  const inDataDir = protectedPaths.some((dir) => inside(dir, file) || inside(dir, target));
  const onStore = [store, `${store}-wal`, `${store}-shm`].includes(target);
  if (inDataDir || onStore) {
    throw new ApiError(
      'invalid_parameter',
      `${file} is inside the data dir ${options.dataDir}${target === file ? '' : ` (it resolves to ${target})`}, which holds the live store and the secret key: a snapshot is never written there. Give a path outside it.`,
      { param: 'file' },
    );
  }
  if (!options.force && exists(file)) {
    throw new ApiError(
      'conflict',
      `${file} exists. Give another path, or pass --force (force: true) to replace it.`,
      { param: 'file' },
    );
  }
}

/** Whether anything (a dangling link too) is at `path`. */
export function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
