// Failed step attempts that will be tried again, told once their transaction has committed. The
// spec's step_completed event is only for a step's final outcome, so nothing else says that an
// attempt failed and a retry is due: the daemon's log (app/failure-log.ts) hears it here, so that
// `svc logs --level warn` shows a webhook step failing on its way to a retry (issue 41).
import type { Hooks, StepRetryNotice } from '../domain/hooks.js';
import type { RunRepository, StepRunRow } from './run.repository.js';

export type { StepRetryNotice };

/** Tells the stepRetrying hook (domain/hooks.ts). */
export class StepRetries {
  constructor(
    private readonly repo: Pick<RunRepository, 'step'>,
    private readonly hooks: Hooks,
  ) {}

  /**
   * Called inside the transition's transaction with the attempt's row: told after the
   * transaction, only if that row is stored as written (a rolled-back transition left none).
   */
  announce(row: StepRunRow, notice: Omit<StepRetryNotice, 'attempt' | 'code' | 'error'>): void {
    if (!this.hooks.has('stepRetrying')) return;
    queueMicrotask(() => {
      const stored = this.repo.step(row.execution_id, row.seq);
      if (stored?.attempt !== row.attempt || stored.status !== row.status) return;
      this.hooks.run('stepRetrying', {
        ...notice,
        attempt: row.attempt,
        code: row.error_code,
        error: row.error_message,
      });
    });
  }
}
