import type { Migration } from './migration.js';

export const hookSignatures: Migration = {
  version: 18,
  name: 'hook signatures',
  // Signed webhook-trigger requests that started a run, remembered while their signature could
  // still verify, so that a copy of one (a proxy log, a CI artifact) is refused instead of
  // starting the workflow again (409 webhook_replayed). One row per signed request: the digest
  // is of the signature the daemon computed over "<t>.<raw body>", so the same bytes sent with a
  // reformatted header are the same request. expires_at is real time (ms), like the signature's
  // t it comes from: the tolerance check compares t with real time, not the sandbox clock.
  // Housekeeping deletes expired rows, so the table holds about ten minutes of signed hooks.
  sql: `
      CREATE TABLE hook_signatures (
        workspace_id TEXT NOT NULL,
        digest       TEXT NOT NULL,
        workflow_id  TEXT NOT NULL,
        execution_id TEXT NOT NULL,
        accepted_at  INTEGER NOT NULL,
        expires_at   INTEGER NOT NULL,
        PRIMARY KEY (workspace_id, digest)
      ) WITHOUT ROWID;
      CREATE INDEX hook_signatures_by_expiry ON hook_signatures(expires_at);
    `,
};
