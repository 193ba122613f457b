// Knowledge documents and their passages, indexed for full-text search (stemmed, so that word
// forms match: "ship" finds "shipping"; store/dialect.ts says how on each store) for retrieval.
import type { ListQueryInput, Page } from '../../domain/pages.js';
import type { Db } from '../../store/db.js';
import { passageSearch, type PassageSearch } from '../../store/dialect.js';
import { ListQuery } from '../../store/list-query.js';
import { prepareInsert } from '../../store/object-rows.js';
import type { Chunk } from './chunk.js';

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
  heading: string | null;
  text: string;
  document_id: string;
  /** How many of the searched terms the passage (heading or text) contains. */
  covered: number;
}

/** A stored passage of a document, in the document's order (seq from 0). */
export interface PassageRow {
  seq: number;
  heading: string | null;
  text: string;
}

export class KnowledgeRepository {
  private readonly insertDocStmt;
  private readonly insertChunkStmt;
  private readonly getStmt;
  private readonly deleteDocStmt;
  private readonly deleteChunksStmt;
  private readonly searchStmt;
  private readonly passageQuery: PassageSearch;
  private readonly hasAnyStmt;
  private readonly passagesStmt;
  private readonly list: ListQuery<DocumentRow, { agentId: string }>;

  constructor(private readonly db: Db) {
    this.insertDocStmt = prepareInsert(
      db,
      'knowledge_documents',
      'id, agent_id, workspace_id, filename, format, type, description, size_bytes, chunk_count, characters, created_at',
    );
    this.insertChunkStmt = db.prepare(
      'INSERT INTO knowledge_passages (heading, text, document_id, agent_id, seq) VALUES (?, ?, ?, ?, ?)',
    );
    this.getStmt = db.prepare<[string, string], DocumentRow>(
      'SELECT * FROM knowledge_documents WHERE id = ? AND agent_id = ?',
    );
    this.deleteDocStmt = db.prepare('DELETE FROM knowledge_documents WHERE id = ?');
    this.deleteChunksStmt = db.prepare('DELETE FROM knowledge_passages WHERE document_id = ?');
    // Full-text search is not the same SQL on the two stores (store/dialect.ts).
    this.passageQuery = passageSearch(db);
    this.searchStmt = db.prepare<unknown[], ChunkMatch>(this.passageQuery.sql);
    this.hasAnyStmt = db.prepare<[string], { n: number }>(
      'SELECT COUNT(*) AS n FROM knowledge_documents WHERE agent_id = ?',
    );
    // document_id and seq are UNINDEXED columns of the FTS5 table: this reads the passages of
    // every document of every agent. It is only asked for when a person opens a document on the
    // dashboard, and a document has at most 20,000 passages (limits.ts).
    this.passagesStmt = db.prepare<[string, number, number], PassageRow>(
      'SELECT seq, heading, text FROM knowledge_passages WHERE document_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    );
    this.list = new ListQuery(db, {
      table: 'knowledge_documents',
      scope: { agent_id: 'agentId' },
    });
  }

  /** Stores a document and its chunks atomically. */
  insert(row: DocumentRow, chunks: Chunk[]): void {
    this.db.transaction(() => {
      this.insertDocStmt.run(row);
      chunks.forEach((chunk, seq) =>
        this.insertChunkStmt.run(chunk.heading, chunk.text, row.id, row.agent_id, seq),
      );
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

  /**
   * The passages that contain the most of `words` (lowercase words, each matched as a prefix of
   * a stemmed word of the heading or the text), best first.
   */
  search(agentId: string, words: string[], limit: number): ChunkMatch[] {
    return this.searchStmt.all(...this.passageQuery.params(agentId, words, limit));
  }

  /** A document's passages after `afterSeq`, in order, at most `limit`. */
  passages(documentId: string, afterSeq: number, limit: number): PassageRow[] {
    return this.passagesStmt.all(documentId, afterSeq, limit);
  }

  hasDocuments(agentId: string): boolean {
    return (this.hasAnyStmt.get(agentId)?.n ?? 0) > 0;
  }

  page(query: { agentId: string } & ListQueryInput): Page<DocumentRow> {
    return this.list.page(query);
  }
}
