// Group commit: changes queued in the same tick are written in one transaction, each in its
// own savepoint (one failing rolls back only itself). Under concurrent load a commit's page
// writes are shared by many requests; each caller still answers only once its change is
// committed, so nothing acknowledged can be lost.
import type { Db } from './database.js';

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class CommitQueue {
  private pending: Pending[] = [];

  constructor(private readonly db: Db) {}

  /** Runs `work` inside the next group transaction; resolves with its result after the commit. */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (this.pending.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      this.db.transaction(() => {
        for (const item of batch) {
          try {
            outcomes.push({ ok: true, value: this.db.transaction(item.work)() });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
      })();
    } catch (error) {
      // The commit itself failed: nothing of the batch is stored.
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }
}
