// The data dir holds the database, the secret key, the control token and logs: only its owner
// may read it. The daemon creates it 0700 and every file in it 0600 (a umask of 077 covers what
// SQLite and the logger create), and tightens a data dir made earlier with looser modes.
import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/** Makes every file and directory this process creates from now on private to its owner. */
export function restrictNewFiles(): void {
  process.umask(0o077);
}

export interface DataDirLog {
  info(obj: object, msg: string): void;
}

/**
 * Creates the data dir (and logs/) private, or tightens an existing one: directories 0700,
 * files 0600. Says in the log which paths it changed.
 */
export function prepareDataDir(dataDir: string, logDir: string, log: DataDirLog): void {
  restrictNewFiles();
  mkdirSync(dataDir, { recursive: true, mode: DIR_MODE });
  mkdirSync(logDir, { recursive: true, mode: DIR_MODE });
  const tightened = tighten(dataDir);
  if (tightened.length > 0) {
    log.info(
      { data_dir: dataDir, paths: tightened },
      'tightened data dir permissions (directories 0700, files 0600)',
    );
  }
}

function tighten(path: string): string[] {
  const changed: string[] = [];
  const stat = statSync(path);
  const wanted = stat.isDirectory() ? DIR_MODE : FILE_MODE;
  if ((stat.mode & 0o777) !== wanted && (stat.isDirectory() || stat.isFile())) {
    chmodSync(path, wanted);
    changed.push(path);
  }
  if (stat.isDirectory()) {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      // Symlinks are left alone: chmod would follow them out of the data dir.
      if (entry.isDirectory() || entry.isFile()) changed.push(...tighten(join(path, entry.name)));
    }
  }
  return changed;
}
