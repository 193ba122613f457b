import type { Migration } from './migration.js';

export const oauth: Migration = {
  version: 7,
  name: 'oauth',
  // Codes, tokens and client secrets are stored as SHA-256 only, like API keys. A grant is one
  // consent (app, user, workspace, scopes); codes and tokens hang off it, so revoking the grant
  // (reuse detection, `svc oauth grants revoke`, app delete) ends everything it issued.
  sql: `
      CREATE TABLE oauth_apps (
        id            TEXT PRIMARY KEY,
        workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
        name          TEXT NOT NULL,
        redirect_uris TEXT NOT NULL,
        scopes        TEXT NOT NULL,
        public        INTEGER NOT NULL,
        secret_hash   TEXT,
        secret_hint   TEXT,
        created_at    INTEGER NOT NULL,
        deleted_at    INTEGER
      );
      CREATE INDEX oauth_apps_by_created ON oauth_apps(created_at DESC, id DESC);
      CREATE TABLE oauth_grants (
        id           TEXT PRIMARY KEY,
        app_id       TEXT NOT NULL REFERENCES oauth_apps(id),
        user_id      TEXT NOT NULL,
        workspace_id TEXT NOT NULL,
        scopes       TEXT NOT NULL,
        created_at   INTEGER NOT NULL,
        last_used_at INTEGER,
        revoked_at   INTEGER,
        revoked_reason TEXT
      );
      CREATE INDEX oauth_grants_by_created ON oauth_grants(created_at DESC, id DESC);
      CREATE INDEX oauth_grants_by_app ON oauth_grants(app_id);
      CREATE TABLE oauth_codes (
        hash                  TEXT PRIMARY KEY,
        grant_id              TEXT NOT NULL REFERENCES oauth_grants(id),
        app_id                TEXT NOT NULL,
        redirect_uri          TEXT NOT NULL,
        code_challenge        TEXT,
        code_challenge_method TEXT,
        scopes                TEXT NOT NULL,
        created_at            INTEGER NOT NULL,
        expires_at            INTEGER NOT NULL,
        used_at               INTEGER
      );
      CREATE TABLE oauth_tokens (
        id         TEXT PRIMARY KEY,
        kind       TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
        hash       TEXT NOT NULL UNIQUE,
        grant_id   TEXT NOT NULL REFERENCES oauth_grants(id),
        app_id     TEXT NOT NULL,
        scopes     TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at    INTEGER,
        revoked_at INTEGER
      );
      CREATE INDEX oauth_tokens_by_grant ON oauth_tokens(grant_id);
    `,
};
