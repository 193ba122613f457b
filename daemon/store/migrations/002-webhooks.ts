import type { Migration } from './migration.js';

export const webhooks: Migration = {
  version: 2,
  name: 'webhooks',
  sql: `
      CREATE TABLE webhooks (
        id                TEXT PRIMARY KEY,
        workspace_id      TEXT NOT NULL REFERENCES workspaces(id),
        url               TEXT NOT NULL,
        description       TEXT,
        events            TEXT NOT NULL,
        status            TEXT NOT NULL CHECK (status IN ('active', 'paused', 'failed')),
        secret            TEXT NOT NULL,
        max_attempts      INTEGER NOT NULL,
        backoff_multiplier REAL NOT NULL,
        timeout_seconds   INTEGER NOT NULL,
        created_at        INTEGER NOT NULL,
        updated_at        INTEGER NOT NULL,
        last_triggered_at INTEGER,
        last_failure_at   INTEGER,
        total_deliveries  INTEGER NOT NULL DEFAULT 0,
        delivered_count   INTEGER NOT NULL DEFAULT 0,
        failed_count      INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX webhooks_by_workspace ON webhooks(workspace_id, created_at DESC, id DESC);
      CREATE TABLE deliveries (
        id               TEXT PRIMARY KEY,
        webhook_id       TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        workspace_id     TEXT NOT NULL,
        event_id         TEXT NOT NULL,
        event_type       TEXT NOT NULL,
        body             TEXT NOT NULL,
        status           TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts         INTEGER NOT NULL DEFAULT 0,
        http_status      INTEGER,
        response_time_ms INTEGER,
        error            TEXT,
        created_at       INTEGER NOT NULL,
        delivered_at     INTEGER,
        last_attempt_at  INTEGER,
        next_attempt_at  INTEGER
      );
      CREATE INDEX deliveries_by_webhook ON deliveries(webhook_id, created_at DESC, id DESC);
      CREATE INDEX deliveries_pending ON deliveries(webhook_id, status);
      CREATE TABLE delivery_attempts (
        delivery_id      TEXT NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
        attempt          INTEGER NOT NULL,
        attempted_at     INTEGER NOT NULL,
        http_status      INTEGER,
        response_time_ms INTEGER NOT NULL,
        error            TEXT,
        PRIMARY KEY (delivery_id, attempt)
      );
      CREATE TABLE integrations (
        id           TEXT PRIMARY KEY,
        workspace_id TEXT NOT NULL REFERENCES workspaces(id),
        provider     TEXT NOT NULL,
        name         TEXT NOT NULL,
        config       TEXT NOT NULL,
        credentials  TEXT,
        status       TEXT NOT NULL,
        created_at   INTEGER NOT NULL,
        updated_at   INTEGER NOT NULL
      );
      CREATE INDEX integrations_by_workspace ON integrations(workspace_id, created_at DESC, id DESC);
    `,
};
