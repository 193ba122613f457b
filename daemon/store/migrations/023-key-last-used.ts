import type { Migration } from './migration.js';

export const keyLastUsed: Migration = {
  version: 23,
  name: 'key last used',
  // When each API key was last used (svc keys list, the dashboard's keys page). Authentication
  // writes nothing: the time is kept in memory and stored at most once a minute per key, and
  // when the daemon stops (keys/key-usage.ts). Null: never used since this version.
  sql: `
      ALTER TABLE api_keys ADD COLUMN last_used_at INTEGER;
    `,
};
