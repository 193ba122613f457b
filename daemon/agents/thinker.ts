// Where an agent's answer comes from: a matching sandbox stub first, else the agent's brain
// (its own choice, or the daemon's) fed with the passages of its knowledge that match.
import { ApiError } from '../domain/errors.js';
import type { AgentRow } from './agent.repository.js';
import type { AgentService } from './agent.service.js';
import type { AgentSettings } from './agent-settings.js';
import type { Brain, BrainResult } from './brains/brain.js';
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
    const stub = this.stubs.match(agent.id, input);
    if (stub?.fail)
      return {
        error: new ApiError(
          stub.fail,
          `The sandbox stub ${stub.id} fails inputs matching '${stub.match}' with ${stub.fail}.`,
        ),
      };
    if (stub?.result) return stub.result;
    const profile = this.agents.profile(agent);
    const brain = this.brains[profile.brain?.provider ?? this.settings.brain];
    try {
      return await brain.think({
        agent: profile,
        input,
        context,
        passages: this.knowledge.retrieve(agent.id, input),
        timeoutMs: this.settings.executionTimeoutMs,
      });
    } catch (error) {
      if (error instanceof ApiError) return { error };
      throw error;
    }
  }
}
