// Reads kept for the rest of the current synchronous stretch of the daemon's thread, i.e. until
// the next microtask: the events of one group commit, the timers one pass starts, the steps one
// transition runs all read the same webhooks, triggers, agents and workflows, and a statement
// is a round trip to PostgreSQL (store/postgres/). Nothing is kept across turns of the event
// loop, so another daemon's change is seen by the next turn, as the store's rows are; the
// owner forgets a key when it writes it (as a RowCache does).
export class TickMemo<Value> {
  private readonly values = new Map<string, Value>();
  private clearing = false;

  /** The value read for `key` in this stretch, else `load()`'s (kept until the stretch ends). */
  get(key: string, load: () => Value): Value {
    if (this.values.has(key)) return this.values.get(key)!;
    const value = load();
    this.values.set(key, value);
    if (!this.clearing) {
      this.clearing = true;
      queueMicrotask(() => {
        this.clearing = false;
        this.values.clear();
      });
    }
    return value;
  }

  /** Drops `key` (or everything): the next get reads again. Call it when writing the row. */
  forget(key?: string): void {
    if (key === undefined) this.values.clear();
    else this.values.delete(key);
  }
}
