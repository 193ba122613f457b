import type { Migration } from './migration.js';

export const fixtureObjects: Migration = {
  // Issue 17 was built as version 10; main had taken 10 and 11 by the time it merged: 12 here.
  version: 12,
  name: 'fixture objects',
  // What `svc fixtures apply` created, under the fixture's names: applying again updates these
  // objects instead of creating new ones. In the store (not a file beside it) so that it
  // commits with the objects, travels with snapshots and is emptied by a reset.
  sql: `
      CREATE TABLE fixture_objects (
        kind         TEXT NOT NULL,
        name         TEXT NOT NULL,
        object_id    TEXT NOT NULL,
        workspace_id TEXT,
        declaration  TEXT NOT NULL,
        digest       TEXT NOT NULL,
        extra        TEXT NOT NULL DEFAULT '{}',
        created_at   INTEGER NOT NULL,
        updated_at   INTEGER NOT NULL,
        PRIMARY KEY (kind, name)
      ) WITHOUT ROWID;
    `,
};
