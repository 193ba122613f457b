// When each API key was last used, without a write per request: authentication is the hot path
// (a cached lookup by hash, no store access), so a use only sets the key's time in memory; the
// times are stored together at most once a minute (the housekeeping tick) and when the daemon
// stops. What is shown (svc keys list, the dashboard) is the newer of the stored and the held
// time: exact while the daemon runs; after a crash, up to a minute of uses may be forgotten.
import type { Transactions } from '../domain/transactions.js';
import type { KeyRepository } from './key.repository.js';

export class KeyUsage {
  /** Key id -> the last use not yet stored (daemon clock, ms). */
  private readonly held = new Map<string, number>();

  constructor(
    private readonly db: Transactions,
    private readonly repo: KeyRepository,
  ) {}

  /** A request authenticated with key `id` at `at`: memory only. */
  used(id: string, at: number): void {
    this.held.set(id, at);
  }

  /** The key's last use: the held one if newer than the stored one. */
  lastUsed(id: string, stored: number | null): number | null {
    const held = this.held.get(id);
    if (held === undefined) return stored;
    return stored === null ? held : Math.max(held, stored);
  }

  /** Stores the held times in one transaction; answers how many keys were written. */
  flush(): number {
    if (this.held.size === 0) return 0;
    const uses = [...this.held];
    this.held.clear();
    this.db.transaction(() => {
      for (const [id, at] of uses) this.repo.markUsed(id, at);
    })();
    return uses.length;
  }
}
