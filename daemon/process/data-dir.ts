// The data dir holds the database, the secret key, the control token and logs: only its owner
// may read it. The daemon creates it 0700 and every file in it 0600 (a umask of 077, which the
// daemon process sets first in daemon-process.ts, covers what SQLite and the logger create), and
// tightens a data dir made earlier with looser modes. A daemon embedded in another program
// (svc/testing) leaves that program's umask alone (a worker thread may not even set it): its
// data dir is a fresh temp dir made 0700, which keeps the files in it private.
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
/** What svc keeps at the top of a data dir (shared/paths.ts dataDirFiles, cli-state.json). */
const SVC_FILES =
  /^(svc\.db(-wal|-shm|-journal)?|daemon\.json|daemon\.lock|control-token|secret\.key|cli-state\.json)$/;

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

/**
 * The data dir, logs/ and the files svc writes there. Only those: a --data-dir pointed at a
 * directory that holds other things (a project, a home dir) must not have them changed.
 */
function tighten(dataDir: string): string[] {
  const paths = [dataDir];
  for (const entry of readdirSync(dataDir, { withFileTypes: true })) {
    if (entry.isFile() && SVC_FILES.test(entry.name)) paths.push(join(dataDir, entry.name));
    if (entry.isDirectory() && entry.name === 'logs') {
      const logs = join(dataDir, 'logs');
      paths.push(logs);
      for (const log of readdirSync(logs, { withFileTypes: true })) {
        if (log.isFile()) paths.push(join(logs, log.name));
      }
    }
  }
  const changed: string[] = [];
  for (const path of paths) {
    // lstat: a symlink is left alone (chmod would follow it out of the data dir).
    const stat = lstatSync(path);
    if (!stat.isDirectory() && !stat.isFile()) continue;
    const wanted = stat.isDirectory() ? DIR_MODE : FILE_MODE;
    if ((stat.mode & 0o777) !== wanted) {
      chmodSync(path, wanted);
      changed.push(path);
    }
  }
  return changed;
}
