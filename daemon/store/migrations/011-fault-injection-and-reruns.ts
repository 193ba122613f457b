import type { Migration } from './migration.js';

export const faultInjectionAndReruns: Migration = {
  // Issue 18 was given version 9; main had taken 9 and 10 by the time it merged: 11 here.
  version: 11,
  name: 'fault injection and re-runs',
  sql: `
      -- Sandbox fault rules (svc faults): where, when and what; seen/hits count the calls the rule
      -- was asked about and the faults it injected (seeded rates and --times read them).
      CREATE TABLE faults (
        id            TEXT PRIMARY KEY,
        workspace_id  TEXT NOT NULL,
        webhook_id    TEXT,
        url_prefix    TEXT,
        workflow_id   TEXT,
        step_id       TEXT,
        agent_id      TEXT,
        attempts_from INTEGER,
        attempts_to   INTEGER,
        rate          REAL,
        seed          INTEGER,
        times         INTEGER,
        match         TEXT,
        status        INTEGER,
        timeout       INTEGER NOT NULL DEFAULT 0,
        latency_ms    INTEGER,
        reset         INTEGER NOT NULL DEFAULT 0,
        fail_code     TEXT,
        seen          INTEGER NOT NULL DEFAULT 0,
        hits          INTEGER NOT NULL DEFAULT 0,
        created_at    INTEGER NOT NULL
      );
      CREATE INDEX faults_by_workspace ON faults(workspace_id, created_at);
      ALTER TABLE delivery_attempts ADD COLUMN injected_fault TEXT;
      ALTER TABLE workflow_step_runs ADD COLUMN injected_fault TEXT;
      ALTER TABLE agent_executions ADD COLUMN injected_fault TEXT;
      -- Re-runs (svc workflows rerun): the run this one repeats, and the step it started at.
      ALTER TABLE workflow_executions ADD COLUMN rerun_of TEXT;
      ALTER TABLE workflow_executions ADD COLUMN from_step_id TEXT;
      CREATE INDEX workflow_executions_by_rerun ON workflow_executions(rerun_of) WHERE rerun_of IS NOT NULL;
    `,
};
