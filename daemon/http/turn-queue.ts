// Work that may each hold the event loop for tens of milliseconds (parsing a body near the 1 MiB
// limit), done one piece per turn of the event loop, in arrival order: between two pieces the
// loop serves the I/O that came in meanwhile (a /healthz probe, a small request). Without it,
// twenty large bodies that arrive together are all parsed in the same turn, back to back
// (issue 38: /healthz held for seconds).

export class TurnQueue {
  private readonly queued: (() => void)[] = [];
  private scheduled = false;

  /** Runs `work` on a later turn of the event loop, after the work queued before it. */
  push(work: () => void): void {
    this.queued.push(work);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.queued.length === 0) return;
    this.scheduled = true;
    // An immediate set from an immediate runs on the next turn, after that turn's I/O.
    setImmediate(() => {
      this.scheduled = false;
      const work = this.queued.shift()!;
      this.schedule();
      work();
    });
  }
}
