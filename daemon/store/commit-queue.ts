// Group commit: changes queued in the same tick are written in one transaction. Under
// concurrent load a commit's page writes are shared by many requests; each caller still answers
// only once its change is committed, so nothing acknowledged can be lost. If one change throws,
// the group is rolled back and each change is retried in its own transaction, so a failure
// stays with its own caller.
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
    let values: unknown[];
    try {
      values = this.db.transaction(() => batch.map((item) => item.work()))();
    } catch {
      for (const item of batch) this.runAlone(item);
      return;
    }
    batch.forEach((item, index) => item.resolve(values[index]));
  }

  private runAlone(item: Pending): void {
    try {
      item.resolve(this.db.transaction(item.work)());
    } catch (error) {
      item.reject(error);
    }
  }
}
