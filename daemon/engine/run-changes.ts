// Committed changes of runs, for whoever follows them live (svc workflows wait, settle, the
// dashboard's open pages): the runChanged hook (domain/hooks.ts).
import type { Hooks, RunChange } from '../domain/hooks.js';
import type { RunRow } from './run.repository.js';

export type { RunChange };

export class RunChanges {
  constructor(private readonly hooks: Hooks) {}

  /** Once the change is committed (the same tick's group commit has ended by then). */
  announce(row: RunRow): void {
    if (!this.hooks.has('runChanged')) return;
    const change: RunChange = {
      execution_id: row.id,
      workflow_id: row.workflow_id,
      workspace_id: row.workspace_id,
      status: row.status,
    };
    queueMicrotask(() => this.hooks.run('runChanged', change));
  }
}
