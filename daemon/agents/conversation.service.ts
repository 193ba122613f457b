// Messages: a user writes to an active agent in a conversation (conv_), the agent answers from
// its brain and knowledge; both messages are stored and the reply counts as an interaction.
import { performance } from 'node:perf_hooks';
import { newId } from '../../shared/ids.js';
import type { MessageView } from '../../shared/schemas/agents.js';
import { toIso, type Clock } from '../time/clock.js';
import { ApiError } from '../domain/errors.js';
import { pick } from '../domain/views.js';
import { mapPage, type ListQueryInput, type Page } from '../domain/pages.js';
import type { Transactions } from '../domain/transactions.js';
import type { AgentRepository } from './agent.repository.js';
import type { AgentService } from './agent.service.js';
import type { MessageRepository, MessageRow } from './message.repository.js';
import type { Thinker } from './thinker.js';

/** What ConversationService is built from (app/services.ts passes them by name). */
export interface ConversationServiceDeps {
  db: Transactions;
  repo: MessageRepository;
  agentRepo: AgentRepository;
  agents: AgentService;
  thinker: Thinker;
  clock: Clock;
}

export class ConversationService {
  private readonly db: Transactions;
  private readonly repo: MessageRepository;
  private readonly agentRepo: AgentRepository;
  private readonly agents: AgentService;
  private readonly thinker: Thinker;
  private readonly clock: Clock;

  constructor(deps: ConversationServiceDeps) {
    this.db = deps.db;
    this.repo = deps.repo;
    this.agentRepo = deps.agentRepo;
    this.agents = deps.agents;
    this.thinker = deps.thinker;
    this.clock = deps.clock;
  }

  async send(
    workspaceId: string,
    agentId: string,
    input: { content: string; conversation_id?: string | undefined },
  ): Promise<MessageView> {
    const agent = this.agents.activeRow(workspaceId, agentId);
    const conversationId = input.conversation_id ?? newId('conversation');
    if (input.conversation_id && !this.repo.conversationExists(agent.id, input.conversation_id)) {
      throw new ApiError(
        'not_found',
        `No conversation ${input.conversation_id} with agent ${agentId}. Leave conversation_id out to start one.`,
        {
          param: 'conversation_id',
        },
      );
    }
    const asked = this.clock.now();
    const started = performance.now();
    const thought = await this.thinker.think(
      agent,
      input.content,
      { conversation_id: conversationId },
      this.thinker.stubFor(agent.id, input.content),
    );
    if ('error' in thought) throw thought.error;
    const responseTimeMs = Math.round(performance.now() - started);
    const question: MessageRow = {
      id: newId('message'),
      agent_id: agent.id,
      workspace_id: workspaceId,
      conversation_id: conversationId,
      role: 'user',
      content: input.content,
      action: null,
      confidence: null,
      response_time_ms: null,
      created_at: asked,
    };
    const reply: MessageRow = {
      ...question,
      id: newId('message'),
      role: 'agent',
      content: thought.output,
      action: thought.action,
      confidence: thought.confidence,
      response_time_ms: responseTimeMs,
      created_at: Math.max(this.clock.now(), asked + 1),
    };
    this.db.transaction(() => {
      this.repo.insert(question);
      this.repo.insert(reply);
      this.agentRepo.addStats(
        agent.id,
        { interactions: 1, finished: 0, succeeded: 0, timeMs: null },
        reply.created_at,
      );
    })();
    return toMessageView(reply);
  }

  list(
    workspaceId: string,
    agentId: string,
    query: ListQueryInput & { conversation_id?: string | undefined },
  ): Page<MessageView> {
    const agent = this.agents.row(workspaceId, agentId);
    return mapPage(this.repo.page({ ...query, agentId: agent.id }), toMessageView);
  }
}

function toMessageView(row: MessageRow): MessageView {
  return {
    ...pick(row, ['id', 'agent_id', 'conversation_id', 'role', 'content', 'action', 'confidence']),
    created_at: toIso(row.created_at),
  };
}
