import type { Migration } from './migration.js';

export const workflowTriggers: Migration = {
  version: 6,
  name: 'workflow triggers',
  sql: `
      -- One row per workflow whose trigger is webhook, schedule or event, kept in step with the
      -- workflow by the trigger service (same transaction as the workflow's write).
      CREATE TABLE workflow_triggers (
        workflow_id    TEXT PRIMARY KEY,
        workspace_id   TEXT NOT NULL,
        type           TEXT NOT NULL CHECK (type IN ('webhook', 'schedule', 'event')),
        active         INTEGER NOT NULL,
        hook_path      TEXT,
        hook_secret    TEXT,
        event_patterns TEXT,
        cron           TEXT,
        timezone       TEXT,
        next_fire_at   INTEGER
      );
      CREATE UNIQUE INDEX workflow_triggers_by_hook_path ON workflow_triggers(workspace_id, hook_path)
        WHERE hook_path IS NOT NULL;
      CREATE INDEX workflow_triggers_by_event ON workflow_triggers(workspace_id)
        WHERE type = 'event' AND active = 1;
      -- How many event-triggered runs led to this run, to stop cycles between workflows.
      CREATE TABLE event_triggered_runs (
        execution_id TEXT PRIMARY KEY,
        depth        INTEGER NOT NULL,
        created_at   INTEGER NOT NULL
      );
    `,
};
