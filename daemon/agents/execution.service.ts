// Agent executions: the brain (or a sandbox stub) proposes {action, output, confidence}; the
// guardrails and the autonomy level decide what happens to it (done, suggested only, waiting
// for approval, or refused); each step is stored with its agent.execution.* event.
//
// With wait_for_completion and nothing to wait for, the whole execution is one transaction.
// Otherwise it is stored as processing and finished by a durable timer (after a stub's delay,
// on the daemon clock), with a second timer that fails it with execution_timeout.
import { performance } from 'node:perf_hooks';
import type { AgentExecutionView, ExecuteInput } from '../../shared/schemas/agents.js';
import type { Clock } from '../time/clock.js';
import type { EventService } from '../events/event.service.js';
import { ApiError } from '../domain/errors.js';
import { mapPage, type ListQueryInput, type Page } from '../domain/pages.js';
import type { CommitQueue } from '../store/commit-queue.js';
import type { Transactions } from '../domain/transactions.js';
import type { DeletedAgent, Hooks } from '../domain/hooks.js';
import type { TimerService } from '../time/timer.service.js';
import type { AgentRepository, AgentRow, StatsDelta } from './agent.repository.js';
import type { AgentService } from './agent.service.js';
import type { AgentSettings } from './agent-settings.js';
import type { ExecutionRepository, ExecutionRow } from './execution.repository.js';
import type { Stub } from './stub.service.js';
import type { Thinker, Thought } from './thinker.js';
import { executionEventData, toExecutionView } from './execution-views.js';
import { ExecutionApprovals, type ApprovalClosing } from './execution-approvals.js';
import {
  answerOf,
  finish,
  judge,
  newExecutionRow,
  type ExecuteAnswer,
  type Outcome,
} from './execution-outcome.js';
import { ExecutionWaiters } from './execution-waiters.js';

const RUN_TIMER = 'agent.execution';
const TIMEOUT_TIMER = 'agent.execution.timeout';
const HOUR = 3_600_000;
export const EXECUTION_RETENTION_MS = 30 * 86_400_000;

/** An execution decided at once whose writes the caller makes (see decideNow). */
export interface DecidedExecution {
  /** Stores the execution, its stats and its events: call it inside a transaction. */
  store(): void;
  /** What execute() answers: the execution, or the ApiError of a failed one (thrown). */
  answer(): ExecuteAnswer;
}

/** What ExecutionService is built from (app/services.ts passes them by name). */
export interface ExecutionServiceDeps {
  db: Transactions;
  commits: CommitQueue;
  repo: ExecutionRepository;
  agentRepo: AgentRepository;
  agents: AgentService;
  thinker: Thinker;
  events: EventService;
  timers: TimerService;
  clock: Clock;
  settings: AgentSettings;
  hooks: Hooks;
}

export class ExecutionService {
  /** Requests waiting for an execution to leave processing. */
  private readonly waiters = new ExecutionWaiters();
  private readonly approvals: ExecutionApprovals;

  private readonly db: Transactions;
  private readonly commits: CommitQueue;
  private readonly repo: ExecutionRepository;
  private readonly agentRepo: AgentRepository;
  private readonly agents: AgentService;
  private readonly thinker: Thinker;
  private readonly events: EventService;
  private readonly timers: TimerService;
  private readonly clock: Clock;
  private readonly settings: AgentSettings;
  private readonly hooks: Hooks;

  constructor(deps: ExecutionServiceDeps) {
    this.db = deps.db;
    this.commits = deps.commits;
    this.repo = deps.repo;
    this.agentRepo = deps.agentRepo;
    this.agents = deps.agents;
    this.thinker = deps.thinker;
    this.events = deps.events;
    this.timers = deps.timers;
    this.clock = deps.clock;
    this.settings = deps.settings;
    this.hooks = deps.hooks;
    const { db, repo, agentRepo, events, timers, clock } = deps;

    this.approvals = new ExecutionApprovals({
      db,
      repo,
      agentRepo,
      events,
      timers,
      clock,
      announce: (row) => this.announce(row),
    });
    timers.register(RUN_TIMER, (payload) =>
      this.runStored((payload as { execution_id: string }).execution_id),
    );
    timers.register(TIMEOUT_TIMER, (payload) =>
      this.timeOut((payload as { execution_id: string }).execution_id),
    );
  }

  /** Starts an execution; answers with the HTTP status and the execution as it stands. */
  async execute(workspaceId: string, agentId: string, input: ExecuteInput): Promise<ExecuteAnswer> {
    const { agent, stub, delayMs } = this.admit(workspaceId, agentId, input);
    if (input.wait_for_completion && delayMs === 0) {
      const decided = await this.decide(agent, workspaceId, input, stub);
      await this.commits.run(decided.store);
      return decided.answer();
    }
    return this.executeLater(agent, workspaceId, input, delayMs);
  }

  /**
   * The whole execution at once, when nothing makes it wait (no stub delay): the brain thinks,
   * the guardrails decide, and the writes (the execution, its stats and events) are left to
   * the caller's transaction, `store()`. The workflow engine stores an agent step's execution
   * in the transition that records the step. Undefined when the execution must wait: use
   * execute().
   */
  async decideNow(
    workspaceId: string,
    agentId: string,
    input: ExecuteInput,
  ): Promise<DecidedExecution | undefined> {
    const { agent, stub, delayMs } = this.admit(workspaceId, agentId, input);
    return delayMs > 0 ? undefined : this.decide(agent, workspaceId, input, stub);
  }

  /**
   * decideNow() without waiting for anything: decided when a stub or a local brain answers
   * (no network, no delay), else undefined and nothing was done. Throws what admission throws
   * (an inactive agent, the hourly guardrail).
   */
  decideLocally(
    workspaceId: string,
    agentId: string,
    input: ExecuteInput,
  ): DecidedExecution | undefined {
    const { agent, stub, delayMs } = this.admit(workspaceId, agentId, input);
    if (delayMs > 0) return undefined;
    const row = this.newRow(agent, workspaceId, input);
    const started = performance.now();
    const thought = this.thinker.thinkLocally(agent, input.input, input.context ?? {}, stub);
    return thought && this.decided(agent, row, thought, started);
  }

  /** The active agent, within its hourly guardrail, the stub that answers and its delay. */
  private admit(
    workspaceId: string,
    agentId: string,
    input: ExecuteInput,
  ): { agent: AgentRow; stub: Stub | undefined; delayMs: number } {
    const agent = this.agents.activeRow(workspaceId, agentId);
    this.checkHourlyLimit(agent);
    const stub = this.thinker.stubFor(agent.id, input.input);
    return { agent, stub, delayMs: stub?.delay_ms ?? 0 };
  }

  private async decide(
    agent: AgentRow,
    workspaceId: string,
    input: ExecuteInput,
    stub: Stub | undefined,
  ): Promise<DecidedExecution> {
    const row = this.newRow(agent, workspaceId, input);
    const started = performance.now();
    const thought = await this.thinker.think(agent, input.input, input.context ?? {}, stub);
    return this.decided(agent, row, thought, started);
  }

  private decided(
    agent: AgentRow,
    row: ExecutionRow,
    thought: Thought,
    started: number,
  ): DecidedExecution {
    const outcome = this.judge(agent, thought);
    const finished = this.finish(row, outcome, Math.round(performance.now() - started));
    return {
      store: () => {
        this.events.publish(
          row.workspace_id,
          'agent.execution.started',
          executionEventData(agent, row),
        );
        this.complete(agent, finished, true);
      },
      answer: () => answerOf(agent, finished),
    };
  }

  /** Stored as processing; a durable timer finishes it after the stub's delay. */
  private async executeLater(
    agent: AgentRow,
    workspaceId: string,
    input: ExecuteInput,
    delayMs: number,
  ): Promise<ExecuteAnswer> {
    const now = this.clock.now();
    const row = this.newRow(agent, workspaceId, input);
    this.db.transaction(() => {
      this.repo.insert(row);
      this.events.publish(workspaceId, 'agent.execution.started', executionEventData(agent, row));
      this.agentRepo.addStats(
        agent.id,
        { interactions: 1, finished: 0, succeeded: 0, timeMs: null },
        now,
      );
      this.timers.schedule(RUN_TIMER, now + delayMs, { execution_id: row.id }, row.id);
      this.timers.schedule(
        TIMEOUT_TIMER,
        now + this.settings.executionTimeoutMs,
        { execution_id: row.id },
        row.id,
      );
    })();
    if (!input.wait_for_completion) return { status: 202, execution: toExecutionView(row) };
    await this.waiters.waitFor(row.id, () => this.repo.get(row.id)?.status === 'processing');
    return answerOf(agent, this.repo.get(row.id)!);
  }

  /** Deletes executions past the 30-day retention on the daemon clock. */
  purgeExpired(): number {
    return this.repo.purgeBefore(this.clock.now() - EXECUTION_RETENTION_MS);
  }

  /** Whose an execution is, knowing its id alone (the dashboard's search box, `svc open`). */
  owner(executionId: string): Pick<ExecutionRow, 'workspace_id' | 'agent_id'> | undefined {
    return this.repo.get(executionId);
  }

  get(workspaceId: string, agentId: string, executionId: string): AgentExecutionView {
    return toExecutionView(this.row(workspaceId, agentId, executionId));
  }

  /** The workspace's executions waiting for a person's decision, newest first (the dashboard). */
  awaitingApproval(workspaceId: string, query: ListQueryInput): Page<AgentExecutionView> {
    return mapPage(this.repo.awaitingApproval({ ...query, workspaceId }), toExecutionView);
  }

  /**
   * An agent's executions, newest first, a page after a cursor (the dashboard's agent page);
   * with `awaiting`, only those waiting for a person's decision.
   */
  listOfAgent(
    workspaceId: string,
    agentId: string,
    query: ListQueryInput & { awaiting?: boolean | undefined },
  ): Page<AgentExecutionView> {
    const agent = this.agents.row(workspaceId, agentId);
    const page = this.repo.ofAgent({ ...query, agentId: agent.id, awaiting: !!query.awaiting });
    return mapPage(page, toExecutionView);
  }

  /** An agent's newest execution, if it has one (the dashboard's agents list). */
  latestOf(agentId: string): AgentExecutionView | undefined {
    const row = this.repo.latestOf(agentId);
    return row && toExecutionView(row);
  }

  /** Executions waiting for a person's decision in every workspace (svc status). */
  awaitingApprovalCount(): number {
    return this.repo.awaitingApprovalCount();
  }

  /** POST .../approve: approve -> completed, reject -> cancelled. */
  decideApproval(
    workspaceId: string,
    agentId: string,
    executionId: string,
    decision: 'approve' | 'reject',
    notes?: string,
  ): AgentExecutionView {
    const row = this.row(workspaceId, agentId, executionId);
    const agent = this.agentRepo.get(row.agent_id) ?? this.agents.row(workspaceId, agentId);
    return toExecutionView(this.approvals.decide(agent, row, decision, notes));
  }

  /**
   * The workflow run that asked for this approval no longer waits for it (inside the transaction
   * that ended the run): the execution is cancelled, its error naming the run (see
   * ExecutionApprovals.closeWithRun). Nothing happens to one decided already.
   */
  closeWithRun(executionId: string, closing: ApprovalClosing): void {
    this.approvals.closeWithRun(executionId, closing);
  }

  private newRow(agent: AgentRow, workspaceId: string, input: ExecuteInput): ExecutionRow {
    return newExecutionRow(agent, workspaceId, input, this.clock.now());
  }

  private checkHourlyLimit(agent: AgentRow): void {
    const limit = this.agents.viewOf(agent).guardrails.rate_limits.actions_per_hour;
    if (limit !== null && this.repo.countSince(agent.id, this.clock.now() - HOUR) >= limit) {
      throw new ApiError(
        'guardrail_violation',
        `Agent ${agent.id} reached its guardrail of ${limit} actions per hour. Try later or raise guardrails.rate_limits.actions_per_hour.`,
        {
          extras: { guardrail: 'rate_limits.actions_per_hour', limit },
        },
      );
    }
  }

  /** Guardrails and autonomy turn a proposal into an outcome. */
  private judge(agent: AgentRow, thought: Thought): Outcome {
    return judge(agent, this.agents.viewOf(agent).guardrails, thought);
  }

  private finish(row: ExecutionRow, outcome: Outcome, timeMs: number): ExecutionRow {
    return finish(row, outcome, timeMs, this.clock.now());
  }

  /**
   * Stores a finished (or now waiting) execution with its stats and event, and wakes waiters.
   * `firstWrite`: the execution was never stored (the one-transaction path): insert it and
   * count the interaction; otherwise update the processing row.
   */
  private complete(agent: AgentRow, row: ExecutionRow, firstWrite: boolean): void {
    if (firstWrite) this.repo.insert(row);
    else {
      this.repo.save(row);
      // Decided: the run and timeout timers have nothing left to do (the firing one included).
      this.timers.cancelOwned(row.id);
    }
    const delta: StatsDelta = {
      interactions: firstWrite ? 1 : 0,
      finished: row.status === 'completed' || row.status === 'failed' ? 1 : 0,
      succeeded: row.status === 'completed' ? 1 : 0,
      timeMs: row.execution_time_ms,
    };
    this.agentRepo.addStats(agent.id, delta, this.clock.now());
    const type =
      row.status === 'completed'
        ? 'agent.execution.completed'
        : row.status === 'awaiting_approval'
          ? 'agent.execution.awaiting_approval'
          : 'agent.execution.failed';
    this.events.publish(row.workspace_id, type, executionEventData(agent, row));
    // An execution stored for the first time already decided has nobody waiting on it yet.
    if (!firstWrite) this.announce(row);
    this.waiters.wake(row.id);
  }

  /** Inside the transaction that stores the decided execution (the engine moves a run on). */
  private announce(row: ExecutionRow): void {
    this.hooks.run('agentExecutionSettled', row);
  }

  /**
   * The agent was deleted (agentDeleted, inside that transaction): its unfinished executions
   * fail with agent_not_found and their event, and their timers go.
   */
  endWorkOf(agent: DeletedAgent): void {
    for (const row of this.repo.unfinishedOf(agent.id)) this.endOrphan(row, agent);
  }

  private endOrphan(row: ExecutionRow, agent: Pick<AgentRow, 'id' | 'name'>): void {
    const failed = this.finish(
      row,
      {
        type: 'failed',
        result: null,
        code: 'agent_not_found',
        message: `Agent ${agent.id} was deleted before the execution finished.`,
      },
      this.clock.now() - row.created_at,
    );
    this.repo.save(failed);
    this.timers.cancelOwned(row.id);
    this.agentRepo.addStats(
      agent.id,
      { interactions: 0, finished: 1, succeeded: 0, timeMs: null },
      this.clock.now(),
    );
    this.events.publish(
      row.workspace_id,
      'agent.execution.failed',
      executionEventData(agent, failed),
    );
    this.announce(failed);
    this.waiters.wake(row.id);
  }

  private async runStored(executionId: string): Promise<void> {
    const row = this.repo.get(executionId);
    if (!row || row.status !== 'processing') return;
    const agent = this.agentRepo.get(row.agent_id);
    if (!agent) return this.endGone(row);
    // The stub is matched again: the delay it set is over, and stubs may have changed meanwhile.
    const thought = await this.thinker.think(
      agent,
      row.input,
      JSON.parse(row.context) as Record<string, unknown>,
      this.thinker.stubFor(agent.id, row.input),
    );
    const finished = this.finish(
      row,
      this.judge(agent, thought),
      this.clock.now() - row.created_at,
    );
    this.db.transaction(() => {
      // The timeout may have won while the brain was thinking.
      if (this.repo.get(executionId)?.status !== 'processing') return;
      this.complete(agent, finished, false);
    })();
  }

  private timeOut(executionId: string): void {
    const row = this.repo.get(executionId);
    if (!row || row.status !== 'processing') return;
    const agent = this.agentRepo.get(row.agent_id);
    if (!agent) return this.endGone(row);
    const seconds = Math.round(this.settings.executionTimeoutMs / 1000);
    const failed = this.finish(
      row,
      {
        type: 'failed',
        result: null,
        code: 'execution_timeout',
        message: `The execution did not finish within ${seconds} s.`,
      },
      this.clock.now() - row.created_at,
    );
    this.db.transaction(() => this.complete(agent, failed, false))();
  }

  /** A handler whose agent is gone ends the execution rather than returning silently. */
  private endGone(row: ExecutionRow): void {
    this.db.transaction(() => {
      if (this.repo.get(row.id)?.status !== 'processing') return;
      this.endOrphan(row, { id: row.agent_id, name: '(deleted agent)' });
    })();
  }

  /** On shutdown: answer every waiting request with the execution as it stands (202 processing). */
  releaseWaiters(): void {
    this.waiters.releaseAll();
  }

  private row(workspaceId: string, agentId: string, executionId: string): ExecutionRow {
    const agent = this.agents.row(workspaceId, agentId);
    const row = this.repo.get(executionId);
    if (
      !row ||
      row.agent_id !== agent.id ||
      row.created_at < this.clock.now() - EXECUTION_RETENTION_MS
    ) {
      throw new ApiError(
        'execution_not_found',
        `No execution ${executionId} for agent ${agentId} (executions are kept 30 days).`,
        { param: 'execution_id' },
      );
    }
    return row;
  }
}
