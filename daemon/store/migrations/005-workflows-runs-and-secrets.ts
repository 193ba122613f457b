import type { Migration } from './migration.js';

export const workflowsRunsAndSecrets: Migration = {
  version: 5,
  name: 'workflows, their runs and secrets',
  sql: `
      CREATE TABLE workflows (
        id               TEXT PRIMARY KEY,
        workspace_id     TEXT NOT NULL,
        name             TEXT NOT NULL,
        description      TEXT,
        status           TEXT NOT NULL CHECK (status IN ('draft', 'active', 'paused', 'archived')),
        trigger          TEXT NOT NULL,
        version          INTEGER NOT NULL,
        created_at       INTEGER NOT NULL,
        updated_at       INTEGER NOT NULL,
        last_executed_at INTEGER,
        stat_total       INTEGER NOT NULL DEFAULT 0,
        stat_ended       INTEGER NOT NULL DEFAULT 0,
        stat_succeeded   INTEGER NOT NULL DEFAULT 0,
        stat_duration_ms INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX workflows_by_workspace ON workflows(workspace_id, created_at DESC, id DESC);
      -- Steps and settings per version: a run keeps the definition it started with.
      CREATE TABLE workflow_versions (
        workflow_id TEXT NOT NULL,
        version     INTEGER NOT NULL,
        name        TEXT NOT NULL,
        steps       TEXT NOT NULL,
        settings    TEXT NOT NULL,
        created_at  INTEGER NOT NULL,
        PRIMARY KEY (workflow_id, version)
      ) WITHOUT ROWID;
      CREATE TABLE workflow_executions (
        id              TEXT PRIMARY KEY,
        workflow_id     TEXT NOT NULL,
        workspace_id    TEXT NOT NULL,
        version         INTEGER NOT NULL,
        status          TEXT NOT NULL CHECK (status IN ('running', 'awaiting_approval', 'completed', 'failed', 'cancelled', 'timeout')),
        trigger_type    TEXT NOT NULL,
        input           TEXT NOT NULL,
        frontier        TEXT NOT NULL,
        steps_completed INTEGER NOT NULL DEFAULT 0,
        result          TEXT,
        error_code      TEXT,
        error_message   TEXT,
        failed_step     TEXT,
        failed_agent_id TEXT,
        deadline_at     INTEGER NOT NULL,
        created_at      INTEGER NOT NULL,
        completed_at    INTEGER,
        cancelled_at    INTEGER
      );
      CREATE INDEX workflow_executions_by_workflow ON workflow_executions(workflow_id, created_at DESC, id DESC);
      CREATE INDEX workflow_executions_unfinished ON workflow_executions(workflow_id)
        WHERE status IN ('running', 'awaiting_approval');
      CREATE INDEX workflow_executions_by_created ON workflow_executions(created_at);
      -- One row per finished step attempt, written with what follows it.
      CREATE TABLE workflow_step_runs (
        execution_id  TEXT NOT NULL,
        seq           INTEGER NOT NULL,
        step_id       TEXT NOT NULL,
        attempt       INTEGER NOT NULL,
        status        TEXT NOT NULL,
        result        TEXT,
        error_code    TEXT,
        error_message TEXT,
        started_at    INTEGER NOT NULL,
        completed_at  INTEGER NOT NULL,
        PRIMARY KEY (execution_id, seq)
      ) WITHOUT ROWID;
      -- Agent executions a run waits on for approval.
      CREATE TABLE workflow_approvals (
        agent_execution_id TEXT PRIMARY KEY,
        execution_id       TEXT NOT NULL,
        activation         TEXT NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE secrets (
        workspace_id TEXT NOT NULL,
        name         TEXT NOT NULL,
        sealed       TEXT NOT NULL,
        created_at   INTEGER NOT NULL,
        updated_at   INTEGER NOT NULL,
        PRIMARY KEY (workspace_id, name)
      ) WITHOUT ROWID;
    `,
};
