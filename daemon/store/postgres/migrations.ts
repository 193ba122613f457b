// The PostgreSQL store's migrations, numbered as SQLite's (../migrations.ts) so that a version
// means the same schema on both. The PostgreSQL store starts at version 24 (its baseline, the
// whole schema); each later SQLite migration gets its PostgreSQL twin here with the same
// version. The version applied is the one row of svc_schema_version.
import type { Db } from '../db.js';
import type { MigrationContext } from '../migrations.js';
import { SandboxInUseByOlderSchemaError, SchemaTooNewError } from '../store-errors.js';
import { SCHEMA_24 } from './schema-024.js';

export interface PostgresMigration {
  version: number;
  name: string;
  sql: string;
  /** Runs after `sql`, in the same transaction. */
  run?: (db: Db, context: MigrationContext) => void;
}

export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  { version: 24, name: 'baseline: the whole schema of version 24', sql: SCHEMA_24 },
  {
    version: 25,
    name: 'shared texts',
    // ../migrations/025-shared-texts.ts: a large text stored once, by its SHA-256.
    sql: `
      CREATE TABLE shared_texts (
        digest     TEXT COLLATE "C" PRIMARY KEY,
        body       TEXT COLLATE "C" NOT NULL,
        created_at BIGINT NOT NULL
      );
      ALTER TABLE agent_executions ADD COLUMN input_digest TEXT COLLATE "C";
      CREATE INDEX agent_executions_by_input_digest ON agent_executions(input_digest)
        WHERE input_digest IS NOT NULL;
    `,
  },
  {
    version: 26,
    name: 'real elapsed times',
    // ../migrations/026-real-elapsed-times.ts: real time a step attempt and a run took.
    sql: `
      ALTER TABLE workflow_step_runs ADD COLUMN elapsed_ms BIGINT;
      ALTER TABLE workflow_executions ADD COLUMN real_started_at BIGINT;
      ALTER TABLE workflow_executions ADD COLUMN real_ended_at BIGINT;
    `,
  },
  {
    version: 27,
    name: 'daemons and claims',
    // ../migrations/027-daemons-and-claims.ts: the daemons serving the sandbox and their claims.
    sql: `
      CREATE TABLE daemons (
        id             TEXT COLLATE "C" PRIMARY KEY,
        address        TEXT COLLATE "C" NOT NULL,
        host           TEXT COLLATE "C" NOT NULL,
        pid            BIGINT NOT NULL,
        version        TEXT COLLATE "C" NOT NULL,
        schema_version BIGINT NOT NULL,
        started_at     BIGINT NOT NULL,
        heartbeat_at   BIGINT NOT NULL,
        stopped_at     BIGINT,
        lost_at        BIGINT,
        taken_over_by  TEXT COLLATE "C"
      );
      ALTER TABLE timers ADD COLUMN claimed_by TEXT COLLATE "C";
      CREATE INDEX timers_by_claimant ON timers(claimed_by) WHERE claimed_by IS NOT NULL;
      CREATE TABLE run_step_claims (
        execution_id TEXT COLLATE "C" NOT NULL,
        act_key      TEXT COLLATE "C" NOT NULL,
        attempt      BIGINT NOT NULL,
        daemon_id    TEXT COLLATE "C" NOT NULL,
        claimed_at   BIGINT NOT NULL,
        PRIMARY KEY (execution_id, act_key, attempt)
      );
      CREATE INDEX run_step_claims_by_daemon ON run_step_claims(daemon_id);
    `,
  },
  {
    version: 28,
    name: 'rate counters',
    // ../migrations/028-rate-counters.ts: rate-limit windows every daemon counts in.
    sql: `
      CREATE TABLE rate_counters (
        bucket TEXT COLLATE "C" NOT NULL,
        key TEXT COLLATE "C" NOT NULL,
        window_start BIGINT NOT NULL,
        reset_at BIGINT NOT NULL,
        count BIGINT NOT NULL,
        PRIMARY KEY (bucket, key, window_start)
      );
      CREATE INDEX rate_counters_by_reset ON rate_counters(reset_at);
    `,
  },
  {
    version: 29,
    name: 'dashboard sessions',
    // ../migrations/029-dashboard-sessions.ts: a dashboard login works on every daemon.
    sql: `
      CREATE TABLE dashboard_login_tokens (
        token_hash TEXT COLLATE "C" PRIMARY KEY,
        expires_at BIGINT NOT NULL
      );
      CREATE TABLE dashboard_sessions (
        session_hash TEXT COLLATE "C" PRIMARY KEY,
        last_seen_at BIGINT NOT NULL
      );
      CREATE INDEX dashboard_sessions_by_last_seen ON dashboard_sessions(last_seen_at);
    `,
  },
  {
    version: 30,
    name: 'cassettes',
    // ../migrations/030-cassettes.ts: every daemon records into and replays from one cassette.
    sql: `
      CREATE TABLE cassettes (
        name TEXT COLLATE "C" PRIMARY KEY,
        data TEXT COLLATE "C" NOT NULL,
        updated_at BIGINT NOT NULL
      );
    `,
  },
];

/** The version that made the `daemons` table (team mode). */
const DAEMONS_VERSION = 27;
/** A daemon whose heartbeat is younger than this is live (cluster/lease.ts LEASE_MS). */
const LIVE_MS = 8_000;

/**
 * Daemons of the older version serve the sandbox (their heartbeat is within the lease, they
 * neither stopped nor were taken over): migrating under them would break them. Refused.
 */
function refuseUnderLiveDaemons(db: Db, schema: string, current: number, latest: number): void {
  const live = db
    .prepare<[number], { address: string; host: string; pid: number }>(
      `SELECT address, host, pid FROM daemons WHERE stopped_at IS NULL AND taken_over_by IS NULL
         AND heartbeat_at >= CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT) - ?
       ORDER BY started_at`,
    )
    .all(LIVE_MS);
  if (live.length > 0) {
    throw new SandboxInUseByOlderSchemaError(
      schema,
      current,
      latest,
      live.map((row) => ({ ...row, pid: Number(row.pid) })),
    );
  }
}

/** The table that records the schema's version (PostgreSQL has no user_version). */
export const VERSION_TABLE = 'svc_schema_version';

/**
 * Brings the schema on the search_path up to the last migration, one transaction each. Two
 * daemons opening the same sandbox at once take turns (an advisory lock on the schema's name).
 */
export function migratePostgres(
  db: Db,
  schema: string,
  migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS,
  context: MigrationContext = {},
): void {
  const latest = migrations.at(-1)?.version ?? 0;
  db.transaction(() => {
    db.prepare('SELECT pg_advisory_xact_lock(hashtext(?))').get(`svc schema ${schema}`);
    db.exec(`CREATE TABLE IF NOT EXISTS ${VERSION_TABLE} (version BIGINT NOT NULL)`);
    const row = db.prepare<[], { version: number }>(`SELECT version FROM ${VERSION_TABLE}`).get();
    const current = row?.version ?? 0;
    if (current > latest) throw new SchemaTooNewError(current, latest);
    if (current >= DAEMONS_VERSION && current < latest)
      refuseUnderLiveDaemons(db, schema, current, latest);
    if (!row) db.prepare(`INSERT INTO ${VERSION_TABLE} (version) VALUES (0)`).run();
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      db.transaction(() => {
        db.exec(migration.sql);
        migration.run?.(db, context);
        db.prepare(`UPDATE ${VERSION_TABLE} SET version = ?`).run(migration.version);
      })();
    }
  })();
}
