import type { Migration } from './migration.js';

export const sharedTexts: Migration = {
  version: 25,
  name: 'shared texts',
  // A large text is stored once, by its SHA-256, and rows refer to it (issue 51): a webhook
  // body fanned out to the 50 agent steps of a parallel step was stored in each of their
  // executions, 46 MB for one 900 KB hook. An agent execution whose input is long keeps it here
  // (input_digest set, input empty); a text goes when no execution refers to it any more (the
  // executions' purge). The partial index finds the executions of a text for that purge.
  sql: `
      CREATE TABLE shared_texts (
        digest     TEXT PRIMARY KEY,
        body       TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      ALTER TABLE agent_executions ADD COLUMN input_digest TEXT;
      CREATE INDEX agent_executions_by_input_digest ON agent_executions(input_digest)
        WHERE input_digest IS NOT NULL;
    `,
};
