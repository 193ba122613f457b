// Committed changes of runs, for whoever follows them live (the dashboard's open pages).
import { EventEmitter } from 'node:events';
import type { RunRow, RunStatus } from './run.repository.js';

/** A run changed (a step ended, it parked, it ended or was cancelled); the dashboard listens. */
export interface RunChange {
  execution_id: string;
  workflow_id: string;
  workspace_id: string;
  status: RunStatus;
}

export class RunChanges {
  private readonly emitter = new EventEmitter<{ changed: [RunChange] }>();

  constructor() {
    // One listener per open dashboard page: no leak warning past ten of them.
    this.emitter.setMaxListeners(0);
  }

  /** Hears each committed change of a run; returns the function that stops listening. */
  listen(listener: (change: RunChange) => void): () => void {
    this.emitter.on('changed', listener);
    return () => this.emitter.off('changed', listener);
  }

  /** Once the change is committed (the same tick's group commit has ended by then). */
  announce(row: RunRow): void {
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
