// The progress view of `svc workflows run --wait`, drawn on stderr so that stdout keeps only the
// result. In a terminal it is a live block, one row per step, redrawn in place (like `docker
// compose up`): a spinner while a step runs, then its outcome and duration. Without a terminal
// (or with --json) it appends one plain line per change, which logs and CI read well.
import { Chalk, type ChalkInstance } from 'chalk';
import {
  brief,
  formatDuration,
  isTerminal,
  type Execution,
  type StepResult,
  type WorkflowStep,
} from './workflow-views.js';
import { decideCommand, skipCommand, whenText } from './wake-text.js';

export interface ViewTarget {
  write(text: string): unknown;
}

export interface RunViewOptions {
  /** Redraw in place with a spinner (a TTY); otherwise append plain lines. */
  live: boolean;
  /** Colour (never without a TTY, nor with NO_COLOR). */
  colour: boolean;
  /** Width of the terminal (live rows are cut to it); default (also for 0, an unsized pty) 80. */
  columns?: number;
  /** Milliseconds now, for the running rows' elapsed time (the CLI's own clock). */
  now?: () => number;
  /**
   * The daemon clock now (the sandbox clock), for how far off a wait or a retry is and the
   * `svc clock advance` that skips there; undefined when it could not be read.
   */
  clock?: () => number | undefined;
}

type RowState =
  'running' | 'retrying' | 'waiting' | 'awaiting_approval' | 'completed' | 'failed' | 'other';

interface Row {
  id: string;
  name: string;
  type: string;
  state: RowState;
  status: string;
  attempts: number;
  durationMs: number | null;
  detail: string;
  /** When a waiting or retrying step goes on (the API's wakes_at), else null. */
  wakesAt: string | null;
  /** The agent execution a step awaiting approval waits on. */
  executionId?: string;
  seenAt: number;
}

/** A step result, or just the current step's id when no result names it yet. */
type SeenStep = Pick<StepResult, 'step_id' | 'status' | 'attempt'> & Partial<StepResult>;

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

function rowState(status: string): RowState {
  switch (status) {
    case 'running':
    case 'pending':
      return 'running';
    case 'retrying':
      return 'retrying';
    case 'waiting':
      return 'waiting';
    case 'awaiting_approval':
      return 'awaiting_approval';
    case 'completed':
    case 'succeeded':
      return 'completed';
    case 'failed':
    case 'timeout':
    case 'cancelled':
      return 'failed';
    default:
      return 'other';
  }
}

export class RunView {
  private readonly rows = new Map<string, Row>();
  private readonly chalk: ChalkInstance;
  private readonly now: () => number;
  private drawnLines = 0;
  private frame = 0;
  private timer: NodeJS.Timeout | undefined;
  private execution: Execution | undefined;
  private lastStatus: string | undefined;
  /** The approvals already said (step id and attempt), so a poll repeats none of them. */
  private readonly approvalsSaid = new Set<string>();

  constructor(
    private readonly target: ViewTarget,
    private readonly steps: WorkflowStep[],
    private readonly options: RunViewOptions,
  ) {
    this.chalk = new Chalk({ level: options.colour ? 1 : 0 });
    this.now = options.now ?? Date.now;
    if (options.live) {
      // The spinner and the running rows' elapsed time move between updates.
      this.timer = setInterval(() => {
        this.frame += 1;
        this.draw();
      }, 100);
      this.timer.unref();
    }
  }

  /** Takes the latest execution view; draws (live) or prints what changed (plain). */
  update(execution: Execution): void {
    this.execution = execution;
    const changes: string[] = [];
    if (this.lastStatus === undefined) changes.push(this.startLine(execution));
    // In order, attempt by attempt: a failed attempt seen late still shows before its retry.
    for (const result of execution.step_results) this.apply(result, changes);
    const current = execution.current_step;
    if (current && !this.rows.has(current) && !isTerminal(execution)) {
      this.apply({ step_id: current, status: 'running', attempt: 1 }, changes);
    }
    // The steps awaiting an approval are the ones whose result says so: not the run's current
    // step, which is the first active one (with parallel branches, maybe one that waits).
    const awaiting = execution.step_results.filter(
      (result) => result.status === 'awaiting_approval',
    );
    const unsaid = awaiting.filter((result) => !this.approvalsSaid.has(approvalKey(result)));
    if (execution.status !== this.lastStatus) {
      if (execution.status === 'awaiting_approval') {
        const first = unsaid.shift() ?? awaiting[0];
        if (first) this.approvalsSaid.add(approvalKey(first));
        changes.push(
          `run ${execution.execution_id} awaiting approval${first ? ` at step ${first.step_id}${approvalHint(first)}` : ''}`,
        );
      } else if (isTerminal(execution)) {
        changes.push(`run ${execution.execution_id} ${execution.status}`);
      } else if (this.lastStatus !== undefined) {
        changes.push(`run ${execution.execution_id} ${execution.status}`);
      }
    }
    // Another approval asked while the run already awaited one (parallel branches).
    if (execution.status === 'awaiting_approval') {
      for (const result of unsaid) {
        const row = this.rows.get(result.step_id);
        if (!row || this.approvalsSaid.has(approvalKey(result))) continue;
        this.approvalsSaid.add(approvalKey(result));
        changes.push(this.rowLine(row, `is awaiting approval${approvalHint(result)}`));
      }
    }
    this.lastStatus = execution.status;
    if (this.options.live) this.draw();
    else for (const line of changes) this.target.write(line + '\n');
  }

  /** Stops the spinner and leaves the final block (live) in place. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.options.live) this.draw();
  }

  private startLine(execution: Execution): string {
    return `run ${execution.execution_id} of ${execution.workflow_id} started`;
  }

  private apply(result: SeenStep, changes: string[]): void {
    const step = this.steps.find((candidate) => candidate.id === result.step_id);
    const attempt = result.attempt ?? 1;
    let row = this.rows.get(result.step_id);
    if (!row) {
      row = {
        id: result.step_id,
        name: result.step_name ?? step?.name ?? result.step_id,
        type: result.type ?? step?.type ?? '?',
        state: 'running',
        status: 'running',
        attempts: attempt,
        durationMs: null,
        detail: '',
        wakesAt: null,
        seenAt: this.now(),
      };
      this.rows.set(row.id, row);
      changes.push(this.rowLine(row, 'started'));
    }
    if (attempt < row.attempts) return;
    const state = rowState(result.status);
    let changed = state !== row.state;
    const retried = attempt > row.attempts;
    if (retried) {
      changes.push(this.rowLine(row, `retrying (attempt ${attempt})${this.wakeClause(result)}`));
      changed = true;
    }
    row.attempts = attempt;
    row.status = result.status;
    row.state = state;
    // Real time: on a frozen sandbox clock duration_ms is 0 however long the step took.
    row.durationMs = result.elapsed_ms ?? result.duration_ms ?? null;
    row.detail = this.detailOf(result, state);
    row.wakesAt = result.wakes_at ?? null;
    const pending = (result.result as { agent_execution_id?: unknown } | null | undefined)
      ?.agent_execution_id;
    if (typeof pending === 'string') row.executionId = pending;
    if (!changed) return;
    const nth = attempt > 1 ? ` (attempt ${attempt})` : '';
    if (state === 'completed') {
      changes.push(this.rowLine(row, `completed in ${formatDuration(row.durationMs)}${nth}`));
    } else if (state === 'failed') {
      changes.push(
        this.rowLine(row, `${result.status}${nth}${row.detail ? `: ${row.detail}` : ''}`),
      );
    } else if (state === 'waiting') {
      changes.push(this.rowLine(row, `waiting${this.wakeClause(result)}`));
    } else if (state === 'retrying' && !retried) {
      // First seen already retrying (a run watched from the middle).
      changes.push(this.rowLine(row, `retrying (attempt ${attempt})${this.wakeClause(result)}`));
    } else if (state === 'other') {
      changes.push(this.rowLine(row, result.status));
    }
  }

  private detailOf(result: SeenStep, state: RowState): string {
    if (state === 'failed') {
      const error = result.error ?? errorOf(result.result);
      return error ? `${error.code}: ${error.message}` : brief(result.result, 70);
    }
    if (state === 'completed') return brief(result.result, 50);
    if (state === 'awaiting_approval') {
      const pending = result.result as { agent_id?: unknown; agent_execution_id?: unknown } | null;
      return typeof pending?.agent_execution_id === 'string'
        ? `${pending.agent_execution_id}${typeof pending.agent_id === 'string' ? ` of ${pending.agent_id}` : ''}`
        : '';
    }
    return '';
  }

  /** ", wakes 2026-01-05 09:15:00 (in 15m, sandbox clock); skip there with: svc clock advance 15m" */
  private wakeClause(result: SeenStep): string {
    if (!result.wakes_at) return '';
    const now = this.options.clock?.();
    const skip = skipCommand(result.wakes_at, now);
    return `, ${wakeVerb(result.status)} ${whenText(result.wakes_at, now)}${skip ? `; skip there with: ${skip}` : ''}`;
  }

  private rowLine(row: Row, what: string): string {
    return `step ${row.id} (${row.type}) ${what}`;
  }

  private draw(): void {
    const execution = this.execution;
    if (!execution) return;
    const c = this.chalk;
    const lines: string[] = [];
    const done = execution.steps_completed;
    const total = execution.steps_total;
    lines.push(
      `${c.bold('Run')} ${c.cyan(execution.execution_id)} ${this.statusText(execution.status)} ${c.dim(`${done}/${total} steps`)}`,
    );
    const clockNow = this.options.clock?.();
    let skip: string | undefined;
    let decide: string | undefined;
    const idWidth = Math.max(4, ...[...this.rows.values()].map((row) => row.id.length));
    const typeWidth = Math.max(4, ...[...this.rows.values()].map((row) => row.type.length));
    for (const row of this.rows.values()) {
      const icon = this.icon(row);
      const elapsed =
        row.state === 'completed' || row.state === 'failed'
          ? formatDuration(row.durationMs)
          : formatDuration(this.now() - row.seenAt);
      const attempts = row.attempts > 1 ? c.yellow(` attempt ${row.attempts}`) : '';
      const line = ` ${icon} ${row.id.padEnd(idWidth)}  ${c.dim(row.type.padEnd(typeWidth))}  ${this.stateText(row)}${attempts}  ${c.dim(elapsed)}`;
      // A wrapped row would break the redraw (it moves up by rows, not screen lines).
      const room = (this.options.columns || 80) - visibleLength(line) - 3;
      const waits = row.wakesAt !== null && (row.state === 'waiting' || row.state === 'retrying');
      const text = waits
        ? `${wakeVerb(row.state)} ${whenText(row.wakesAt!, clockNow)}`
        : row.detail;
      if (waits) skip ??= skipCommand(row.wakesAt!, clockNow);
      if (row.state === 'awaiting_approval' && row.executionId)
        decide ??= decideCommand(row.executionId);
      const detail = text && room > 8 ? cut(text, room) : '';
      lines.push(detail ? `${line}  ${c.dim(detail)}` : line);
    }
    if (skip) lines.push(c.dim(` skip the wait with: ${skip}`));
    // Its own line, never cut: the execution id is the whole command (67 columns).
    if (decide) lines.push(c.dim(` decide with: ${decide}`));
    // A block shorter than the last one (the hint gone) blanks the lines it leaves behind.
    while (lines.length < this.drawnLines) lines.push('');
    let out = this.drawnLines ? `\u001b[${this.drawnLines}A` : '';
    for (const line of lines) out += `\u001b[2K${line}\n`;
    this.target.write(out);
    this.drawnLines = lines.length;
  }

  private icon(row: Row): string {
    const c = this.chalk;
    switch (row.state) {
      case 'completed':
        return c.green('✔');
      case 'failed':
        return c.red('✘');
      case 'waiting':
        return c.blue('⏸');
      case 'awaiting_approval':
        return c.yellow('?');
      case 'running':
        return c.cyan(SPINNER[this.frame % SPINNER.length]!);
      case 'retrying':
        return c.yellow('↻');
      case 'other':
        return c.dim('•');
    }
  }

  private stateText(row: Row): string {
    const c = this.chalk;
    const text = row.status.padEnd(17);
    if (row.state === 'completed') return c.green(text);
    if (row.state === 'failed') return c.red(text);
    if (row.state === 'awaiting_approval') return c.yellow(text);
    return text;
  }

  private statusText(status: string): string {
    const c = this.chalk;
    if (status === 'completed') return c.green(status);
    if (status === 'running') return c.cyan(status);
    if (status === 'awaiting_approval') return c.yellow(status);
    return c.red(status);
  }
}

function approvalKey(result: StepResult): string {
  return `${result.step_id}#${result.attempt}`;
}

/** The command that decides a pending approval, from the awaiting step's result. */
function approvalHint(awaiting: StepResult): string {
  const pending = awaiting.result as
    { agent_id?: unknown; agent_execution_id?: unknown } | null | undefined;
  if (typeof pending?.agent_id !== 'string' || typeof pending.agent_execution_id !== 'string')
    return '';
  return ` (decide with: ${decideCommand(pending.agent_execution_id)})`;
}

function wakeVerb(status: string): string {
  return status === 'retrying' ? 'retries' : 'wakes';
}

function visibleLength(text: string): number {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '').length;
}

function cut(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}

function errorOf(result: unknown): { code: string; message: string } | undefined {
  const error = (result as { error?: unknown } | null | undefined)?.error;
  if (error && typeof error === 'object' && typeof (error as { code?: unknown }).code === 'string')
    return error as { code: string; message: string };
  return undefined;
}
