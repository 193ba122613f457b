// The checkpointer's thread: its own connection to the daemon's database moves committed WAL
// pages into the database file every interval (PASSIVE: never waits for, nor blocks, the
// daemon's writer). The copy and its fsync happen here, off the thread that serves requests.
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { heapReleaser } from '../platform/memory-trim.js';

const releaseHeap = heapReleaser();

export interface CheckpointWorkerData {
  file: string;
  intervalMs: number;
  /** Frames past which the daemon's connection restarts the log (see checkpointer.ts). */
  maxWalFrames: number;
}

/** What the worker posts after each checkpoint: WAL frames in the log and how many are copied. */
export interface CheckpointReport {
  log: number;
  checkpointed: number;
}

const { file, intervalMs, maxWalFrames } = workerData as CheckpointWorkerData;
const db = new Database(file, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');

/**
 * Passes run back to back once the log is past its bound, before the daemon's connection is
 * asked to restart it: each copies only the frames written during the one before, so what is
 * left for the daemon's thread falls from an interval's writes to a few milliseconds' worth.
 */
const EXTRA_PASSES = 2;

/** Set while the daemon's connection restarts the log: a checkpoint here would hold it off. */
let waitingForRestart = false;

function run(): void {
  if (waitingForRestart) return;
  try {
    let row = checkpoint.get() as { busy: number; log: number; checkpointed: number };
    for (let pass = 0; pass < EXTRA_PASSES && row.log >= maxWalFrames; pass += 1)
      row = checkpoint.get() as typeof row;
    waitingForRestart = row.log >= maxWalFrames;
    parentPort?.postMessage({ log: row.log, checkpointed: row.checkpointed } as CheckpointReport);
  } catch (error) {
    // SQLITE_BUSY at the edges of the daemon's own transactions: the next interval retries.
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
  }
}

const timer = setInterval(run, intervalMs);
parentPort?.on('message', (message: 'stop' | 'restarted' | 'trim') => {
  if (message === 'restarted') waitingForRestart = false;
  // The daemon is quiet after a burst: give the heap grown under load back (platform/memory-trim.ts).
  if (message === 'trim') releaseHeap?.();
  if (message !== 'stop') return;
  clearInterval(timer);
  waitingForRestart = false;
  run();
  db.close();
  parentPort?.close();
});
