import type { Migration } from './migration.js';

export const attemptsRecordedBeforeSent: Migration = {
  version: 19,
  name: 'attempts recorded before they are sent',
  // A delivery attempt is stored before its POST leaves (outcome 'unknown'), and its answer
  // updates that row (issue 38, item 7): an attempt in flight when the daemon died stays on
  // record and counts toward max_attempts. So the table gets the outcome of each attempt, and
  // response_time_ms becomes nullable (there is none until the answer). SQLite cannot drop a
  // NOT NULL in place: the table is rebuilt once, each stored attempt's outcome read from its
  // status (every stored attempt was answered or failed). Attempts whose delivery is gone are
  // left behind: nothing can show them.
  sql: `
      CREATE TABLE delivery_attempts_v19 (
        delivery_id      TEXT NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
        attempt          INTEGER NOT NULL,
        attempted_at     INTEGER NOT NULL,
        outcome          TEXT NOT NULL CHECK (outcome IN ('unknown', 'delivered', 'failed')),
        http_status      INTEGER,
        response_time_ms INTEGER,
        error            TEXT,
        signature        TEXT,
        response_head    TEXT,
        injected_fault   TEXT,
        PRIMARY KEY (delivery_id, attempt)
      );
      INSERT INTO delivery_attempts_v19 (delivery_id, attempt, attempted_at, outcome, http_status,
          response_time_ms, error, signature, response_head, injected_fault)
        SELECT delivery_id, attempt, attempted_at,
          CASE WHEN http_status BETWEEN 200 AND 299 THEN 'delivered' ELSE 'failed' END,
          http_status, response_time_ms, error, signature, response_head, injected_fault
        FROM delivery_attempts WHERE delivery_id IN (SELECT id FROM deliveries);
      DROP TABLE delivery_attempts;
      ALTER TABLE delivery_attempts_v19 RENAME TO delivery_attempts;
    `,
};
