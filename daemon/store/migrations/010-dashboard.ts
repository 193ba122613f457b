import type { Migration } from './migration.js';

export const dashboard: Migration = {
  version: 10,
  name: 'dashboard',
  // The dashboard lists a workspace's runs (all workflows, newest first, or of one status: its
  // count then reads the index alone) and the agent
  // executions awaiting approval, and shows each delivery attempt's signature header and the
  // first bytes of the receiver's answer.
  sql: `
      CREATE INDEX workflow_executions_by_workspace ON workflow_executions(workspace_id, created_at DESC, id DESC);
      CREATE INDEX workflow_executions_by_workspace_status ON workflow_executions(workspace_id, status, created_at DESC, id DESC);
      CREATE INDEX agent_executions_awaiting ON agent_executions(workspace_id, created_at DESC, id DESC)
        WHERE status = 'awaiting_approval';
      ALTER TABLE delivery_attempts ADD COLUMN signature TEXT;
      ALTER TABLE delivery_attempts ADD COLUMN response_head TEXT;
    `,
};
