import type { Migration } from './migration.js';

export const platform: Migration = {
  version: 1,
  name: 'platform',
  sql: `
      CREATE TABLE settings (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
      CREATE TABLE users (
        id         TEXT PRIMARY KEY,
        name       TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE workspaces (
        id         TEXT PRIMARY KEY,
        name       TEXT NOT NULL,
        tier       TEXT NOT NULL CHECK (tier IN ('free', 'starter', 'business', 'enterprise')),
        owner_id   TEXT NOT NULL REFERENCES users(id),
        created_at INTEGER NOT NULL
      );
      CREATE INDEX workspaces_by_created ON workspaces(created_at DESC, id DESC);
      CREATE TABLE api_keys (
        id           TEXT PRIMARY KEY,
        kind         TEXT NOT NULL CHECK (kind IN ('standard', 'operator')),
        user_id      TEXT NOT NULL REFERENCES users(id),
        workspace_id TEXT REFERENCES workspaces(id),
        name         TEXT NOT NULL,
        hash         TEXT NOT NULL UNIQUE,
        hint         TEXT NOT NULL,
        scopes       TEXT NOT NULL,
        environment  TEXT NOT NULL CHECK (environment IN ('sandbox', 'production')),
        created_at   INTEGER NOT NULL,
        expires_at   INTEGER,
        revoked_at   INTEGER,
        rotated_to   TEXT
      );
      CREATE INDEX api_keys_by_created ON api_keys(created_at DESC, id DESC);
      CREATE TABLE events (
        id           TEXT PRIMARY KEY,
        workspace_id TEXT NOT NULL,
        type         TEXT NOT NULL,
        created_at   INTEGER NOT NULL,
        envelope     TEXT NOT NULL
      );
      CREATE INDEX events_by_workspace ON events(workspace_id, created_at DESC, id DESC);
      CREATE TABLE timers (
        id         TEXT PRIMARY KEY,
        kind       TEXT NOT NULL,
        due_at     INTEGER NOT NULL,
        payload    TEXT NOT NULL,
        attempts   INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX timers_by_due ON timers(due_at, id);
    `,
};
