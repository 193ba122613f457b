// Rows the benches copy straight into a store (thousands of runs or events in a transaction)
// bypass the daemon's repositories, which count what they insert into the list counters
// (daemon/store/list-counts.ts, ListCountWrites). So the copies are counted here, or the
// lists' total_count would leave them out.
import type Database from 'better-sqlite3';

/** The counter (list_counts list, scope column, bucket column) a row of each table adds to. */
const COUNTERS = {
  events: { list: 'events', scope: 'workspace_id', bucket: 'type' },
  workflow_executions: { list: 'runs', scope: 'workflow_id', bucket: 'status' },
  deliveries: { list: 'deliveries', scope: 'webhook_id', bucket: 'status' },
} as const;

/** Adds `count` to the counter of the stored row `modelId` of `table`: copies of it were stored. */
export function countCopies(
  db: Database.Database,
  table: keyof typeof COUNTERS,
  modelId: string,
  count: number,
): void {
  const { list, scope, bucket } = COUNTERS[table];
  db.prepare(
    `INSERT INTO list_counts (list, scope, bucket, n)
     SELECT ?, ${scope}, ${bucket}, ? FROM ${table} WHERE id = ?
     ON CONFLICT (list, scope, bucket) DO UPDATE SET n = n + excluded.n`,
  ).run(list, count, modelId);
}
