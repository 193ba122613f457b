// WAL checkpoints off the request path. The daemon's connection never checkpoints on commit
// (wal_autocheckpoint = 0); a worker thread with a second connection does it every interval
// (checkpoint-worker.ts). Once every committed page is in the database file, the next write
// starts the WAL over from its beginning, and journal_size_limit trims the file: the WAL stays
// bounded however long the load lasts. A checkpoint only copies pages that are already
// committed (and durable in the WAL), so it cannot lose an acknowledged write.
import { Worker } from 'node:worker_threads';
import { workerScript } from '../worker-script.js';
import type { CheckpointReport, CheckpointWorkerData } from './checkpoint-worker.js';

export const CHECKPOINT_INTERVAL_MS = 250;

export class Checkpointer {
  private worker: Worker | undefined;
  private exited: Promise<void> = Promise.resolve();
  private last: CheckpointReport | undefined;

  constructor(
    private readonly file: string,
    private readonly log: { error(obj: object, msg: string): void },
    private readonly intervalMs = CHECKPOINT_INTERVAL_MS,
  ) {}

  start(): void {
    if (this.worker) return;
    const { script, eval: isEval } = workerScript('checkpoint-worker', import.meta.url);
    const data: CheckpointWorkerData = { file: this.file, intervalMs: this.intervalMs };
    const worker = new Worker(script, { eval: isEval, workerData: data });
    worker.on('message', (report: CheckpointReport) => (this.last = report));
    worker.on('error', (error) => this.log.error({ err: error }, 'wal checkpointer failed'));
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    // Its timer must not keep the daemon alive; stop() still waits for its last checkpoint.
    worker.unref();
    this.worker = worker;
  }

  /** The last checkpoint's WAL figures (frames in the log, frames copied), if one ran. */
  lastReport(): CheckpointReport | undefined {
    return this.last;
  }

  /** Runs a last checkpoint and closes the worker's connection, before the daemon's closes. */
  async stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    // Held again, so the daemon waits for the worker's last checkpoint and close.
    worker.ref();
    worker.postMessage('stop');
    await this.exited;
  }
}
