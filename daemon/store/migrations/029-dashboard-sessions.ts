import type { Migration } from './migration.js';

export const dashboardSessions: Migration = {
  version: 29,
  name: 'dashboard sessions',
  // The dashboard's login tokens and sessions (issue 54, team mode): on PostgreSQL every daemon
  // of the sandbox reads the same rows, so a login on one daemon's dashboard works on all (and
  // outlives a restart). Only hashes are kept: sha256 of the token, of the session id. SQLite's
  // one daemon keeps them in memory (a restart logs out) and leaves these tables empty.
  sql: `
      CREATE TABLE dashboard_login_tokens (
        token_hash TEXT PRIMARY KEY,
        expires_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE dashboard_sessions (
        session_hash TEXT PRIMARY KEY,
        last_seen_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX dashboard_sessions_by_last_seen ON dashboard_sessions(last_seen_at);
    `,
};
