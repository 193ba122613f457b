import type { Migration } from './migration.js';

export const attemptsRecordedBeforeSent: Migration = {
  version: 19,
  name: 'attempts recorded before they are sent',
  // A delivery attempt is stored before its POST leaves (outcome 'unknown'), and its answer
  // updates that row (issue 38, item 7): an attempt in flight when the daemon died stays on
  // record and counts toward max_attempts. Each attempt gets its outcome; the attempts stored
  // before this version were all answered (or failed), so theirs is read from their status.
  // response_time_ms stays NOT NULL (SQLite cannot relax it without rebuilding the table): an
  // attempt not answered holds 0 there, and the API shows null while its outcome is unknown.
  sql: `
      ALTER TABLE delivery_attempts ADD COLUMN outcome TEXT NOT NULL DEFAULT 'unknown'
        CHECK (outcome IN ('unknown', 'delivered', 'failed'));
      UPDATE delivery_attempts
        SET outcome = CASE WHEN http_status BETWEEN 200 AND 299 THEN 'delivered' ELSE 'failed' END;
    `,
};
