// Numbered schema migrations. Each runs once, in order, inside a transaction; the database's
// user_version records the last one applied. Never edit a migration that has shipped: add one.
// A migration is SQL, plus an optional step in code for what SQL cannot do (sealing values
// with the data dir's SecretBox).
import type Database from 'better-sqlite3';
import { SecretBox } from '../platform/secret-box.js';

/** What a migration's code step may use. */
export interface MigrationContext {
  /** The data dir's cipher; absent when the database is opened without a data dir (unit tests). */
  secretBox?: SecretBox | undefined;
}

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Runs after `sql`, in the same transaction. */
  run?: (db: Database.Database, context: MigrationContext) => void;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'platform',
    sql: `
      CREATE TABLE settings (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
      CREATE TABLE users (
        id         TEXT PRIMARY KEY,
        name       TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE workspaces (
        id         TEXT PRIMARY KEY,
        name       TEXT NOT NULL,
        tier       TEXT NOT NULL CHECK (tier IN ('free', 'starter', 'business', 'enterprise')),
        owner_id   TEXT NOT NULL REFERENCES users(id),
        created_at INTEGER NOT NULL
      );
      CREATE INDEX workspaces_by_created ON workspaces(created_at DESC, id DESC);
      CREATE TABLE api_keys (
        id           TEXT PRIMARY KEY,
        kind         TEXT NOT NULL CHECK (kind IN ('standard', 'operator')),
        user_id      TEXT NOT NULL REFERENCES users(id),
        workspace_id TEXT REFERENCES workspaces(id),
        name         TEXT NOT NULL,
        hash         TEXT NOT NULL UNIQUE,
        hint         TEXT NOT NULL,
        scopes       TEXT NOT NULL,
        environment  TEXT NOT NULL CHECK (environment IN ('sandbox', 'production')),
        created_at   INTEGER NOT NULL,
        expires_at   INTEGER,
        revoked_at   INTEGER,
        rotated_to   TEXT
      );
      CREATE INDEX api_keys_by_created ON api_keys(created_at DESC, id DESC);
      CREATE TABLE events (
        id           TEXT PRIMARY KEY,
        workspace_id TEXT NOT NULL,
        type         TEXT NOT NULL,
        created_at   INTEGER NOT NULL,
        envelope     TEXT NOT NULL
      );
      CREATE INDEX events_by_workspace ON events(workspace_id, created_at DESC, id DESC);
      CREATE TABLE timers (
        id         TEXT PRIMARY KEY,
        kind       TEXT NOT NULL,
        due_at     INTEGER NOT NULL,
        payload    TEXT NOT NULL,
        attempts   INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX timers_by_due ON timers(due_at, id);
    `,
  },
  {
    version: 2,
    name: 'webhooks',
    sql: `
      CREATE TABLE webhooks (
        id                TEXT PRIMARY KEY,
        workspace_id      TEXT NOT NULL REFERENCES workspaces(id),
        url               TEXT NOT NULL,
        description       TEXT,
        events            TEXT NOT NULL,
        status            TEXT NOT NULL CHECK (status IN ('active', 'paused', 'failed')),
        secret            TEXT NOT NULL,
        max_attempts      INTEGER NOT NULL,
        backoff_multiplier REAL NOT NULL,
        timeout_seconds   INTEGER NOT NULL,
        created_at        INTEGER NOT NULL,
        updated_at        INTEGER NOT NULL,
        last_triggered_at INTEGER,
        last_failure_at   INTEGER,
        total_deliveries  INTEGER NOT NULL DEFAULT 0,
        delivered_count   INTEGER NOT NULL DEFAULT 0,
        failed_count      INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX webhooks_by_workspace ON webhooks(workspace_id, created_at DESC, id DESC);
      CREATE TABLE deliveries (
        id               TEXT PRIMARY KEY,
        webhook_id       TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        workspace_id     TEXT NOT NULL,
        event_id         TEXT NOT NULL,
        event_type       TEXT NOT NULL,
        body             TEXT NOT NULL,
        status           TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts         INTEGER NOT NULL DEFAULT 0,
        http_status      INTEGER,
        response_time_ms INTEGER,
        error            TEXT,
        created_at       INTEGER NOT NULL,
        delivered_at     INTEGER,
        last_attempt_at  INTEGER,
        next_attempt_at  INTEGER
      );
      CREATE INDEX deliveries_by_webhook ON deliveries(webhook_id, created_at DESC, id DESC);
      CREATE INDEX deliveries_pending ON deliveries(webhook_id, status);
      CREATE TABLE delivery_attempts (
        delivery_id      TEXT NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
        attempt          INTEGER NOT NULL,
        attempted_at     INTEGER NOT NULL,
        http_status      INTEGER,
        response_time_ms INTEGER NOT NULL,
        error            TEXT,
        PRIMARY KEY (delivery_id, attempt)
      );
      CREATE TABLE integrations (
        id           TEXT PRIMARY KEY,
        workspace_id TEXT NOT NULL REFERENCES workspaces(id),
        provider     TEXT NOT NULL,
        name         TEXT NOT NULL,
        config       TEXT NOT NULL,
        credentials  TEXT,
        status       TEXT NOT NULL,
        created_at   INTEGER NOT NULL,
        updated_at   INTEGER NOT NULL
      );
      CREATE INDEX integrations_by_workspace ON integrations(workspace_id, created_at DESC, id DESC);
    `,
  },
  {
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
  },
  {
    version: 4,
    name: 'timer owners and dead timers',
    sql: `
      ALTER TABLE timers ADD COLUMN owner TEXT;
      CREATE INDEX timers_by_owner ON timers(owner) WHERE owner IS NOT NULL;
      CREATE TABLE dead_timers (
        id         TEXT PRIMARY KEY,
        kind       TEXT NOT NULL,
        owner      TEXT,
        payload    TEXT NOT NULL,
        attempts   INTEGER NOT NULL,
        last_error TEXT,
        created_at INTEGER NOT NULL,
        died_at    INTEGER NOT NULL
      );
    `,
  },
  {
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
  },
  {
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
  },
  {
    version: 7,
    name: 'oauth',
    // Codes, tokens and client secrets are stored as SHA-256 only, like API keys. A grant is one
    // consent (app, user, workspace, scopes); codes and tokens hang off it, so revoking the grant
    // (reuse detection, `svc oauth grants revoke`, app delete) ends everything it issued.
    sql: `
      CREATE TABLE oauth_apps (
        id            TEXT PRIMARY KEY,
        workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
        name          TEXT NOT NULL,
        redirect_uris TEXT NOT NULL,
        scopes        TEXT NOT NULL,
        public        INTEGER NOT NULL,
        secret_hash   TEXT,
        secret_hint   TEXT,
        created_at    INTEGER NOT NULL,
        deleted_at    INTEGER
      );
      CREATE INDEX oauth_apps_by_created ON oauth_apps(created_at DESC, id DESC);
      CREATE TABLE oauth_grants (
        id           TEXT PRIMARY KEY,
        app_id       TEXT NOT NULL REFERENCES oauth_apps(id),
        user_id      TEXT NOT NULL,
        workspace_id TEXT NOT NULL,
        scopes       TEXT NOT NULL,
        created_at   INTEGER NOT NULL,
        last_used_at INTEGER,
        revoked_at   INTEGER,
        revoked_reason TEXT
      );
      CREATE INDEX oauth_grants_by_created ON oauth_grants(created_at DESC, id DESC);
      CREATE INDEX oauth_grants_by_app ON oauth_grants(app_id);
      CREATE TABLE oauth_codes (
        hash                  TEXT PRIMARY KEY,
        grant_id              TEXT NOT NULL REFERENCES oauth_grants(id),
        app_id                TEXT NOT NULL,
        redirect_uri          TEXT NOT NULL,
        code_challenge        TEXT,
        code_challenge_method TEXT,
        scopes                TEXT NOT NULL,
        created_at            INTEGER NOT NULL,
        expires_at            INTEGER NOT NULL,
        used_at               INTEGER
      );
      CREATE TABLE oauth_tokens (
        id         TEXT PRIMARY KEY,
        kind       TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
        hash       TEXT NOT NULL UNIQUE,
        grant_id   TEXT NOT NULL REFERENCES oauth_grants(id),
        app_id     TEXT NOT NULL,
        scopes     TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at    INTEGER,
        revoked_at INTEGER
      );
      CREATE INDEX oauth_tokens_by_grant ON oauth_tokens(grant_id);
    `,
  },
  {
    version: 8,
    name: 'secrets at rest',
    sql: '',
    // Webhook signing secrets and integration credentials stored before they were encrypted are
    // sealed in place. secure_delete overwrites the plaintext the updates leave behind in the
    // database pages; the caller then truncates the WAL that still holds the old pages.
    run: (db, { secretBox }) => {
      const plain = <T>(rows: T[], value: (row: T) => string | null) =>
        rows.filter((row) => {
          const text = value(row);
          return text !== null && !SecretBox.isSealed(text);
        });
      const hooks = plain(
        db.prepare<[], { id: string; secret: string }>('SELECT id, secret FROM webhooks').all(),
        (row) => row.secret,
      );
      const integrations = plain(
        db
          .prepare<[], { id: string; credentials: string | null }>(
            'SELECT id, credentials FROM integrations',
          )
          .all(),
        (row) => row.credentials,
      );
      if (hooks.length === 0 && integrations.length === 0) return;
      if (!secretBox) throw new Error('sealing stored secrets needs the data dir secret key');
      db.pragma('secure_delete = ON');
      const sealHook = db.prepare('UPDATE webhooks SET secret = ? WHERE id = ?');
      for (const row of hooks) sealHook.run(secretBox.seal(row.secret), row.id);
      const sealIntegration = db.prepare('UPDATE integrations SET credentials = ? WHERE id = ?');
      for (const row of integrations) sealIntegration.run(secretBox.seal(row.credentials!), row.id);
    },
  },
  {
    version: 9,
    name: 'list counts',
    // The lists that grow without bound (events, runs, deliveries) answer total_count from
    // counters that triggers keep in the same transaction as each row, instead of a COUNT(*)
    // over every row (65 ms at a million events). Counted per scope and bucket (event type or
    // status), so a filter on either sums a few counters. Status filters get their own index.
    sql: `
      CREATE TABLE list_counts (
        list   TEXT NOT NULL,
        scope  TEXT NOT NULL,
        bucket TEXT NOT NULL,
        n      INTEGER NOT NULL,
        PRIMARY KEY (list, scope, bucket)
      ) WITHOUT ROWID;
      CREATE TRIGGER events_count_insert AFTER INSERT ON events BEGIN
        INSERT INTO list_counts (list, scope, bucket, n) VALUES ('events', NEW.workspace_id, NEW.type, 1)
          ON CONFLICT (list, scope, bucket) DO UPDATE SET n = n + 1;
      END;
      CREATE TRIGGER events_count_delete AFTER DELETE ON events BEGIN
        UPDATE list_counts SET n = n - 1 WHERE list = 'events' AND scope = OLD.workspace_id AND bucket = OLD.type;
      END;
      INSERT INTO list_counts (list, scope, bucket, n)
        SELECT 'events', workspace_id, type, COUNT(*) FROM events GROUP BY workspace_id, type;
      CREATE TRIGGER workflow_executions_count_insert AFTER INSERT ON workflow_executions BEGIN
        INSERT INTO list_counts (list, scope, bucket, n) VALUES ('runs', NEW.workflow_id, NEW.status, 1)
          ON CONFLICT (list, scope, bucket) DO UPDATE SET n = n + 1;
      END;
      CREATE TRIGGER workflow_executions_count_delete AFTER DELETE ON workflow_executions BEGIN
        UPDATE list_counts SET n = n - 1 WHERE list = 'runs' AND scope = OLD.workflow_id AND bucket = OLD.status;
      END;
      CREATE TRIGGER workflow_executions_count_status AFTER UPDATE OF status ON workflow_executions
        WHEN OLD.status IS NOT NEW.status BEGIN
        UPDATE list_counts SET n = n - 1 WHERE list = 'runs' AND scope = OLD.workflow_id AND bucket = OLD.status;
        INSERT INTO list_counts (list, scope, bucket, n) VALUES ('runs', NEW.workflow_id, NEW.status, 1)
          ON CONFLICT (list, scope, bucket) DO UPDATE SET n = n + 1;
      END;
      INSERT INTO list_counts (list, scope, bucket, n)
        SELECT 'runs', workflow_id, status, COUNT(*) FROM workflow_executions GROUP BY workflow_id, status;
      CREATE TRIGGER deliveries_count_insert AFTER INSERT ON deliveries BEGIN
        INSERT INTO list_counts (list, scope, bucket, n) VALUES ('deliveries', NEW.webhook_id, NEW.status, 1)
          ON CONFLICT (list, scope, bucket) DO UPDATE SET n = n + 1;
      END;
      CREATE TRIGGER deliveries_count_delete AFTER DELETE ON deliveries BEGIN
        UPDATE list_counts SET n = n - 1 WHERE list = 'deliveries' AND scope = OLD.webhook_id AND bucket = OLD.status;
      END;
      CREATE TRIGGER deliveries_count_status AFTER UPDATE OF status ON deliveries
        WHEN OLD.status IS NOT NEW.status BEGIN
        UPDATE list_counts SET n = n - 1 WHERE list = 'deliveries' AND scope = OLD.webhook_id AND bucket = OLD.status;
        INSERT INTO list_counts (list, scope, bucket, n) VALUES ('deliveries', NEW.webhook_id, NEW.status, 1)
          ON CONFLICT (list, scope, bucket) DO UPDATE SET n = n + 1;
      END;
      INSERT INTO list_counts (list, scope, bucket, n)
        SELECT 'deliveries', webhook_id, status, COUNT(*) FROM deliveries GROUP BY webhook_id, status;
      CREATE INDEX workflow_executions_by_status
        ON workflow_executions(workflow_id, status, created_at DESC, id DESC);
      CREATE INDEX deliveries_by_status ON deliveries(webhook_id, status, created_at DESC, id DESC);
    `,
  },
  {
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
  },

  {
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
  },
  {
    // Issue 17 was built as version 10; main had taken 10 and 11 by the time it merged: 12 here.
    version: 12,
    name: 'fixture objects',
    // What `svc fixtures apply` created, under the fixture's names: applying again updates these
    // objects instead of creating new ones. In the store (not a file beside it) so that it
    // commits with the objects, travels with snapshots and is emptied by a reset.
    sql: `
      CREATE TABLE fixture_objects (
        kind         TEXT NOT NULL,
        name         TEXT NOT NULL,
        object_id    TEXT NOT NULL,
        workspace_id TEXT,
        declaration  TEXT NOT NULL,
        digest       TEXT NOT NULL,
        extra        TEXT NOT NULL DEFAULT '{}',
        created_at   INTEGER NOT NULL,
        updated_at   INTEGER NOT NULL,
        PRIMARY KEY (kind, name)
      ) WITHOUT ROWID;
    `,
  },
  {
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
  },
  {
    version: 14,
    name: 'list counts of inserts written by the repositories',
    // The hottest inserts (events, runs, deliveries) had an AFTER INSERT trigger for their
    // list_counts counter; a statement with a trigger opens a statement journal, which costs
    // more than the counter. Their repositories count the rows they insert instead, in the
    // same transaction (ListCountWrites). The counters hold the same numbers: nothing to move.
    sql: `
      DROP TRIGGER IF EXISTS events_count_insert;
      DROP TRIGGER IF EXISTS workflow_executions_count_insert;
      DROP TRIGGER IF EXISTS deliveries_count_insert;
    `,
  },
  {
    version: 15,
    name: 'list counts of status changes written by the repositories',
    // As version 14 for inserts: a run's or a delivery's status UPDATE fired a trigger that moved
    // it between list_counts buckets, and opened a statement journal for it (2.8 µs of a
    // delivery's 13 µs update). RunRepository.save and DeliveryRepository.saveResult move the
    // counts themselves, in the same transaction. The counters hold the same numbers.
    sql: `
      DROP TRIGGER IF EXISTS workflow_executions_count_status;
      DROP TRIGGER IF EXISTS deliveries_count_status;
    `,
  },
  {
    version: 16,
    name: 'one index less on deliveries',
    // deliveries_pending (webhook_id, status) is a prefix of deliveries_by_status (version 9),
    // which serves the same lookups (a webhook's pending deliveries, covering: the id is in it).
    // Each delivery paid for it twice, at its insert and at its status change: ~1.2 µs each.
    sql: `
      DROP INDEX IF EXISTS deliveries_pending;
    `,
  },
  {
    version: 17,
    name: 'rejected agent executions carry approval_rejected',
    // A reviewer's rejection was stored as the error code 'rejected', a code of no table; it is
    // approval_rejected now (shared/errors.ts), the code a workflow step waiting on it had all
    // along. Executions rejected before keep their meaning under the one name.
    sql: `
      UPDATE agent_executions SET error_code = 'approval_rejected' WHERE error_code = 'rejected';
    `,
  },
];
