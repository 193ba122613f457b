// A daemon's in-memory copy of rows read often and written rarely (a workspace's tier, a
// secret's opened value, whether an agent has knowledge, a workspace's fault rules), kept
// right when several daemons serve one sandbox (team mode): whoever changes the rows behind an
// entry calls changed(key), which drops the entry here and tells the other daemons to drop
// theirs ('rows' notice, sent with the transaction's commit). A daemon whose listening
// connection was lost drops everything on its return (it cannot know what it missed). On
// SQLite (one daemon) it is a plain Map at no extra cost.
import type { TeamNotices } from './team-notices.js';

export class TeamCache<V> {
  private readonly entries = new Map<string, V>();

  /**
   * `name` tells this cache's notices from the others' (a word: no space); `limit` bounds the
   * entries kept (all are dropped when it is reached: they are read again as needed).
   */
  constructor(
    private readonly name: string,
    private readonly notices: Pick<TeamNotices, 'notify' | 'on' | 'onResync'>,
    private readonly limit = 10_000,
  ) {
    notices.on('rows', (payload) => {
      const space = payload.indexOf(' ');
      if (space < 0 || payload.slice(0, space) !== name) return;
      this.entries.delete(payload.slice(space + 1));
    });
    notices.onResync(() => this.entries.clear());
  }

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  /** The entry as read from the store here (not told: it is what the others read too). */
  set(key: string, value: V): void {
    if (this.entries.size >= this.limit) this.entries.clear();
    this.entries.set(key, value);
  }

  /** The value kept for `key`, else the one `load` reads, then kept. */
  read(key: string, load: () => V): V {
    if (this.entries.has(key)) return this.entries.get(key)!;
    const value = load();
    this.set(key, value);
    return value;
  }

  /**
   * The rows behind `key` changed here: the entry is dropped, and the other daemons drop
   * theirs once the change is committed (inside a transaction, the notice goes with its commit).
   */
  changed(key: string): void {
    this.entries.delete(key);
    this.notices.notify('rows', `${this.name} ${key}`);
  }
}
