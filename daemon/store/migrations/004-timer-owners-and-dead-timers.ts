import type { Migration } from './migration.js';

export const timerOwnersAndDeadTimers: Migration = {
  version: 4,
  name: 'timer owners and dead timers',
  sql: `
      ALTER TABLE timers ADD COLUMN owner TEXT;
      CREATE INDEX timers_by_owner ON timers(owner) WHERE owner IS NOT NULL;
      CREATE TABLE dead_timers (
        id         TEXT PRIMARY KEY,
        kind       TEXT NOT NULL,
        owner      TEXT,
        payload    TEXT NOT NULL,
        attempts   INTEGER NOT NULL,
        last_error TEXT,
        created_at INTEGER NOT NULL,
        died_at    INTEGER NOT NULL
      );
    `,
};
