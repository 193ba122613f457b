import type { Migration } from './migration.js';

export const cassettes: Migration = {
  version: 30,
  name: 'cassettes',
  // Recorded model answers (svc agents record, the replay brain) kept in the sandbox (issue 54,
  // team mode): on PostgreSQL every daemon of the sandbox records into and replays from the
  // same row, so an agent answers the same whichever daemon serves it. `data` is the cassette's
  // JSON document, as a cassette file holds it; `name` is its name relative to the cassette
  // folder (support.json, team/support.json). SQLite's one daemon keeps cassettes as files in
  // its cassette folder and leaves this table empty; snapshots carry it either way.
  sql: `
      CREATE TABLE cassettes (
        name TEXT PRIMARY KEY,
        data TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      ) WITHOUT ROWID;
    `,
};
