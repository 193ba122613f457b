import type { Migration } from './migration.js';

/** A Markdown heading passage stored before headings were attached (`## Shipping`). */
const HEADING = /^(#{1,6}) (.*?)(?: #+)?$/;

interface OldChunk {
  text: string;
  document_id: string;
  agent_id: string;
}

export const knowledgeStemming: Migration = {
  version: 20,
  name: 'knowledge stemming and headings',
  // Knowledge search matches word forms ("ship" finds "shipping", "orders" finds "ordered"):
  // the FTS5 table is built again with the porter stemmer over unicode61. Each passage gains
  // the heading it stands under, searched with its text. An FTS5 table's tokenizer cannot be
  // changed in place, so the passages are copied to a new table (knowledge_passages) and the
  // old one dropped.
  sql: `
      CREATE VIRTUAL TABLE knowledge_passages USING fts5(
        heading, text, document_id UNINDEXED, agent_id UNINDEXED, seq UNINDEXED,
        tokenize = 'porter unicode61'
      );
    `,
  // Markdown documents uploaded before kept each heading as a passage of its own: it becomes
  // the heading of the passages after it in the same document, under its outer headings and
  // up to the next heading of its level, as a new upload stores them (agents/knowledge/
  // chunk.ts, which a migration may not import); the document's passage count follows.
  run(db) {
    const insert = db.prepare(
      'INSERT INTO knowledge_passages (heading, text, document_id, agent_id, seq) VALUES (?, ?, ?, ?, ?)',
    );
    const count = db.prepare(
      'UPDATE knowledge_documents SET chunk_count = ?, characters = ? WHERE id = ?',
    );
    const old = db
      .prepare<[], OldChunk>(
        'SELECT text, document_id, agent_id FROM knowledge_chunks ORDER BY document_id, seq',
      )
      .all();
    let index = 0;
    while (index < old.length) {
      const documentId = old[index]!.document_id;
      let end = index;
      while (end < old.length && old[end]!.document_id === documentId) end += 1;
      const chunks = old.slice(index, end);
      let path: { level: number; text: string }[] = [];
      let seq = 0;
      let characters = 0;
      const lastBody = chunks.findLastIndex((chunk) => !HEADING.test(chunk.text));
      chunks.forEach((chunk, at) => {
        const match = HEADING.exec(chunk.text);
        if (match && at < lastBody) {
          const level = match[1]!.length;
          path = [...path.filter((entry) => entry.level < level), { level, text: match[2]! }];
          return;
        }
        const heading = path.length > 0 ? path.map((entry) => entry.text).join(' - ') : null;
        insert.run(heading, chunk.text, documentId, chunk.agent_id, seq);
        seq += 1;
        characters += chunk.text.length + (heading?.length ?? 0);
      });
      count.run(seq, characters, documentId);
      index = end;
    }
    db.exec('DROP TABLE knowledge_chunks');
  },
};
