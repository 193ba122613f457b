// Conversation messages between a user and an agent.
import type { ListQueryInput, Page } from '../domain/pages.js';
import type { Db } from '../store/db.js';
import { ListQuery } from '../store/list-query.js';
import { prepareInsert } from '../store/object-rows.js';

export interface MessageRow {
  id: string;
  agent_id: string;
  workspace_id: string;
  conversation_id: string;
  role: 'user' | 'agent';
  content: string;
  action: string | null;
  confidence: number | null;
  response_time_ms: number | null;
  created_at: number;
}

export interface MessageListQuery {
  agentId: string;
  conversation_id?: string | undefined;
}

export class MessageRepository {
  private readonly list: ListQuery<MessageRow, MessageListQuery>;
  private readonly insertStmt;
  private readonly conversationStmt;
  private readonly periodStmt;

  constructor(db: Db) {
    this.list = new ListQuery(db, {
      table: 'agent_messages',
      scope: { agent_id: 'agentId' },
      filters: { conversation_id: 'conversation_id' },
    });
    this.insertStmt = prepareInsert(
      db,
      'agent_messages',
      'id, agent_id, workspace_id, conversation_id, role, content, action, confidence, response_time_ms, created_at',
    );
    this.conversationStmt = db.prepare<[string, string], { n: number }>(
      'SELECT COUNT(*) AS n FROM agent_messages WHERE conversation_id = ? AND agent_id = ?',
    );
    this.periodStmt = db.prepare<
      [string, number],
      { replies: number; confidence_sum: number; confident: number; time_sum: number }
    >(
      `SELECT COUNT(*) AS replies, COALESCE(SUM(confidence), 0) AS confidence_sum, COALESCE(SUM(CASE WHEN confidence IS NOT NULL THEN 1 ELSE 0 END), 0) AS confident,
         COALESCE(SUM(response_time_ms), 0) AS time_sum
       FROM agent_messages WHERE agent_id = ? AND role = 'agent' AND created_at >= ?`,
    );
  }

  insert(row: MessageRow): void {
    this.insertStmt.run(row);
  }

  conversationExists(agentId: string, conversationId: string): boolean {
    return (this.conversationStmt.get(conversationId, agentId)?.n ?? 0) > 0;
  }

  page(query: MessageListQuery & ListQueryInput): Page<MessageRow> {
    return this.list.page(query);
  }

  replyFigures(agentId: string, since: number) {
    return this.periodStmt.get(agentId, since)!;
  }
}
