// Committed changes of runs, for whoever follows them live (svc workflows wait, settle, the
// dashboard's open pages): the runChanged hook (domain/hooks.ts), on every daemon of the sandbox
// (team mode): each change is told to the others with its commit, and what they hear is run
// through their own hook (never told on again).
import type { Hooks, RunChange } from '../domain/hooks.js';
import { ALONE, type TeamNotices } from '../store/team-notices.js';
import { isRunStatus, type RunRow } from './run.repository.js';

export type { RunChange };

export class RunChanges {
  constructor(
    private readonly hooks: Hooks,
    private readonly notices: TeamNotices = ALONE,
  ) {}

  /** A change another daemon committed: to the listeners here. */
  heard(change: RunChange): void {
    this.hooks.run('runChanged', change);
  }

  /** Once the change is committed (the same tick's group commit has ended by then). */
  announce(row: RunRow): void {
    // With the change's transaction: the others hear it once they can read it.
    if (this.notices.shared) {
      this.notices.notify('run', [row.id, row.workflow_id, row.workspace_id, row.status].join(' '));
    }
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

/** A change another daemon told (RunChanges.announce's payload); undefined if not one. */
export function heardRunChange(payload: string): RunChange | undefined {
  const [execution_id, workflow_id, workspace_id, status] = payload.split(' ');
  if (!execution_id || !workflow_id || !workspace_id || !status || !isRunStatus(status)) {
    return undefined;
  }
  return { execution_id, workflow_id, workspace_id, status };
}
