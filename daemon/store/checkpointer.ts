// WAL checkpoints off the request path. The daemon's connection never checkpoints on commit
// (wal_autocheckpoint = 0); a worker thread with a second connection does it every interval
// (checkpoint-worker.ts). Once every committed page is in the database file, the next write
// starts the WAL over from its beginning, and journal_size_limit trims the file.
//
// Under sustained writes that moment never comes: by the time a passive checkpoint ends, new
// frames are in the log, and it grows without end (measured: 270 MB after 30,000 workflow runs
// in 20 s). So when a report shows the log past MAX_WAL_FRAMES, the daemon's own connection
// checkpoints what is left in RESTART mode (catchUp), and the next write starts the log over.
// The worker has just copied nearly every frame (it runs extra passes once past the bound, each
// copying only what the last one let pass), so that costs the main thread a few milliseconds,
// once per 64 MiB of log. The worker holds its next checkpoint until the restart is done (a
// checkpoint of its own would keep the daemon's from running). A checkpoint only copies pages
// that are already committed (and durable in the WAL), so it cannot lose an acknowledged write.
//
// A worker is a V8 isolate of its own (about 9 MB resident). An idle daemon does not need one:
// once every frame is copied and no write has come for QUIET_MS, the worker runs its last
// checkpoint and exits; the next write the daemon's connection makes starts a new one (the
// daemon's total_changes(), read every interval, says when). Starting one costs about 0.2
// CPU-s, so QUIET_MS is 10 s, not the 3 s it was: a daemon written to every few seconds (a
// test file's, a script's) started a worker after nearly every pause (10-11 times in one
// e2e file's daemon; 1-2 with 10 s), and the worker is still gone before the memory bench reads
// a resting daemon (15 s in, after the trims at 2 and 9 s: memory-trim.ts). A daemon starts
// without one: its first write after start starts it (firstWorkerOnWrite), so a daemon that
// only reads has none.
import { Worker } from 'node:worker_threads';
import { workerScript } from '../platform/worker-script.js';
import type { CheckpointReport, CheckpointWorkerData } from './checkpoint-worker.js';

export const CHECKPOINT_INTERVAL_MS = 250;
/** Frames in the WAL past which the writer's connection restarts it (64 MiB of 4 KiB pages). */
export const MAX_WAL_FRAMES = 16_384;
/** Time without a write, everything checkpointed, after which the worker exits until the next. */
export const QUIET_MS = 10_000;

export interface CheckpointerOptions {
  intervalMs?: number;
  /** Checkpoints the remaining frames on the writer's connection, so the WAL starts over. */
  catchUp?: () => void;
  maxWalFrames?: number;
  /**
   * A count that grows with every write on the daemon's connection (its total_changes()). With
   * it, the worker exits once quiet and starts again on the next write; without, it never exits.
   */
  writes?: () => number;
  quietMs?: number;
  /**
   * With `writes`: start() starts no worker, the first write after it does (the watch). What was
   * written before start() (a new store's migrations) stays in the WAL until then, or until the
   * store closes, which checkpoints it: a daemon that only reads never pays for a worker
   * (about 0.18 CPU-s to start one).
   */
  firstWorkerOnWrite?: boolean;
}

export class Checkpointer {
  private worker: Worker | undefined;
  private exited: Promise<void> = Promise.resolve();
  private last: CheckpointReport | undefined;
  /** Watches the write count while no worker runs (set between start() and stop()). */
  private watch: NodeJS.Timeout | undefined;
  /** The write count when the worker last reported, and since when it has not changed. */
  private writesSeen = -1;
  private quietSince = 0;
  /** A worker told to stop because the daemon is quiet, until it has exited. */
  private retiring: Worker | undefined;
  private starts = 0;

  private readonly intervalMs: number;
  private readonly maxWalFrames: number;
  private readonly quietMs: number;

  constructor(
    private readonly file: string,
    private readonly log: { error(obj: object, msg: string): void },
    private readonly options: CheckpointerOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? CHECKPOINT_INTERVAL_MS;
    this.maxWalFrames = options.maxWalFrames ?? MAX_WAL_FRAMES;
    this.quietMs = options.quietMs ?? QUIET_MS;
  }

  start(): void {
    if (this.watch || this.worker) return;
    const writes = this.options.writes;
    if (writes && this.options.firstWorkerOnWrite) this.writesSeen = writes();
    else this.spawn();
    if (!writes) return;
    this.watch = setInterval(() => {
      if (!this.worker && !this.retiring && writes() !== this.writesSeen) this.spawn();
    }, this.intervalMs);
    this.watch.unref();
  }

  /**
   * Worker threads started so far: one at start() (or at the first write after it, with
   * firstWorkerOnWrite), one more each time writes follow a quiet spell.
   */
  get workersStarted(): number {
    return this.starts;
  }

  /** Whether a worker thread runs now (it exits when the daemon is quiet). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  private spawn(): void {
    this.starts += 1;
    this.writesSeen = this.options.writes?.() ?? 0;
    this.quietSince = performance.now();
    const { script, eval: isEval } = workerScript('checkpoint-worker', import.meta.url);
    const data: CheckpointWorkerData = {
      file: this.file,
      intervalMs: this.intervalMs,
      maxWalFrames: this.maxWalFrames,
    };
    const worker = new Worker(script, { eval: isEval, workerData: data });
    worker.on('message', (report: CheckpointReport) => {
      this.last = report;
      // Just after the worker's checkpoint: the fewest frames left to copy. The worker holds its
      // next checkpoint until told the restart is done, so the two never contend.
      if (report.log >= this.maxWalFrames) {
        try {
          this.options.catchUp?.();
        } catch (error) {
          // A full disk (SQLITE_FULL): the log stays as it is and the next report tries again.
          // Thrown from this listener, it would end the process.
          this.log.error(
            { err: error },
            'wal restart failed; tried again after the next checkpoint',
          );
        } finally {
          worker.postMessage('restarted');
        }
      }
      // Only the running worker's reports count: a retiring one's last report must not mark
      // writes made meanwhile as seen (the watch would not start a worker for them).
      if (worker === this.worker && this.quiet(report)) this.retire(worker);
    });
    worker.on('error', (error) => this.log.error({ err: error }, 'wal checkpointer failed'));
    this.exited = new Promise((resolve) =>
      worker.once('exit', () => {
        // A worker that failed is replaced by the watch on the next write, like a retired one.
        if (this.worker === worker) this.worker = undefined;
        if (this.retiring === worker) this.retiring = undefined;
        resolve();
      }),
    );
    // Its timer must not keep the daemon alive; stop() still waits for its last checkpoint.
    worker.unref();
    this.worker = worker;
  }

  /** True once every frame is copied and no write has come for quietMs (with a write count). */
  private quiet(report: CheckpointReport): boolean {
    const writes = this.options.writes?.();
    if (writes === undefined) return false;
    const now = performance.now();
    if (writes !== this.writesSeen || report.checkpointed < report.log) {
      this.writesSeen = writes;
      this.quietSince = now;
      return false;
    }
    return now - this.quietSince >= this.quietMs;
  }

  /** The worker runs a last checkpoint and exits; the watch starts a new one on the next write. */
  private retire(worker: Worker): void {
    this.worker = undefined;
    this.retiring = worker;
    worker.postMessage('stop');
  }

  /** The last checkpoint's WAL figures (frames in the log, frames copied), if one ran. */
  lastReport(): CheckpointReport | undefined {
    return this.last;
  }

  /** Asks the worker to collect its garbage (MemoryTrimmer). */
  trim(): void {
    this.worker?.postMessage('trim');
  }

  /** Runs a last checkpoint and closes the worker's connection, before the daemon's closes. */
  async stop(): Promise<void> {
    clearInterval(this.watch);
    this.watch = undefined;
    // A retiring worker already runs its last checkpoint: it is waited for like a running one.
    const worker = this.worker ?? this.retiring;
    if (!worker) return;
    // Held again, so the daemon waits for the worker's last checkpoint and close.
    worker.ref();
    if (worker === this.worker) {
      this.worker = undefined;
      worker.postMessage('stop');
    }
    await this.exited;
  }
}
