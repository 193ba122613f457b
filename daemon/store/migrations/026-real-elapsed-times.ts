import type { Migration } from './migration.js';

export const realElapsedTimes: Migration = {
  version: 26,
  name: 'real elapsed times',
  // How long a step attempt and a run took in real time (issue 55): their started_at and
  // completed_at are on the sandbox clock, which a frozen sandbox holds still, so every
  // duration_ms read 0 while a run took seconds. Null for what was stored before this version.
  sql: `
      ALTER TABLE workflow_step_runs ADD COLUMN elapsed_ms INTEGER;
      ALTER TABLE workflow_executions ADD COLUMN real_started_at INTEGER;
      ALTER TABLE workflow_executions ADD COLUMN real_ended_at INTEGER;
    `,
};
