// Gives memory back once a burst of work is over. Under load V8 grows each thread's heap (the
// main thread's and the outbound and checkpoint workers'), and keeps it until its own memory
// reducer runs: measured after 30,000 workflow runs, the daemon sat at 350 MB for 30-45 s, or
// longer, then fell to about 160 MB. A sandbox left running on a laptop between test runs
// should not hold that. So when the main thread, busy before, has been quiet for a few
// seconds, it runs a full garbage collection and asks the worker threads to do the same. It does
// so twice: 2 s into the quiet, which gives the old generation back, and 9 s in, because V8
// shrinks a young generation grown under load (32 MB on the main thread, grown while the daemon
// loads its modules) only in a collection that finds allocation low since the one before, and
// that one over 5 s ago. Measured on the daemon idle after start: 138 MB after the first, about
// 100 MB after the second.
//
// Each collection is V8's last-resort one: from Node 22 on, a plain gc() empties the heap but
// keeps its freed pages committed (measured after 30,000 runs on Node 24: V8 heap 32 MB used of
// 177 MB held, RSS 361 MB, where Node 20 had given them back); the last-resort flavour, the one
// V8 runs under memory pressure, also releases those pages.
//
// A burst that left the process about as large as the last trims left it has nothing to give
// back, and a collection costs 0.1 CPU-s or more: a daemon that answers a request now and then (a
// developer's script, a test file's CLI calls a second apart) ran two after nearly every one,
// 7-9 a test daemon, up to 1 CPU-s of its life. So after the first burst (the start-up), a
// burst's trims run only once the resident size has grown TRIM_GROWTH_BYTES past what it was
// after the last collection (the worker threads' heaps count: they live in the same process).
//
// Busy and quiet are the event loop's utilisation over each check (no per-request cost). It
// needs --expose-gc, which the CLI gives the daemon process (DAEMON_NODE_FLAGS); without it
// (the daemon started by other means, the tests' in-process apps) it does nothing.
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

export const TRIM_CHECK_MS = 1_000;

/**
 * A full collection that gives the freed heap pages back to the system, or undefined without
 * --expose-gc. The main thread and the worker threads each run it on their own heap.
 */
export function heapReleaser(gc = globalThis.gc): (() => void) | undefined {
  if (!gc) return undefined;
  return () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
/** Utilisation over a check at or above which the daemon counts as busy. */
const BUSY = 0.05;
/** Below this it counts as quiet. */
const QUIET = 0.02;
/** Quiet checks in a row after which each trim runs, once per burst. */
const TRIM_AFTER_QUIET_CHECKS = [2, 9];
/**
 * Growth of the resident size since the last collection below which a burst is not trimmed:
 * well above what a few requests leave (a few MB), well below what a load leaves (30,000 runs:
 * 350 MB against 100 MB idle).
 */
export const TRIM_GROWTH_BYTES = 64 * 1024 * 1024;

/** A worker thread that can collect its garbage when asked. */
export interface Trimmable {
  trim(): void;
}

export class MemoryTrimmer {
  private timer: NodeJS.Timeout | undefined;
  private last: EventLoopUtilization | undefined;
  /** Trims run since the daemon was last busy (the start-up counts as busy). */
  private trims = 0;
  private quietChecks = 0;
  /** The resident size after the last collection (none yet: the start-up is trimmed). */
  private floor: number | undefined;

  constructor(
    private readonly workers: readonly Trimmable[],
    private readonly collect: (() => void) | undefined = heapReleaser(),
    private readonly residentBytes: () => number = () => process.memoryUsage.rss(),
  ) {}

  start(): void {
    if (!this.collect || this.timer) return;
    this.last = performance.eventLoopUtilization();
    this.timer = setInterval(() => this.check(), TRIM_CHECK_MS);
    this.timer.unref();
  }

  /** Whether checks are scheduled (not without a collector). */
  get running(): boolean {
    return this.timer !== undefined;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One check: the utilisation since the last one decides. Public for the tests. */
  check(utilization = this.utilizationSinceLast()): boolean {
    if (utilization >= BUSY) {
      this.trims = 0;
      this.quietChecks = 0;
      return false;
    }
    this.quietChecks = utilization < QUIET ? this.quietChecks + 1 : 0;
    const due = TRIM_AFTER_QUIET_CHECKS[this.trims];
    if (due === undefined || this.quietChecks < due) return false;
    // Decided at a burst's first trim; its second follows it (the young generation shrinks then).
    if (this.trims === 0 && !this.grown()) {
      this.trims = TRIM_AFTER_QUIET_CHECKS.length;
      return false;
    }
    this.trims += 1;
    this.collect?.();
    for (const worker of this.workers) worker.trim();
    this.floor = this.residentBytes();
    // The collection's own time (30-40 ms) is not the daemon being busy.
    this.last = performance.eventLoopUtilization();
    return true;
  }

  /** Whether the process grew enough since the last collection for one to be worth its cost. */
  private grown(): boolean {
    return this.floor === undefined || this.residentBytes() >= this.floor + TRIM_GROWTH_BYTES;
  }

  private utilizationSinceLast(): number {
    const now = performance.eventLoopUtilization();
    const since = performance.eventLoopUtilization(now, this.last);
    this.last = now;
    return since.utilization;
  }
}
