// Where an agent's answer comes from: a matching sandbox stub first, else the agent's brain
// (its own choice, or the daemon's) fed with the passages of its knowledge that match.
import { ApiError } from '../domain/errors.js';
import type { AgentRow } from './agent.repository.js';
import type { AgentService } from './agent.service.js';
import type { AgentSettings } from './agent-settings.js';
import type { Brain, BrainInput, BrainResult } from './brains/brain.js';
import type { KnowledgeService } from './knowledge/knowledge.service.js';
import type { StubService } from './stub.service.js';

export type Thought = BrainResult | { error: ApiError };

export class Thinker {
  constructor(
    private readonly agents: AgentService,
    private readonly stubs: StubService,
    private readonly knowledge: KnowledgeService,
    private readonly brains: Record<Brain['name'], Brain>,
    private readonly settings: AgentSettings,
  ) {}

  /** Milliseconds a matching stub makes the agent take (0 when none). */
  stubDelay(agentId: string, input: string): number {
    return this.stubs.match(agentId, input)?.delay_ms ?? 0;
  }

  async think(agent: AgentRow, input: string, context: Record<string, unknown>): Promise<Thought> {
    const stubbed = this.fromStub(agent, input);
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
  ): Thought | undefined {
    const stubbed = this.fromStub(agent, input);
    if (stubbed) return stubbed;
    const { brain, brainInput } = this.brainFor(agent, input, context);
    if (!brain.thinkLocally) return undefined;
    try {
      return brain.thinkLocally(brainInput);
    } catch (error) {
      if (error instanceof ApiError) return { error };
      throw error;
    }
  }

  private fromStub(agent: AgentRow, input: string): Thought | undefined {
    const stub = this.stubs.match(agent.id, input);
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
      timeoutMs: this.settings.executionTimeoutMs,
    };
    return { brain, brainInput };
  }
}
