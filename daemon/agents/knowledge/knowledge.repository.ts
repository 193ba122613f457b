// Knowledge documents and their text chunks, indexed with SQLite FTS5 for retrieval.
import type { ListQueryInput, Page } from '../../domain/pages.js';
import { LIMIT_PARAM, type Db } from '../../store/database.js';
import { ListQuery } from '../../store/list-query.js';
import { prepareInsert } from '../../store/object-rows.js';

export interface DocumentRow {
  id: string;
  agent_id: string;
  workspace_id: string;
  filename: string;
  format: 'pdf' | 'md' | 'txt' | 'docx';
  type: 'faq' | 'policy' | 'product_info' | 'template';
  description: string | null;
  size_bytes: number;
  chunk_count: number;
  characters: number;
  created_at: number;
}

export interface ChunkMatch {
  text: string;
  document_id: string;
  /** bm25 rank: lower is better (negative numbers). */
  rank: number;
}

export class KnowledgeRepository {
  private readonly insertDocStmt;
  private readonly insertChunkStmt;
  private readonly getStmt;
  private readonly deleteDocStmt;
  private readonly deleteChunksStmt;
  private readonly searchStmt;
  private readonly hasAnyStmt;
  private readonly list: ListQuery<DocumentRow, { agentId: string }>;

  constructor(private readonly db: Db) {
    this.insertDocStmt = prepareInsert(
      db,
      'knowledge_documents',
      'id, agent_id, workspace_id, filename, format, type, description, size_bytes, chunk_count, characters, created_at',
    );
    this.insertChunkStmt = db.prepare(
      'INSERT INTO knowledge_chunks (text, document_id, agent_id, seq) VALUES (?, ?, ?, ?)',
    );
    this.getStmt = db.prepare<[string, string], DocumentRow>(
      'SELECT * FROM knowledge_documents WHERE id = ? AND agent_id = ?',
    );
    this.deleteDocStmt = db.prepare('DELETE FROM knowledge_documents WHERE id = ?');
    this.deleteChunksStmt = db.prepare('DELETE FROM knowledge_chunks WHERE document_id = ?');
    this.searchStmt = db.prepare<[string, string, number], ChunkMatch>(
      `SELECT text, document_id, bm25(knowledge_chunks) AS rank FROM knowledge_chunks WHERE knowledge_chunks MATCH ? AND agent_id = ? ORDER BY rank ${LIMIT_PARAM}`,
    );
    this.hasAnyStmt = db.prepare<[string], { n: number }>(
      'SELECT COUNT(*) AS n FROM knowledge_documents WHERE agent_id = ?',
    );
    this.list = new ListQuery(db, {
      table: 'knowledge_documents',
      scope: { agent_id: 'agentId' },
    });
  }

  /** Stores a document and its chunks atomically. */
  insert(row: DocumentRow, chunks: string[]): void {
    this.db.transaction(() => {
      this.insertDocStmt.run(row);
      chunks.forEach((chunk, seq) => this.insertChunkStmt.run(chunk, row.id, row.agent_id, seq));
    })();
  }

  get(agentId: string, id: string): DocumentRow | undefined {
    return this.getStmt.get(id, agentId);
  }

  delete(id: string): void {
    this.db.transaction(() => {
      this.deleteChunksStmt.run(id);
      this.deleteDocStmt.run(id);
    })();
  }

  search(agentId: string, ftsQuery: string, limit: number): ChunkMatch[] {
    return this.searchStmt.all(ftsQuery, agentId, limit);
  }

  hasDocuments(agentId: string): boolean {
    return (this.hasAnyStmt.get(agentId)?.n ?? 0) > 0;
  }

  page(query: { agentId: string } & ListQueryInput): Page<DocumentRow> {
    return this.list.page(query);
  }
}
