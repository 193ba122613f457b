// One daemon per data dir: an exclusive lock file holding the owner's pid. A lock whose owner
// is gone (a crash, SIGKILL), or whose pid now belongs to a process that is not an svc daemon
// (the pid was reused), is stale and taken over at once.
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { isSvcDaemon } from '../../shared/process.js';

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
