// Where an agent's answer comes from: a matching sandbox stub first, else the agent's brain
// (its own choice, or the daemon's) fed with the passages of its knowledge that match. An
// action asked for (context.action: a workflow step's config.action) is checked first: one
// whose capability is false fails the execution, naming the actions the agent may take.
import { ApiError } from '../domain/errors.js';
import type { FaultCall, InjectedFault } from '../faults/fault.service.js';
import type { AgentRow } from './agent.repository.js';
import type { AgentService } from './agent.service.js';
import type { AgentSettings } from './agent-settings.js';
import type { Brain, BrainInput, BrainResult } from './brains/brain.js';
import { knownAllowedActions } from './brains/classify.js';
import type { KnowledgeService } from './knowledge/knowledge.service.js';
import type { Stub, StubService } from './stub.service.js';

/** A proposal, or why there is none (`injectedFault`: a sandbox fault rule made it fail). */
export type Thought = BrainResult | { error: ApiError; injectedFault?: string | undefined };

/** The sandbox's fault rules, as agents ask them (FaultService). */
export interface AgentFaults {
  decide(call: FaultCall): InjectedFault | undefined;
}

/** What Thinker is built from (app/services.ts passes them by name). */
export interface ThinkerDeps {
  agents: AgentService;
  stubs: StubService;
  knowledge: KnowledgeService;
  brains: Record<Brain['name'], Brain>;
  settings: AgentSettings;
  faults?: AgentFaults;
}

export class Thinker {
  private readonly agents: AgentService;
  private readonly stubs: StubService;
  private readonly knowledge: KnowledgeService;
  private readonly brains: Record<Brain['name'], Brain>;
  private readonly settings: AgentSettings;
  private readonly faults: AgentFaults | undefined;

  constructor(deps: ThinkerDeps) {
    this.agents = deps.agents;
    this.stubs = deps.stubs;
    this.knowledge = deps.knowledge;
    this.brains = deps.brains;
    this.settings = deps.settings;
    this.faults = deps.faults;
  }

  /**
   * The sandbox stub that answers this input, if any (its delay_ms is how long the agent takes).
   * Matched once per execution (each stub's pattern runs on RE2) and passed to think() or
   * thinkLocally().
   */
  stubFor(agentId: string, input: string): Stub | undefined {
    return this.stubs.match(agentId, input);
  }

  async think(
    agent: AgentRow,
    input: string,
    context: Record<string, unknown>,
    stub: Stub | undefined,
  ): Promise<Thought> {
    const refused = this.refusedAction(agent, context);
    if (refused) return refused;
    const injected = this.fromFault(agent, input);
    if (injected) return injected;
    const stubbed = this.fromStub(stub);
    if (stubbed) return stubbed;
    const { brain, brainInput } = this.brainFor(agent, input, context);
    try {
      return await brain.think(brainInput);
    } catch (error) {
      if (error instanceof ApiError) return { error };
      throw error;
    }
  }

  /**
   * The thought at once when neither a network nor time is needed (a stub, or a local brain
   * such as the simulated one); undefined when only think() can answer. No side effects.
   */
  thinkLocally(
    agent: AgentRow,
    input: string,
    context: Record<string, unknown>,
    stub: Stub | undefined,
  ): Thought | undefined {
    const refused = this.refusedAction(agent, context);
    if (refused) return refused;
    const { brain, brainInput } = this.brainFor(agent, input, context);
    // Fault rules are asked once per execution: here only when this answers, else in think().
    const local = brain.thinkLocally !== undefined && (brain.answersLocally?.(brainInput) ?? true);
    if (!stub?.fail && !stub?.result && !local) return undefined;
    const injected = this.fromFault(agent, input);
    if (injected) return injected;
    const stubbed = this.fromStub(stub);
    if (stubbed) return stubbed;
    if (!local) return undefined;
    try {
      return brain.thinkLocally!(brainInput);
    } catch (error) {
      if (error instanceof ApiError) return { error };
      throw error;
    }
  }

  /**
   * A sandbox fault rule on this agent (svc faults --agent) fails the execution as the brain
   * would have: --fail CODE with that code, --timeout as execution_timeout, --status and
   * --reset as the model endpoint's external_api_error.
   */
  private fromFault(agent: AgentRow, input: string): Thought | undefined {
    const fault = this.faults?.decide({
      point: 'agent',
      workspaceId: agent.workspace_id,
      agentId: agent.id,
      matchText: () => input,
    });
    if (!fault) return undefined;
    const marked = `(injected by the sandbox fault rule ${fault.id})`;
    let error: ApiError;
    const extras = { extras: { injected_fault: fault.id } };
    if (fault.fail) {
      error = new ApiError(
        fault.fail,
        `Agent ${agent.id} failed with ${fault.fail} ${marked}.`,
        extras,
      );
    } else if (fault.timeout) {
      error = new ApiError(
        'execution_timeout',
        `Agent ${agent.id}'s model did not answer in time ${marked}.`,
        extras,
      );
    } else {
      const what = fault.status !== null ? `answered HTTP ${fault.status}` : 'reset the connection';
      error = new ApiError(
        'external_api_error',
        `Agent ${agent.id}'s model endpoint ${what} ${marked}.`,
        extras,
      );
    }
    return { error, injectedFault: fault.id };
  }

  /** A failure when the action asked for is one the agent may not take (capability false). */
  private refusedAction(agent: AgentRow, context: Record<string, unknown>): Thought | undefined {
    const action = askedAction(context);
    if (action === undefined) return undefined;
    const { capabilities } = this.agents.profile(agent);
    if (capabilities[action] !== false) return undefined;
    const allowed = knownAllowedActions(capabilities);
    const step = typeof context.step_id === 'string' ? `Step '${context.step_id}' asks` : 'Asked';
    return {
      error: new ApiError(
        'guardrail_violation',
        `${step} agent ${agent.id} to take the action '${action}', which its capabilities switch off (capabilities.${action} is false). It may take ${allowed.join(', ')}, or any other action whose capability is not false: change the step's config.action, or set capabilities.${action} to true on the agent.`,
        { extras: { guardrail: 'capabilities', action, allowed_actions: allowed } },
      ),
    };
  }

  private fromStub(stub: Stub | undefined): Thought | undefined {
    if (stub?.fail)
      return {
        error: new ApiError(
          stub.fail,
          `The sandbox stub ${stub.id} fails inputs matching '${stub.match}' with ${stub.fail}.`,
        ),
      };
    return stub?.result ?? undefined;
  }

  private brainFor(
    agent: AgentRow,
    input: string,
    context: Record<string, unknown>,
  ): { brain: Brain; brainInput: BrainInput } {
    const profile = this.agents.profile(agent);
    const brain = this.brains[profile.brain?.provider ?? this.settings.brain];
    const brainInput: BrainInput = {
      agent: profile,
      input,
      context,
      passages: this.knowledge.retrieve(agent.id, input),
      action: askedAction(context),
      timeoutMs: this.settings.executionTimeoutMs,
    };
    return { brain, brainInput };
  }
}

/**
 * The action asked for in an execution's context (a workflow step puts its config.action
 * there), in the snake_case every answer's action has ("Send-Email" asks for send_email); none
 * when it has no letter or digit.
 */
function askedAction(context: Record<string, unknown>): string | undefined {
  if (typeof context.action !== 'string') return undefined;
  const action = context.action
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 100);
  return action === '' ? undefined : action;
}
