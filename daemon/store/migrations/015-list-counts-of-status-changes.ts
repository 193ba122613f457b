import type { Migration } from './migration.js';

export const listCountsOfStatusChanges: Migration = {
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
};
