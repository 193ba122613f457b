// What a run keeps in memory while it is active here: the results of its completed steps (the
// scope of the steps after them) and its trigger. Only a cache, as the engine's invariant says:
// after a restart, or once evicted, a run's memory is rebuilt from its stored step rows.
import type { RunRepository, RunRow, StepRunRow } from './run.repository.js';
import type { RunState } from './views.js';

/** trigger.* of a run's scope. */
export interface RunTrigger {
  type: string;
  payload: unknown;
  headers: Record<string, string>;
}

interface Memory {
  results: Map<string, unknown>;
  /**
   * Characters interpolated by steps running here after a commit whose outcomes are not recorded
   * yet, by activation key (their run's budget counts them: StepContexts).
   */
  reserved?: Map<string, number>;
  /** The run's recorded count (RunState.interpolated) as the last transition here left it. */
  interpolated?: number;
  /** trigger.* of the scope, parsed once (steps only read it). */
  trigger?: RunTrigger;
}

/** Runs (and final views, see RunViews) kept at most: past it the cache starts again empty. */
export const MEMORY_LIMIT = 20_000;

/** The results of a run's completed steps by step id, from its step rows. */
export function completedResults(steps: readonly StepRunRow[]): Map<string, unknown> {
  const results = new Map<string, unknown>();
  for (const step of steps) {
    if (step.status === 'completed') {
      results.set(step.step_id, step.result === null ? null : JSON.parse(step.result));
    }
  }
  return results;
}

export class RunMemory {
  private readonly memory = new Map<string, Memory>();

  constructor(private readonly repo: Pick<RunRepository, 'steps'>) {}

  /** A run that starts here: its results so far and its trigger are at hand, nothing to read. */
  keep(executionId: string, results: Map<string, unknown>, trigger?: RunTrigger): void {
    this.store(executionId, trigger ? { results, trigger } : { results });
  }

  has(executionId: string): boolean {
    return this.memory.has(executionId);
  }

  /** The run ended, or a transition of it could not be stored: rebuilt if it is needed again. */
  forget(executionId: string): void {
    this.memory.delete(executionId);
  }

  /** The run's trigger if it is in memory (never read from the store for this). */
  triggerOf(executionId: string): RunTrigger | undefined {
    return this.memory.get(executionId)?.trigger;
  }

  remember(executionId: string, stepId: string, result: unknown): void {
    this.memoryOf(executionId).results.set(stepId, result ?? null);
  }

  /** A step running after a commit interpolated `used` characters so far (see StepContexts). */
  reserve(executionId: string, key: string, used: number): void {
    const memory = this.memoryOf(executionId);
    (memory.reserved ??= new Map()).set(key, used);
  }

  /** The step's outcome was recorded (its characters are in the run's state) or dropped. */
  release(executionId: string, key: string): void {
    this.memory.get(executionId)?.reserved?.delete(key);
  }

  /**
   * A transition recorded the run's count (inside its transaction: rolled back, the next try
   * sets it again from the store; failing, the driver forgets the run's memory).
   */
  noteInterpolated(executionId: string, total: number): void {
    const memory = this.memory.get(executionId);
    if (memory) memory.interpolated = total;
  }

  /** The run's count as the last transition here recorded it (0 when none did). */
  interpolatedOf(executionId: string): number {
    return this.memory.get(executionId)?.interpolated ?? 0;
  }

  /** Characters reserved by the run's steps running here, but the one of `key`. */
  reservedBesides(executionId: string, key: string): number {
    const reserved = this.memory.get(executionId)?.reserved;
    let sum = 0;
    if (reserved) for (const [other, used] of reserved) if (other !== key) sum += used;
    return sum;
  }

  /** Whether the run has completed this step already. */
  completed(executionId: string, stepId: string): boolean {
    return this.memoryOf(executionId).results.has(stepId);
  }

  resultOf(executionId: string, stepId: string): unknown {
    return this.memoryOf(executionId).results.get(stepId) ?? null;
  }

  /** trigger, workflow, steps.<id>.result and <id>.result (secrets are added by the runner). */
  scope(row: RunRow, state: RunState): Record<string, unknown> {
    const memory = this.memoryOf(row.id);
    const steps: Record<string, { result: unknown }> = {};
    let last: unknown = null;
    for (const [id, result] of memory.results) {
      steps[id] = { result };
      last = result;
    }
    memory.trigger ??= {
      type: row.trigger_type,
      payload: JSON.parse(row.input) as unknown,
      headers: state.headers ?? {},
    };
    return {
      ...steps,
      trigger: memory.trigger,
      steps,
      workflow: { execution_id: row.id, workflow_id: row.workflow_id, result: last },
    };
  }

  private memoryOf(executionId: string): Memory {
    let memory = this.memory.get(executionId);
    if (!memory) {
      // Rebuilt from the stored step rows (after a restart, or once evicted).
      memory = { results: completedResults(this.repo.steps(executionId)) };
      this.store(executionId, memory);
    }
    return memory;
  }

  private store(executionId: string, memory: Memory): void {
    if (this.memory.size >= MEMORY_LIMIT) this.memory.clear();
    this.memory.set(executionId, memory);
  }
}
