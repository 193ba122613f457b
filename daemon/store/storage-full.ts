// A write the data dir's disk cannot take: the file system is full (ENOSPC), a quota is used up
// (EDQUOT), or a file would pass the process's size limit (EFBIG, `ulimit -f`). SQLite answers
// SQLITE_FULL when a write is cut short, and SQLITE_IOERR_WRITE or SQLITE_IOERR_SHMSIZE when the
// system refuses it outright (it keeps ENOSPC itself only for the short write). Its transaction
// is rolled back and nothing already committed is touched: the daemon answers 507 and carries on.
import { ApiError } from '../domain/errors.js';

const STORAGE_CODES = new Set([
  'SQLITE_FULL',
  'SQLITE_IOERR_WRITE',
  'SQLITE_IOERR_SHMSIZE',
  'ENOSPC',
  'EDQUOT',
  'EFBIG',
]);

/** Whether `error` is a write the data dir's storage refused (see above). */
export function isStorageFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && STORAGE_CODES.has(code);
}

/** The answer to a request whose change could not be stored (507 insufficient_storage). */
export function insufficientStorage(dataDir = 'the data dir'): ApiError {
  return new ApiError(
    'insufficient_storage',
    `The change was not stored: the disk of the data dir ${dataDir} is full (or over a quota or ` +
      'file size limit). Free space there (logs/daemon.log in it may be truncated), then retry; ' +
      'reads keep working meanwhile.',
  );
}
