import type { Migration } from './migration.js';

export const agents: Migration = {
  version: 3,
  name: 'agents',
  sql: `
      CREATE TABLE agents (
        id             TEXT PRIMARY KEY,
        workspace_id   TEXT NOT NULL REFERENCES workspaces(id),
        name           TEXT NOT NULL,
        description    TEXT,
        type           TEXT NOT NULL,
        ontology       TEXT NOT NULL,
        autonomy_level TEXT NOT NULL,
        status         TEXT NOT NULL CHECK (status IN ('active', 'paused', 'training', 'archived')),
        capabilities   TEXT NOT NULL,
        guardrails     TEXT NOT NULL,
        personality    TEXT NOT NULL,
        brain          TEXT,
        created_at     INTEGER NOT NULL,
        updated_at     INTEGER NOT NULL,
        last_active_at INTEGER,
        deleted_at     INTEGER,
        stat_interactions INTEGER NOT NULL DEFAULT 0,
        stat_finished     INTEGER NOT NULL DEFAULT 0,
        stat_succeeded    INTEGER NOT NULL DEFAULT 0,
        stat_timed        INTEGER NOT NULL DEFAULT 0,
        stat_time_ms      INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX agents_by_workspace ON agents(workspace_id, created_at DESC, id DESC);
      CREATE TABLE agent_executions (
        id                TEXT PRIMARY KEY,
        agent_id          TEXT NOT NULL,
        workspace_id      TEXT NOT NULL,
        status            TEXT NOT NULL CHECK (status IN ('processing', 'awaiting_approval', 'completed', 'failed', 'cancelled')),
        autonomy_level    TEXT NOT NULL,
        input             TEXT NOT NULL,
        context           TEXT NOT NULL,
        action            TEXT,
        output            TEXT,
        confidence        REAL,
        error_code        TEXT,
        error_message     TEXT,
        execution_time_ms INTEGER,
        needed_approval   INTEGER NOT NULL DEFAULT 0,
        decision          TEXT,
        decision_notes    TEXT,
        created_at        INTEGER NOT NULL,
        completed_at      INTEGER,
        decided_at        INTEGER
      );
      CREATE INDEX agent_executions_by_agent ON agent_executions(agent_id, created_at DESC);
      CREATE TABLE agent_messages (
        id              TEXT PRIMARY KEY,
        agent_id        TEXT NOT NULL,
        workspace_id    TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        role            TEXT NOT NULL CHECK (role IN ('user', 'agent')),
        content         TEXT NOT NULL,
        action          TEXT,
        confidence      REAL,
        response_time_ms INTEGER,
        created_at      INTEGER NOT NULL
      );
      CREATE INDEX agent_messages_by_agent ON agent_messages(agent_id, created_at DESC, id DESC);
      CREATE INDEX agent_messages_by_conversation ON agent_messages(conversation_id, created_at DESC, id DESC);
      CREATE TABLE knowledge_documents (
        id           TEXT PRIMARY KEY,
        agent_id     TEXT NOT NULL,
        workspace_id TEXT NOT NULL,
        filename     TEXT NOT NULL,
        format       TEXT NOT NULL,
        type         TEXT NOT NULL,
        description  TEXT,
        size_bytes   INTEGER NOT NULL,
        chunk_count  INTEGER NOT NULL,
        characters   INTEGER NOT NULL,
        created_at   INTEGER NOT NULL
      );
      CREATE INDEX knowledge_by_agent ON knowledge_documents(agent_id, created_at DESC, id DESC);
      CREATE VIRTUAL TABLE knowledge_chunks USING fts5(text, document_id UNINDEXED, agent_id UNINDEXED, seq UNINDEXED);
      CREATE TABLE agent_stubs (
        id         TEXT PRIMARY KEY,
        agent_id   TEXT NOT NULL,
        match      TEXT NOT NULL,
        result     TEXT,
        fail_code  TEXT,
        delay_ms   INTEGER,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX agent_stubs_by_agent ON agent_stubs(agent_id, created_at);
    `,
};
