// Unit tests of the agents' thinking parts: the action classifier, the simulated brain
// (determinism, confidence, verbatim quoting of knowledge), and the knowledge pipeline pieces
// (chunkText, searchTerms, detectFormat, extractText on real PDF/DOCX built in memory).
import test from 'ava';
import type { AgentProfile, Passage } from '../../daemon/agents/brains/brain.js';
import { classify } from '../../daemon/agents/brains/classify.js';
import { SimulatedBrain } from '../../daemon/agents/brains/simulated.js';
import { chunkText, searchTerms } from '../../daemon/agents/knowledge/chunk.js';
import { detectFormat, extractText } from '../../daemon/agents/knowledge/extract.js';
import { ApiError } from '../../daemon/domain/errors.js';
import { buildDocx, buildPdf, buildZip } from '../helpers/documents.js';

function profile(overrides: Partial<AgentProfile> = {}): AgentProfile {
  return {
    id: 'agt_unit',
    workspace_id: 'ws_unit',
    name: 'Unit',
    type: 'customer-service',
    capabilities: {},
    personality: { tone: null, response_length: null, empathy_level: null },
    brain: null,
    ...overrides,
  };
}

function think(agent: AgentProfile, input: string, passages: Passage[] = []) {
  return new SimulatedBrain().think({ agent, input, context: {}, passages, timeoutMs: 1000 });
}

// --- classify --------------------------------------------------------------------------------

test('classify: keyword rules pick the action, case-insensitively', (t) => {
  const cases: [string, string][] = [
    ['I want my MONEY BACK', 'issue_refund'],
    ['Please cancel my subscription', 'cancel_order'],
    ['Where is my parcel?', 'check_order_status'],
    ['What is the tracking number?', 'check_order_status'],
    ['I want to speak to a manager', 'escalate_to_human'],
    ['Can I get a quote for 10 seats?', 'qualify_lead'],
    ['Book a meeting for Tuesday', 'schedule_meeting'],
    ['My invoice is wrong', 'process_invoice'],
    ['Summarize the latest market trends', 'research_topic'],
    ['Restart the web server', 'run_operation'],
  ];
  for (const [input, action] of cases) {
    t.deepEqual(classify(input, 'custom', {}), { action, matchedRule: true }, input);
  }
});

test('classify: earlier rules win; a capability switched off is skipped', (t) => {
  // Both refund and cancel match: refund comes first.
  t.is(classify('Cancel the order and refund me', 'custom', {}).action, 'issue_refund');
  t.is(
    classify('Cancel the order and refund me', 'custom', { issue_refund: false }).action,
    'cancel_order',
  );
  // A capability explicitly true (or absent) does not change anything.
  t.is(classify('refund please', 'custom', { issue_refund: true }).action, 'issue_refund');
  // With the only matching rule switched off, the type's default applies.
  t.deepEqual(classify('refund please', 'sales', { issue_refund: false }), {
    action: 'qualify_lead',
    matchedRule: false,
  });
});

test('classify: one pass answers as every rule tried over the whole input in turn', (t) => {
  // The rules as they were written before the one-pass scan: the reference.
  const reference: [RegExp, string][] = [
    [/\b(refund|money back|reimburse|chargeback)/i, 'issue_refund'],
    [/\bcancel/i, 'cancel_order'],
    [
      /\b(track|tracking|shipping|shipment|delivery|where is my|order status)/i,
      'check_order_status',
    ],
    [/\b(escalate|manager|supervisor|human|complain|complaint)/i, 'escalate_to_human'],
    [/\b(price|pricing|quote|discount|purchase|demo|trial)/i, 'qualify_lead'],
    [/\b(schedule|meeting|appointment|calendar|book a)/i, 'schedule_meeting'],
    [/\b(invoice|billing|payment|charge)/i, 'process_invoice'],
    [/\b(research|analy[sz]e|compare|summari[sz]e|report|trend)/i, 'research_topic'],
    [/\b(restart|deploy|incident|outage|backup|provision)/i, 'run_operation'],
  ];
  const words = [
    'money backup',
    'chargeback',
    'Charge',
    'report',
    'xcancel',
    'cancel',
    'a',
    'ANALYSE',
    'book a',
    'book',
    'demo',
    'where is my',
    'deploy',
    'human',
    '!',
    'order status',
    'refund',
  ];
  const actions = reference.map(([, action]) => action);
  let seed = 7;
  const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  for (let round = 0; round < 2000; round++) {
    const input = Array.from({ length: 1 + random(8) }, () => words[random(words.length)]).join(
      random(2) ? ' ' : '',
    );
    const capabilities = Object.fromEntries(
      actions.filter(() => random(4) === 0).map((action) => [action, false]),
    );
    const expected = reference.find(
      ([pattern, action]) => pattern.test(input) && capabilities[action] !== false,
    );
    t.is(
      classify(input, 'custom', capabilities).action,
      expected?.[1] ?? 'respond',
      `${input} ${JSON.stringify(capabilities)}`,
    );
  }
  t.is(classify('a'.repeat(99_999) + '!', 'custom', {}).action, 'respond');
});

test("classify: without a keyword, the agent type's default; respond when that is switched off", (t) => {
  const defaults: [string, string][] = [
    ['customer-service', 'answer_question'],
    ['operations', 'run_operation'],
    ['research', 'research_topic'],
    ['sales', 'qualify_lead'],
    ['custom', 'respond'],
    ['unknown-type', 'respond'],
  ];
  for (const [type, action] of defaults) {
    t.deepEqual(classify('Hello there', type, {}), { action, matchedRule: false }, type);
  }
  t.is(classify('Hello there', 'sales', { qualify_lead: false }).action, 'respond');
});

// --- the simulated brain ---------------------------------------------------------------------

test('simulated brain: deterministic, for the same agent and input', async (t) => {
  const agent = profile({
    personality: { tone: 'formal', response_length: null, empathy_level: null },
  });
  const inputs = ['Where is my order 12?', 'Hello', 'refund now', ''];
  for (const input of inputs) {
    t.deepEqual(await think(agent, input), await think(agent, input), input);
    t.deepEqual(await think(agent, input), await think({ ...agent, id: 'agt_other' }, input));
  }
});

test('simulated brain: without knowledge, a composed answer; 0.75 confidence for a rule, 0.6 for a default', async (t) => {
  const ruled = await think(profile(), 'Where is my order 12?');
  t.is(ruled.action, 'check_order_status');
  t.is(ruled.confidence, 0.75);
  t.true(ruled.output.includes('Where is my order 12?'), ruled.output);

  const fallback = await think(profile(), 'Hello there');
  t.is(fallback.action, 'answer_question');
  t.is(fallback.confidence, 0.6);

  const long = 'x'.repeat(300);
  const truncated = await think(profile(), long);
  t.false(truncated.output.includes(long), 'long inputs are not echoed whole');
  t.true(truncated.output.length < 300);

  const formal = await think(
    profile({ personality: { tone: 'formal', response_length: null, empathy_level: null } }),
    'Hello there',
  );
  const friendly = await think(
    profile({ personality: { tone: 'friendly', response_length: null, empathy_level: null } }),
    'Hello there',
  );
  t.not(formal.output, friendly.output, 'the tone shows');
  t.is(formal.action, friendly.action);
});

test('simulated brain: quotes the best passage verbatim with a confidence from its coverage', async (t) => {
  const passages: Passage[] = [
    { text: 'Refunds take 14 days.', documentId: 'doc_1', coverage: 1 },
    { text: 'Shipping takes 5 days.', documentId: 'doc_2', coverage: 0.5 },
  ];
  const full = await think(profile(), 'refund days', passages);
  t.is(full.output, 'Refunds take 14 days.');
  t.is(full.action, 'issue_refund');
  t.is(full.confidence, 0.95);

  const half = await think(profile(), 'refund days', [
    { text: 'Half a match.', documentId: 'doc_3', coverage: 0.5 },
  ]);
  t.is(half.output, 'Half a match.');
  t.is(half.confidence, 0.73);

  const none = await think(profile(), 'refund days', [
    { text: 'Nothing in common.', documentId: 'doc_4', coverage: 0 },
  ]);
  t.not(none.output, 'Nothing in common.');
  t.is(none.confidence, 0.75);
});

// --- chunkText -------------------------------------------------------------------------------

test('chunkText: one passage per paragraph, lines joined, whitespace collapsed', (t) => {
  const text =
    'First line\nsame paragraph.\r\n\r\nSecond   paragraph\twith  tabs.\n \n\n---\n\n# Third\n';
  t.deepEqual(chunkText(text), [
    { heading: null, text: 'First line same paragraph.' },
    { heading: null, text: 'Second paragraph with tabs.' },
    { heading: null, text: '# Third' },
  ]);
  t.deepEqual(chunkText(''), []);
  t.deepEqual(chunkText('\n\n  \n***\n\n'), [], 'punctuation-only paragraphs carry nothing');
});

test('chunkText: long paragraphs are cut at sentence ends, at most 600 characters each', (t) => {
  const sentence = 'This sentence is about forty-six characters. ';
  const paragraph = sentence.repeat(40).trim();
  const chunks = chunkText(paragraph).map((chunk) => chunk.text);
  t.true(chunks.length > 1);
  for (const chunk of chunks) {
    t.true(chunk.length <= 600, `${chunk.length}`);
    t.true(chunk.endsWith('.'), 'cut at a sentence end');
  }
  t.is(chunks.join(' '), paragraph, 'nothing lost, nothing added');

  const word = 'a'.repeat(1500);
  const pieces = chunkText(word).map((chunk) => chunk.text);
  t.deepEqual(
    pieces.map((piece) => piece.length),
    [600, 600, 300],
  );
  t.is(pieces.join(''), word);
});

// --- searchTerms -----------------------------------------------------------------------------

test('searchTerms: lowercase words of 3+ letters or digits, no stopwords, no repeats, 16 at most', (t) => {
  t.deepEqual(searchTerms('Where is MY order 1234? The order was late!'), [
    'where',
    'order',
    '1234',
    'late',
  ]);
  t.deepEqual(searchTerms('a an of to in it'), []);
  t.deepEqual(searchTerms('Café déjà-vu naïve'), ['café', 'déjà', 'naïve']);
  const many = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
  const terms = searchTerms(many);
  t.is(terms.length, 16);
  t.deepEqual(
    terms,
    Array.from({ length: 16 }, (_, i) => `word${i}`),
  );
});

// --- detectFormat ----------------------------------------------------------------------------

function fileErrorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

test('detectFormat: accepts content that agrees with the extension', (t) => {
  t.is(detectFormat('a.pdf', buildPdf('Hello')), 'pdf');
  t.is(detectFormat('A.PDF', buildPdf('Hello')), 'pdf');
  t.is(detectFormat('a.docx', buildDocx('Hello')), 'docx');
  t.is(detectFormat('a.docx', buildDocx('Hello', { store: true })), 'docx');
  t.is(detectFormat('notes.md', Buffer.from('# Title\n\nText')), 'md');
  t.is(detectFormat('notes.markdown', Buffer.from('# Title')), 'md');
  t.is(detectFormat('notes.txt', Buffer.from('plain text, ünïcödé')), 'txt');
  t.is(detectFormat('dir/with.dots/notes.txt', Buffer.from('x')), 'txt');
});

test('detectFormat: refuses with invalid_parameter (param file) what does not match', (t) => {
  const refused: [string, Buffer][] = [
    ['fake.pdf', Buffer.from('just text')],
    ['fake.docx', Buffer.from('just text')],
    ['zip.docx', buildZip([{ name: 'readme.txt', content: 'hello' }])],
    ['doc.pdf', buildDocx('Hello')],
    ['pdf.docx', buildPdf('Hello')],
    ['pdf.txt', buildPdf('Hello')],
    ['pdf.md', buildPdf('Hello')],
    ['docx.txt', buildDocx('Hello')],
    ['nul.txt', Buffer.from([0x61, 0x00, 0x62])],
    ['latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9])],
    ['empty.txt', Buffer.alloc(0)],
    ['empty.pdf', Buffer.alloc(0)],
    ['table.csv', Buffer.from('a,b')],
    ['program.exe', Buffer.from('MZ')],
    ['noextension', Buffer.from('text')],
  ];
  for (const [name, content] of refused) {
    const error = fileErrorOf(() => detectFormat(name, content));
    t.is(error.code, 'invalid_parameter', name);
    t.is(error.param, 'file', name);
    t.is(error.status, 400, name);
  }
});

// --- extractText on the fixtures -------------------------------------------------------------

test('extractText reads the text of the built PDF and DOCX; a damaged PDF is invalid_parameter', async (t) => {
  const line = 'Refunds (full or partial) are issued within 14 days \\ always.';
  t.is((await extractText('pdf', buildPdf(line), 'a.pdf')).trim(), line);
  const twoLines = await extractText('pdf', buildPdf(['First line.', 'Second line.']), 'b.pdf');
  t.deepEqual(twoLines.split(/\s*\n\s*/).filter(Boolean), ['First line.', 'Second line.']);

  const paragraphs = ['Shipping & handling <free>.', 'Returns "within" 30 days.'];
  const passages = paragraphs.map((text) => ({ heading: null, text }));
  t.deepEqual(chunkText(await extractText('docx', buildDocx(paragraphs), 'c.docx')), passages);
  t.deepEqual(
    chunkText(await extractText('docx', buildDocx(paragraphs, { store: true }), 'd.docx')),
    passages,
  );

  const damaged = buildPdf('Hello').subarray(0, 30);
  const error = await t.throwsAsync(() => extractText('pdf', damaged, 'broken.pdf'));
  t.true(error instanceof ApiError);
  t.is((error as ApiError).code, 'invalid_parameter');
  t.is((error as ApiError).param, 'file');
});
