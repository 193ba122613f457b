import type { Migration } from './migration.js';

export const daemonsAndClaims: Migration = {
  version: 27,
  name: 'daemons and claims',
  // Team mode (issue 54): the daemons serving the sandbox, each with its heartbeat (real time in
  // ms, judged by the store), and what each holds: the timers it claimed (claimed_by) and the
  // step attempts it runs in memory (run_step_claims). A daemon whose heartbeat is older than the
  // lease is lost; the one survivor whose conditional UPDATE sets taken_over_by takes its work.
  // On SQLite (one daemon) only the row of the daemon is written; the claims stay empty.
  sql: `
      CREATE TABLE daemons (
        id             TEXT PRIMARY KEY,
        address        TEXT NOT NULL,
        host           TEXT NOT NULL,
        pid            INTEGER NOT NULL,
        version        TEXT NOT NULL,
        schema_version INTEGER NOT NULL,
        started_at     INTEGER NOT NULL,
        heartbeat_at   INTEGER NOT NULL,
        stopped_at     INTEGER,
        lost_at        INTEGER,
        taken_over_by  TEXT
      );
      ALTER TABLE timers ADD COLUMN claimed_by TEXT;
      CREATE INDEX timers_by_claimant ON timers(claimed_by) WHERE claimed_by IS NOT NULL;
      CREATE TABLE run_step_claims (
        execution_id TEXT NOT NULL,
        act_key      TEXT NOT NULL,
        attempt      INTEGER NOT NULL,
        daemon_id    TEXT NOT NULL,
        claimed_at   INTEGER NOT NULL,
        PRIMARY KEY (execution_id, act_key, attempt)
      );
      CREATE INDEX run_step_claims_by_daemon ON run_step_claims(daemon_id);
    `,
};
