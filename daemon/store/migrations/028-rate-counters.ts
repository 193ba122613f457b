import type { Migration } from './migration.js';

export const rateCounters: Migration = {
  version: 28,
  name: 'rate counters',
  // Rate-limit windows counted in the store (issue 54, team mode): on PostgreSQL every daemon of
  // the sandbox counts a client's requests in the same row, so a limit does not multiply with
  // the daemons. SQLite's one daemon keeps its windows in memory and leaves this table empty.
  sql: `
      CREATE TABLE rate_counters (
        bucket TEXT NOT NULL,
        key TEXT NOT NULL,
        window_start INTEGER NOT NULL,
        reset_at INTEGER NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY (bucket, key, window_start)
      ) WITHOUT ROWID;
      CREATE INDEX rate_counters_by_reset ON rate_counters(reset_at);
    `,
};
