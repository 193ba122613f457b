import type { Migration } from './migration.js';

export const eventsOfARun: Migration = {
  version: 22,
  name: 'events of a run',
  // A run's event history (the dashboard's run page) reads the events a run published and the
  // deliveries of each. Both were reachable only through the envelope's JSON and a scan of the
  // whole table (a million events: seconds). events.execution_id holds the run of a
  // workflow.execution.* event (null for every other event), indexed only where it is set, so
  // other events pay nothing for it; deliveries_by_event finds an event's deliveries (about a
  // microsecond more per delivery insert). Events stored before are filled in from their
  // envelope.
  sql: `
      ALTER TABLE events ADD COLUMN execution_id TEXT;
      UPDATE events SET execution_id = json_extract(envelope, '$.data.execution_id')
        WHERE substr(type, 1, 19) = 'workflow.execution.';
      CREATE INDEX events_by_execution ON events(execution_id, created_at)
        WHERE execution_id IS NOT NULL;
      CREATE INDEX deliveries_by_event ON deliveries(event_id);
    `,
};
