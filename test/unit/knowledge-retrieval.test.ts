// Knowledge as the README's examples use it: headings attached to the paragraphs under them
// (chunkText), retrieval that matches word forms (the porter stemmer of the FTS5 index) and
// counts a passage's heading, and migration 20, which rebuilds the index of documents stored
// before and attaches their Markdown heading passages to the passages after them.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { chunkText } from '../../daemon/agents/knowledge/chunk.js';
import { KnowledgeExtractor } from '../../daemon/agents/knowledge/extractor.js';
import { KnowledgeRepository } from '../../daemon/agents/knowledge/knowledge.repository.js';
import { KnowledgeService } from '../../daemon/agents/knowledge/knowledge.service.js';
import { migrate, openDatabase } from '../../daemon/store/database.js';
import type { StoreKind } from '../../daemon/store/db.js';
import { MIGRATIONS } from '../../daemon/store/migrations.js';
import { openTestStore, STORE_KINDS } from '../helpers/postgres.js';
import { StillClock } from '../helpers/still-clock.js';

const FAQ = readFileSync(new URL('../../fixtures/support-desk/faq.md', import.meta.url));
const REFUNDS =
  'Refunds are issued within 5 business days to the original payment method. Orders over 100 EUR need the approval of the refund team.';
const SHIPPING =
  'Standard shipping takes 2 to 4 business days. Express shipping arrives the next business day when ordered before 2 pm.';

test('chunkText: a Markdown heading is attached to the paragraphs under it, not a passage', (t) => {
  t.deepEqual(chunkText(FAQ.toString('utf8')), [
    { heading: 'Acme support FAQ - Refunds', text: REFUNDS },
    { heading: 'Acme support FAQ - Shipping', text: SHIPPING },
  ]);
  // Directly above its text (no blank line), closing #s, a setext heading, two paragraphs.
  t.deepEqual(
    chunkText(
      '## Returns ##\nSend it back within 30 days.\n\nWe pay the label.\n\nHours\n=====\n\nOpen 9 to 5, Monday to Friday.',
    ),
    [
      { heading: 'Returns', text: 'Send it back within 30 days.' },
      { heading: 'Returns', text: 'We pay the label.' },
      { heading: 'Hours', text: 'Open 9 to 5, Monday to Friday.' },
    ],
  );
});

test('chunkText: in plain text, a question or a title line above a paragraph is its heading', (t) => {
  t.deepEqual(
    chunkText(
      'When do orders ship?\n\nOrders leave the warehouse every weekday at 4 pm.\n\nOpening hours\n\nThe shop is open from 9 to 5 every weekday.\n\nA line that is a sentence.\n\nIs not a heading of this one.',
    ),
    [
      {
        heading: 'When do orders ship?',
        text: 'Orders leave the warehouse every weekday at 4 pm.',
      },
      { heading: 'Opening hours', text: 'The shop is open from 9 to 5 every weekday.' },
      // A title heads its section, up to the next title; a sentence is not a title.
      { heading: 'Opening hours', text: 'A line that is a sentence.' },
      { heading: 'Opening hours', text: 'Is not a heading of this one.' },
    ],
  );
  t.deepEqual(
    chunkText('Some text here.\n\n## Last'),
    [
      { heading: null, text: 'Some text here.' },
      { heading: null, text: '## Last' },
    ],
    'a heading with nothing under it stays, as it was written',
  );
});

async function faqAgent(t: import('ava').ExecutionContext, kind: StoreKind) {
  const db = await openTestStore(kind);
  t.teardown(() => db.close());
  const knowledge = new KnowledgeService(
    new KnowledgeRepository(db),
    new StillClock(Date.UTC(2030, 0, 1)),
    new KnowledgeExtractor(30_000),
  );
  const agent = { id: 'agt_faq', workspace_id: 'ws_faq' };
  const stored = await knowledge.upload(agent, { filename: 'faq.md', content: FAQ, type: 'faq' });
  return { db, knowledge, agent, stored };
}

// Both stores: FTS5 on SQLite, a tsvector on PostgreSQL (store/dialect.ts, passageSearch).
for (const kind of STORE_KINDS) {
  test(`${kind}: retrieval matches word forms: 'When do orders ship?' finds the Shipping paragraph`, async (t) => {
    const { knowledge, agent, stored } = await faqAgent(t, kind);
    t.is(stored.chunk_count, 2);
    const [best, next] = knowledge.retrieve(agent.id, 'When do orders ship?');
    // "orders" matches "ordered" and "ship" matches "shipping" (and the heading): both terms.
    t.like(best, { text: SHIPPING, heading: 'Acme support FAQ - Shipping', coverage: 1 });
    // The Refunds paragraph has "Orders" only.
    t.like(next, { text: REFUNDS, coverage: 0.5 });
  });

  test(`${kind}: retrieval: 'How long does shipping take?' finds the paragraph, the heading counting`, async (t) => {
    const { knowledge, agent } = await faqAgent(t, kind);
    const passages = knowledge.retrieve(agent.id, 'How long does shipping take?');
    t.is(passages[0]?.text, SHIPPING);
    t.is(passages.length, 1, JSON.stringify(passages));
    t.deepEqual(knowledge.retrieve(agent.id, 'Refunding an order'), [
      {
        text: REFUNDS,
        heading: 'Acme support FAQ - Refunds',
        documentId: passages[0]!.documentId,
        coverage: 1,
      },
      {
        text: SHIPPING,
        heading: 'Acme support FAQ - Shipping',
        documentId: passages[0]!.documentId,
        coverage: 0.5,
      },
    ]);
    t.deepEqual(
      knowledge.retrieve('agt_other', 'shipping'),
      [],
      "another agent's knowledge is not searched",
    );
  });
}

test('migration 20: stored passages are indexed with stemming, old heading passages attached', (t) => {
  const db = openDatabase(
    ':memory:',
    MIGRATIONS.filter((migration) => migration.version <= 18),
  );
  t.teardown(() => db.close());
  const doc = db.prepare(
    `INSERT INTO knowledge_documents (id, agent_id, workspace_id, filename, format, type, description, size_bytes, chunk_count, characters, created_at)
     VALUES (?, 'agt_old', 'ws_old', ?, ?, 'faq', NULL, 100, ?, 0, 0)`,
  );
  const chunk = db.prepare(
    "INSERT INTO knowledge_chunks (text, document_id, agent_id, seq) VALUES (?, ?, 'agt_old', ?)",
  );
  doc.run('doc_md', 'faq.md', 'md', 5);
  ['# Acme support FAQ', '## Refunds', REFUNDS, '## Shipping', SHIPPING].forEach((text, seq) =>
    chunk.run(text, 'doc_md', seq),
  );
  doc.run('doc_txt', 'notes.txt', 'txt', 2);
  ['Plain text, no headings.', '## Last'].forEach((text, seq) => chunk.run(text, 'doc_txt', seq));

  migrate(db, MIGRATIONS);
  const rows = db
    .prepare(
      'SELECT heading, text, document_id, seq FROM knowledge_passages ORDER BY document_id, seq',
    )
    .all();
  t.deepEqual(rows, [
    { heading: 'Acme support FAQ - Refunds', text: REFUNDS, document_id: 'doc_md', seq: 0 },
    { heading: 'Acme support FAQ - Shipping', text: SHIPPING, document_id: 'doc_md', seq: 1 },
    { heading: null, text: 'Plain text, no headings.', document_id: 'doc_txt', seq: 0 },
    { heading: null, text: '## Last', document_id: 'doc_txt', seq: 1 },
  ]);
  t.deepEqual(db.prepare('SELECT id, chunk_count FROM knowledge_documents ORDER BY id').all(), [
    { id: 'doc_md', chunk_count: 2 },
    { id: 'doc_txt', chunk_count: 2 },
  ]);
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE name LIKE 'knowledge_chunks%'")
    .all();
  t.deepEqual(tables, [], 'the old index is gone');
  const knowledge = new KnowledgeService(
    new KnowledgeRepository(db),
    new StillClock(0),
    new KnowledgeExtractor(30_000),
  );
  t.is(knowledge.retrieve('agt_old', 'When do orders ship?')[0]?.text, SHIPPING);
});
