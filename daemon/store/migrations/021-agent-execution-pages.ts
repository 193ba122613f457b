import type { Migration } from './migration.js';

export const agentExecutionPages: Migration = {
  version: 21,
  name: 'agent execution pages',
  // The dashboard's agent page lists an agent's executions newest first, a page at a time after
  // a cursor (created_at, then id), and the ones awaiting approval. The index of version 3 had
  // no id: every page sorted the rows of equal created_at again. With the id the page is read
  // from the index in order; it also serves what the old one served (the hourly guardrail,
  // analytics), which is dropped. The awaiting ones are a partial index: they are few among an
  // agent's 100,000 executions, and the list must not read the rest to find them.
  sql: `
      DROP INDEX agent_executions_by_agent;
      CREATE INDEX agent_executions_by_agent_recent ON agent_executions(agent_id, created_at DESC, id DESC);
      CREATE INDEX agent_executions_awaiting_by_agent ON agent_executions(agent_id, created_at DESC, id DESC)
        WHERE status = 'awaiting_approval';
    `,
};
