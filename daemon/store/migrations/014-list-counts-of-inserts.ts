import type { Migration } from './migration.js';

export const listCountsOfInserts: Migration = {
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
};
