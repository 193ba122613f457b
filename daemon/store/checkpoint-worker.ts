// The checkpointer's thread: its own connection to the daemon's database moves committed WAL
// pages into the database file every interval (PASSIVE: never waits for, nor blocks, the
// daemon's writer). The copy and its fsync happen here, off the thread that serves requests.
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

export interface CheckpointWorkerData {
  file: string;
  intervalMs: number;
}

/** What the worker posts after each checkpoint: WAL frames in the log and how many are copied. */
export interface CheckpointReport {
  log: number;
  checkpointed: number;
}

const { file, intervalMs } = workerData as CheckpointWorkerData;
const db = new Database(file, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');

function run(): void {
  try {
    const row = checkpoint.get() as { busy: number; log: number; checkpointed: number };
    parentPort?.postMessage({ log: row.log, checkpointed: row.checkpointed } as CheckpointReport);
  } catch (error) {
    // SQLITE_BUSY at the edges of the daemon's own transactions: the next interval retries.
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
  }
}

const timer = setInterval(run, intervalMs);
parentPort?.on('message', (message: 'stop') => {
  if (message !== 'stop') return;
  clearInterval(timer);
  run();
  db.close();
  parentPort?.close();
});
