// Failed step attempts that will be tried again, told once their transaction has committed. The
// spec's step_completed event is only for a step's final outcome, so nothing else says that an
// attempt failed and a retry is due: the daemon's log (app/failure-log.ts) hears it here, so that
// `svc logs --level warn` shows a webhook step failing on its way to a retry (issue 41).
import { EventEmitter } from 'node:events';
import type { RunRepository, StepRunRow } from './run.repository.js';

/** A step attempt that failed, and when the next one is due. */
export interface StepRetryNotice {
  workspace_id: string;
  workflow_id: string;
  execution_id: string;
  step_id: string;
  step_type: string;
  /** The failed attempt's number. */
  attempt: number;
  code: string | null;
  error: string | null;
  /** When the next attempt is due (daemon clock, ms). */
  retry_at: number;
}

export class StepRetries {
  private readonly emitter = new EventEmitter<{ retried: [StepRetryNotice] }>();

  constructor(private readonly repo: Pick<RunRepository, 'step'>) {}

  /** Hears each failed attempt that will be retried, once it is committed. */
  listen(listener: (notice: StepRetryNotice) => void): void {
    this.emitter.on('retried', listener);
  }

  /**
   * Called inside the transition's transaction with the attempt's row: told after the
   * transaction, only if that row is stored as written (a rolled-back transition left none).
   */
  announce(row: StepRunRow, notice: Omit<StepRetryNotice, 'attempt' | 'code' | 'error'>): void {
    if (this.emitter.listenerCount('retried') === 0) return;
    queueMicrotask(() => {
      const stored = this.repo.step(row.execution_id, row.seq);
      if (stored?.attempt !== row.attempt || stored.status !== row.status) return;
      this.emitter.emit('retried', {
        ...notice,
        attempt: row.attempt,
        code: row.error_code,
        error: row.error_message,
      });
    });
  }
}
