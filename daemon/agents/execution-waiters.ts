// Requests waiting for an agent execution to leave processing (wait_for_completion): woken when
// it is decided, or all at once at shutdown, when they answer with the execution as it stands.
import { EventEmitter, once, setMaxListeners } from 'node:events';

export class ExecutionWaiters {
  /** Emits an execution's id when it leaves processing. */
  private readonly settled = new EventEmitter<Record<string, []>>();
  /** Aborted at shutdown: every waiting request answers with the execution as it stands. */
  private readonly closing = new AbortController();

  constructor() {
    this.settled.setMaxListeners(0);
    setMaxListeners(0, this.closing.signal);
  }

  /**
   * Resolves when the execution leaves processing (`processing()` says whether it still is), or
   * at shutdown. The bound is the daemon clock's: the execution's timeout timer fails it
   * (execution_timeout), which settles it.
   */
  async waitFor(executionId: string, processing: () => boolean): Promise<void> {
    if (!processing()) return;
    try {
      await once(this.settled, executionId, { signal: this.closing.signal });
    } catch (error) {
      if (!this.closing.signal.aborted) throw error;
    }
  }

  /** The execution left processing: its waiters answer (after the current microtask). */
  wake(executionId: string): void {
    queueMicrotask(() => this.settled.emit(executionId));
  }

  /** On shutdown: answer every waiting request with the execution as it stands. */
  releaseAll(): void {
    this.closing.abort();
  }
}
