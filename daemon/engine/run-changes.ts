// Committed changes of runs, for whoever follows them live (the dashboard's open pages), on
// every daemon of the sandbox (team mode): each change is told to the others with its commit,
// and what they hear is announced to their own listeners (never told on again).
import { EventEmitter } from 'node:events';
import { ALONE, type TeamNotices } from '../store/team-notices.js';
import { isRunStatus, type RunRow, type RunStatus } from './run.repository.js';

/** A run changed (a step ended, it parked, it ended or was cancelled); the dashboard listens. */
export interface RunChange {
  execution_id: string;
  workflow_id: string;
  workspace_id: string;
  status: RunStatus;
}

export class RunChanges {
  private readonly emitter = new EventEmitter<{ changed: [RunChange] }>();

  constructor(private readonly notices: TeamNotices = ALONE) {
    // One listener per open dashboard page: no leak warning past ten of them.
    this.emitter.setMaxListeners(0);
  }

  /** Hears each committed change of a run; returns the function that stops listening. */
  listen(listener: (change: RunChange) => void): () => void {
    this.emitter.on('changed', listener);
    return () => this.emitter.off('changed', listener);
  }

  /** A change another daemon committed: to the listeners here. */
  heard(change: RunChange): void {
    this.emitter.emit('changed', change);
  }

  /** Once the change is committed (the same tick's group commit has ended by then). */
  announce(row: RunRow): void {
    // With the change's transaction: the others hear it once they can read it.
    if (this.notices.shared) {
      this.notices.notify('run', [row.id, row.workflow_id, row.workspace_id, row.status].join(' '));
    }
    if (this.emitter.listenerCount('changed') === 0) return;
    const change: RunChange = {
      execution_id: row.id,
      workflow_id: row.workflow_id,
      workspace_id: row.workspace_id,
      status: row.status,
    };
    queueMicrotask(() => this.emitter.emit('changed', change));
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
