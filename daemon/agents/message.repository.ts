// Conversation messages between a user and an agent.
import type { CursorPosition } from '../http/pagination.js';
import type { Db } from '../store/database.js';
import { KeysetList, where, type Where } from '../store/keyset-list.js';

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

export class MessageRepository {
  private readonly list: KeysetList<MessageRow>;
  private readonly insertStmt;
  private readonly positionStmt;
  private readonly conversationStmt;
  private readonly periodStmt;

  constructor(db: Db) {
    this.list = new KeysetList<MessageRow>(db, 'agent_messages');
    this.insertStmt = db.prepare(
      `INSERT INTO agent_messages (id, agent_id, workspace_id, conversation_id, role, content, action, confidence, response_time_ms, created_at)
       VALUES (@id, @agent_id, @workspace_id, @conversation_id, @role, @content, @action, @confidence, @response_time_ms, @created_at)`,
    );
    this.positionStmt = db.prepare<[string, string], CursorPosition>(
      'SELECT created_at, id FROM agent_messages WHERE id = ? AND agent_id = ?',
    );
    this.conversationStmt = db.prepare<[string, string], { n: number }>(
      'SELECT COUNT(*) AS n FROM agent_messages WHERE conversation_id = ? AND agent_id = ?',
    );
    this.periodStmt = db.prepare<
      [string, number],
      { replies: number; confidence_sum: number; confident: number; time_sum: number }
    >(
      `SELECT COUNT(*) AS replies, COALESCE(SUM(confidence), 0) AS confidence_sum, COALESCE(SUM(confidence IS NOT NULL), 0) AS confident,
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

  position(agentId: string, id: string): CursorPosition | undefined {
    return this.positionStmt.get(id, agentId);
  }

  page(
    agentId: string,
    conversationId: string | undefined,
    limit: number,
    cursor: CursorPosition | undefined,
  ): MessageRow[] {
    return this.list.page(this.filter(agentId, conversationId), limit, cursor);
  }

  count(agentId: string, conversationId: string | undefined): number {
    return this.list.count(this.filter(agentId, conversationId));
  }

  private filter(agentId: string, conversationId: string | undefined): Where {
    return where(
      ['agent_id = ?', agentId],
      conversationId && ['conversation_id = ?', conversationId],
    );
  }

  replyFigures(agentId: string, since: number) {
    return this.periodStmt.get(agentId, since)!;
  }
}
