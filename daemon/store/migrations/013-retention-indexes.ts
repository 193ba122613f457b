import type { Migration } from './migration.js';

export const retentionIndexes: Migration = {
  version: 13,
  name: 'retention indexes',
  // Housekeeping deletes what is past retention every minute, on the thread that serves the
  // API. Without an index on created_at each of these deletes read the whole table (with
  // 100,000 rows of events, 40-140 ms, every minute, even when nothing had expired). Runs
  // have had theirs since version 5; events go through events_by_workspace (see
  // EventRepository). OAuth codes and tokens expire or are revoked: both are indexed, so the
  // OR of the two reads two ranges.
  sql: `
      CREATE INDEX agent_executions_by_created ON agent_executions(created_at);
      CREATE INDEX event_triggered_runs_by_created ON event_triggered_runs(created_at);
      CREATE INDEX oauth_codes_by_expiry ON oauth_codes(expires_at);
      CREATE INDEX oauth_tokens_by_expiry ON oauth_tokens(expires_at);
      CREATE INDEX oauth_tokens_by_revoked ON oauth_tokens(revoked_at) WHERE revoked_at IS NOT NULL;
    `,
};
