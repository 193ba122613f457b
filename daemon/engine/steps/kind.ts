// What a step type is to the daemon: one module per type (this folder) holds everything that
// is special about it: its config checks beyond the field schemas of shared/schemas/steps.ts,
// how it runs, and what its result looks like. index.ts is the registry; adding a step type is
// one module here, one line there, and its config fields in shared/schemas/steps.ts.
import type { ExecuteInput, AgentExecutionView } from '../../../shared/schemas/agents.js';
import type { StepType, TypedStep } from '../../../shared/schemas/steps.js';
import type { DecidedExecution } from '../../agents/execution.service.js';
import type { OutboundHttp } from '../../outbound/http.js';
import type { UrlPolicy } from '../../outbound/url-policy.js';
import type { Clock } from '../../time/clock.js';
import type { InterpolationBudget, Scope } from '../expressions.js';
import type { StepOutcome } from './outcome.js';

/** A step of one type. */
export type StepOf<T extends StepType> = Extract<TypedStep, { type: T }>;

/** How agent steps reach the agents' own execution path (guardrails, autonomy, stubs, brains). */
export interface AgentPort {
  /**
   * Decided without waiting (a stub or a local brain), its writes left to the step's
   * transition; undefined, having done nothing, when it needs the network or time.
   */
  decideLocally(
    workspaceId: string,
    agentId: string,
    input: ExecuteInput,
  ): DecidedExecution | undefined;
  /** Decided once the brain answered, its writes left to the step's transition; undefined when it must wait. */
  decideNow(
    workspaceId: string,
    agentId: string,
    input: ExecuteInput,
  ): Promise<DecidedExecution | undefined>;
  /** Stored and finished later (a stub's delay), waited for. */
  execute(
    workspaceId: string,
    agentId: string,
    input: ExecuteInput,
  ): Promise<{ status: 200 | 202; execution: AgentExecutionView }>;
}

/** What running steps needs beyond the run itself. */
export interface StepDeps {
  agents: AgentPort;
  clock: Clock;
  urlPolicy: UrlPolicy;
  outbound: OutboundHttp;
}

export interface StepContext {
  workspaceId: string;
  executionId: string;
  workflowId: string;
  /** This activation's attempt, 1 for the first (retries count up). */
  attempt: number;
  step: TypedStep;
  /** trigger, workflow, steps and each step id: everything but secrets. */
  scope: Scope;
  reveal(name: string): string | undefined;
  /** Wraps a wait that only a later time on the daemon clock ends (a stub's delay). */
  untilDue<T>(waiting: Promise<T>): Promise<T>;
  /**
   * What this attempt's interpolation may produce: the step's bound and what is left of its
   * run's (expressions.ts). Every step type interpolates through it.
   */
  budget: InterpolationBudget;
}

/** One run of one step: its context, its scope with secrets, the secrets it used so far. */
export interface StepRun<S extends TypedStep = TypedStep> {
  context: StepContext;
  step: S;
  scope: Scope;
  /** Secrets the step's expressions read (name -> value), masked out of what it produces. */
  used: ReadonlyMap<string, string>;
  deps: StepDeps;
}

/** What a type's checks may use when a workflow is written (workflows/graph.ts gives it). */
export interface StepCheck {
  /** Where the step is in the request: steps[i]. */
  at: string;
  /** An agent of the workspace has this id. */
  agentExists(agentId: string): boolean;
  /** Checks a literal webhook URL against the outbound policy (throws invalid_url). */
  checkUrl?(url: string, param: string): void;
  /** Refuses a config field: "Step 'x' (type) needs config.key: what." */
  need(key: string, ok: boolean, what: string): void;
  /** Refuses anything else at `param` with this message (400 invalid_step_config). */
  invalid(param: string, message: string): Error;
  /** Checks that a step id names a step of the workflow. */
  reference(param: string, id: unknown): void;
  /** Checks an expression (a condition: no secrets). */
  expression(source: string, param: string, secretsAllowed: boolean): void;
}

export interface StepKind<T extends StepType> {
  /** Checks of the step itself beyond its config (e.g. agent_id), before the config's fields. */
  checkStep?(step: StepOf<T>, check: StepCheck): void;
  /** Checks beyond the config's field schemas (run after them, when the workflow is written). */
  check?(step: StepOf<T>, check: StepCheck): void;
  /**
   * Runs without waiting, when only the store and the CPU are needed: the engine does so in the
   * transaction that reached the step. Undefined, having started nothing, otherwise.
   */
  runNow(run: StepRun<StepOf<T>>): StepOutcome | undefined;
  /** Runs to the outcome when it needs the network or time (after the commit that reached it). */
  runLater?(run: StepRun<StepOf<T>>): Promise<StepOutcome>;
  /**
   * runLater makes a call that must not be repeated unrecorded (a webhook step's request): the
   * attempt's row is stored, and committed, before runLater starts, and an attempt the daemon
   * stopped in counts toward max_attempts (RunDriver).
   */
  callsOut?: true;
  /** The result a wake-up records when the step's wait ends (a wait step's timer). */
  wokenResult?(step: StepOf<T>): unknown;
}
