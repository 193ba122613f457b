// Agent knowledge end to end (spec "POST /agents/{id}/knowledge", decisions §7 and §10): real
// PDF, DOCX, Markdown and text files built in memory are uploaded as multipart/form-data,
// listed, read and deleted; the simulated brain then quotes the best-matching passage verbatim
// (execute and messages). Files are checked by content: a fake PDF, an empty file, an
// unsupported extension, a zip that is no DOCX and a damaged PDF are refused with nothing
// stored; over 10 MiB is 413.
import test, { type ExecutionContext } from 'ava';
import { fileDaemon } from '../helpers/setup.js';
import { createAgent } from '../helpers/agents.js';
import { buildDocx, buildPdf, buildZip } from '../helpers/documents.js';
import type { KnowledgeDocumentView as KnowledgeDocument } from '../../shared/schemas/agents.js';
import type { Answer } from '../helpers/api.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const svc = fileDaemon(test);
const { call } = svc;

/** An active L3 agent (no approval in the way of its answers). */
const agent = (fields: Record<string, unknown> = {}) =>
  createAgent(call, { name: 'Librarian', ...fields });

function upload(
  agentId: string,
  file: { name: string; content: Buffer | string } | undefined,
  fields: Record<string, string> = { type: 'faq' },
  apiKey = svc.operatorKey,
): Promise<Answer> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (file) {
    const bytes = typeof file.content === 'string' ? Buffer.from(file.content) : file.content;
    form.append('file', new Blob([new Uint8Array(bytes)]), file.name);
  }
  return svc.daemon.request(`/v1/agents/${agentId}/knowledge`, {
    method: 'POST',
    key: apiKey,
    tenant: svc.defaultWs,
    body: form,
  });
}

async function uploaded(
  t: ExecutionContext,
  agentId: string,
  file: { name: string; content: Buffer | string },
  fields: Record<string, string> = { type: 'faq' },
): Promise<KnowledgeDocument> {
  const answer = await upload(agentId, file, fields);
  t.is(answer.status, 201, answer.text);
  return answer.body.data as KnowledgeDocument;
}

async function ask(agentId: string, input: string): Promise<{ action: string; output: string }> {
  const answer = await call('POST', `/v1/agents/${agentId}/execute`, {
    input,
    wait_for_completion: true,
  });
  if (answer.status !== 200) throw new Error(`execute: ${answer.status} ${answer.text}`);
  return answer.body.data.result;
}

async function documentCount(agentId: string): Promise<number> {
  const answer = await call('GET', `/v1/agents/${agentId}/knowledge`);
  if (answer.status !== 200) throw new Error(`list: ${answer.text}`);
  return answer.body.total_count as number;
}

function assertFileRefused(
  t: ExecutionContext,
  answer: Answer,
  status = 400,
  code = 'invalid_parameter',
): void {
  t.is(answer.status, status, answer.text);
  t.is(answer.body?.error?.code, code, answer.text);
  t.is(answer.body?.error?.param, 'file', answer.text);
}

const REFUNDS = 'Refunds are issued within 14 days once the returned parcel reaches our warehouse.';
const SHIPPING = 'Standard shipping to Canada takes five to seven business days.';
const WARRANTY = 'Every blender carries a two year warranty covering the motor and the jar.';
const HOURS = 'Our support line is open Monday to Friday from 8am to 6pm Eastern time.';

// --- uploads of each format ------------------------------------------------------------------

test('a real PDF is accepted (201, format pdf) and its line is quoted verbatim when it matches', async (t) => {
  const agentId = await agent();
  const pdf = buildPdf(REFUNDS);
  const doc = await uploaded(
    t,
    agentId,
    { name: 'refund-policy.pdf', content: pdf },
    {
      type: 'policy',
      description: 'Refund policy',
    },
  );
  t.regex(doc.id, /^doc_/);
  t.like(doc, {
    agent_id: agentId,
    filename: 'refund-policy.pdf',
    format: 'pdf',
    type: 'policy',
    description: 'Refund policy',
    size_bytes: pdf.length,
    chunk_count: 1,
  });
  t.regex(doc.created_at, ISO);

  const result = await ask(agentId, 'How many days until refunds are issued?');
  t.is(result.output, REFUNDS);
  t.is(result.action, 'issue_refund');
});

test('a real DOCX is accepted (format docx, one passage per paragraph); the best paragraph is quoted', async (t) => {
  const agentId = await agent();
  const docx = buildDocx([SHIPPING, WARRANTY, HOURS]);
  const doc = await uploaded(t, agentId, { name: 'faq.docx', content: docx });
  t.like(doc, { format: 'docx', filename: 'faq.docx', type: 'faq', chunk_count: 3 });
  t.is(doc.size_bytes, docx.length);

  t.is((await ask(agentId, 'What warranty does the blender motor have?')).output, WARRANTY);
  t.is((await ask(agentId, 'When is the support line open on Friday?')).output, HOURS);
  t.is((await ask(agentId, 'How long does shipping to Canada take?')).output, SHIPPING);

  // Stored (uncompressed) zip entries are a DOCX too.
  const stored = await uploaded(t, agentId, {
    name: 'stored.docx',
    content: buildDocx(['Gift cards never expire and can be used online.'], { store: true }),
  });
  t.is(stored.format, 'docx');
  t.is(
    (await ask(agentId, 'Do gift cards expire?')).output,
    'Gift cards never expire and can be used online.',
  );
});

test('Markdown and text files are accepted; messages quote the matching passage too', async (t) => {
  const agentId = await agent();
  const md = await uploaded(
    t,
    agentId,
    {
      name: 'products.md',
      content: `# Products\n\n${WARRANTY}\n\n## Shipping\n\n${SHIPPING}\n`,
    },
    { type: 'product_info' },
  );
  t.like(md, { format: 'md', type: 'product_info' });
  t.true(md.chunk_count >= 2);
  const txt = await uploaded(
    t,
    agentId,
    { name: 'hours.txt', content: `${HOURS}\n\nClosed on public holidays.\n` },
    { type: 'template' },
  );
  t.like(txt, { format: 'txt', type: 'template', chunk_count: 2 });

  const reply = await call('POST', `/v1/agents/${agentId}/messages`, {
    content: 'Is the support line open on Monday?',
  });
  t.is(reply.status, 201, reply.text);
  t.is(reply.body.data.content, HOURS);
  t.is((await ask(agentId, 'warranty on the blender jar')).output, WARRANTY);
  // An input that matches nothing gets a composed answer, not a passage.
  const unrelated = (await ask(agentId, 'Zebras quantum xylophone')).output;
  t.false([HOURS, WARRANTY, SHIPPING].includes(unrelated));
});

// --- list, get, delete -----------------------------------------------------------------------

test('list (newest first, paginated), get and delete; a deleted document is no longer quoted', async (t) => {
  const agentId = await agent();
  const first = await uploaded(t, agentId, { name: 'a.txt', content: REFUNDS });
  // 1 ms later on the daemon clock, so that "newest first" never rests on a tie.
  await svc.daemon.advance(1);
  const second = await uploaded(t, agentId, { name: 'b.md', content: SHIPPING });

  const list = await call('GET', `/v1/agents/${agentId}/knowledge`);
  t.is(list.status, 200, list.text);
  t.deepEqual(
    list.body.data.map((doc: KnowledgeDocument) => doc.id),
    [second.id, first.id],
  );
  t.is(list.body.total_count, 2);
  t.false(list.body.has_more);
  const page = await call('GET', `/v1/agents/${agentId}/knowledge?limit=1`);
  t.true(page.body.has_more);
  t.is(page.body.meta.next_cursor, second.id);
  const rest = await call(
    'GET',
    `/v1/agents/${agentId}/knowledge?limit=1&starting_after=${second.id}`,
  );
  t.deepEqual(
    rest.body.data.map((doc: KnowledgeDocument) => doc.id),
    [first.id],
  );

  const got = await call('GET', `/v1/agents/${agentId}/knowledge/${first.id}`);
  t.is(got.status, 200);
  t.deepEqual(got.body.data, first);

  t.is((await ask(agentId, 'When are refunds issued?')).output, REFUNDS);
  const deleted = await call('DELETE', `/v1/agents/${agentId}/knowledge/${first.id}`);
  t.is(deleted.status, 200, deleted.text);
  t.deepEqual(deleted.body.data, { id: first.id, deleted: true });
  t.is((await call('GET', `/v1/agents/${agentId}/knowledge/${first.id}`)).status, 404);
  t.is((await call('DELETE', `/v1/agents/${agentId}/knowledge/${first.id}`)).status, 404);
  t.is(await documentCount(agentId), 1);
  t.not((await ask(agentId, 'When are refunds issued?')).output, REFUNDS);

  // Documents belong to their agent.
  const other = await agent({ name: 'Other' });
  t.is((await call('GET', `/v1/agents/${other}/knowledge/${second.id}`)).status, 404);
  t.is(await documentCount(other), 0);
  t.not((await ask(other, 'How long does shipping to Canada take?')).output, SHIPPING);
});

// --- refused files ---------------------------------------------------------------------------

test('a .pdf whose content is not a PDF: 400 invalid_parameter param file, nothing stored', async (t) => {
  const agentId = await agent();
  await uploaded(t, agentId, { name: 'ok.txt', content: HOURS });
  const before = await documentCount(agentId);
  assertFileRefused(
    t,
    await upload(agentId, {
      name: 'policy.pdf',
      content: 'This is plain text pretending to be a PDF.',
    }),
  );
  // A DOCX named .pdf, and a PDF named .docx or .txt, are refused as well.
  assertFileRefused(t, await upload(agentId, { name: 'policy.pdf', content: buildDocx(REFUNDS) }));
  assertFileRefused(t, await upload(agentId, { name: 'policy.docx', content: buildPdf(REFUNDS) }));
  assertFileRefused(t, await upload(agentId, { name: 'policy.txt', content: buildPdf(REFUNDS) }));
  t.is(await documentCount(agentId), before, 'the list is unchanged');
  t.not(
    (await ask(agentId, 'pretending to be a PDF')).output,
    'This is plain text pretending to be a PDF.',
  );
});

test('a zip without word/document.xml named .docx, a damaged PDF and binary text are refused', async (t) => {
  const agentId = await agent();
  assertFileRefused(
    t,
    await upload(agentId, {
      name: 'notes.docx',
      content: buildZip([{ name: 'notes.txt', content: REFUNDS }]),
    }),
  );
  const pdf = buildPdf(REFUNDS);
  assertFileRefused(
    t,
    await upload(agentId, { name: 'broken.pdf', content: Buffer.concat([pdf.subarray(0, 40)]) }),
  );
  assertFileRefused(
    t,
    await upload(agentId, {
      name: 'binary.txt',
      content: Buffer.from([0x48, 0x69, 0x00, 0xff, 0xfe]),
    }),
  );
  t.is(await documentCount(agentId), 0);
});

test('an empty file and an unsupported extension: 400 invalid_parameter param file', async (t) => {
  const agentId = await agent();
  assertFileRefused(t, await upload(agentId, { name: 'empty.txt', content: Buffer.alloc(0) }));
  assertFileRefused(t, await upload(agentId, { name: 'empty.pdf', content: Buffer.alloc(0) }));
  for (const name of ['data.csv', 'script.exe', 'page.html', 'noextension']) {
    assertFileRefused(t, await upload(agentId, { name, content: HOURS }));
  }
  t.is(await documentCount(agentId), 0);
});

test('over 10 MiB: 413 payload_too_large; exactly 10 MiB passes the size check; 5 MiB of text is stored', async (t) => {
  const agentId = await agent();
  const line = 'Our warehouse ships every weekday and restocks every Monday morning.\n\n';
  const tenMiB = 10 * 1024 * 1024;
  const big = Buffer.alloc(tenMiB + 1, ' ');
  big.write(line.repeat(Math.floor(tenMiB / line.length)));
  const answer = await upload(agentId, { name: 'huge.txt', content: big });
  t.is(answer.status, 413, answer.text.slice(0, 500));
  t.is(answer.body?.error?.code, 'payload_too_large');
  t.regex(answer.body?.error?.message, /10 MiB/);
  t.is(await documentCount(agentId), 0);

  // Exactly 10 MiB is read, then refused by the cap on extracted text (5 MiB).
  const atSize = await upload(agentId, { name: 'at-size.txt', content: big.subarray(0, tenMiB) });
  t.is(atSize.status, 413, atSize.text.slice(0, 500));
  t.regex(atSize.body?.error?.message, /characters/);

  const paragraph = line.trim().concat(' ').repeat(8).trim() + '\n\n';
  const fiveMiB = paragraph.repeat(Math.floor((5 * 1024 * 1024) / paragraph.length));
  const fits = await upload(agentId, { name: 'fits.txt', content: Buffer.from(fiveMiB) });
  t.is(fits.status, 201, fits.text.slice(0, 500));
  t.is(await documentCount(agentId), 1);
});

test('missing file part: 400 missing_required_field; bad or missing type: 400', async (t) => {
  const agentId = await agent();
  const noFile = await upload(agentId, undefined, { type: 'faq' });
  t.is(noFile.status, 400, noFile.text);
  t.is(noFile.body.error.code, 'missing_required_field');
  t.true(noFile.body.error.required_fields.includes('file'));

  const badType = await upload(agentId, { name: 'a.txt', content: HOURS }, { type: 'novel' });
  t.is(badType.status, 400, badType.text);
  t.is(badType.body.error.code, 'invalid_parameter');
  t.is(badType.body.error.param, 'type');

  const noType = await upload(agentId, { name: 'a.txt', content: HOURS }, {});
  t.is(noType.status, 400, noType.text);
  t.is(noType.body.error.code, 'missing_required_field');
  t.deepEqual(noType.body.error.required_fields, ['type']);

  const json = await call('POST', `/v1/agents/${agentId}/knowledge`, { file: HOURS, type: 'faq' });
  t.is(json.status, 400, json.text);
  t.is(await documentCount(agentId), 0);
});

test('knowledge of an unknown agent is 404 agent_not_found; scopes: read lists, write uploads', async (t) => {
  const missing = await upload('agt_doesnotexist000000', { name: 'a.txt', content: HOURS });
  t.is(missing.status, 404, missing.text);
  t.is(missing.body.error.code, 'agent_not_found');
  t.is(
    (await call('GET', '/v1/agents/agt_doesnotexist000000/knowledge')).body.error.code,
    'agent_not_found',
  );

  const agentId = await agent();
  const reader = (await svc.daemon.createKey('agents:read')).key;
  const executor = (await svc.daemon.createKey('agents:execute')).key;
  const refused = await upload(agentId, { name: 'a.txt', content: HOURS }, { type: 'faq' }, reader);
  t.is(refused.status, 403, refused.text);
  t.is(refused.body.error.code, 'insufficient_scope');
  t.is(
    (await upload(agentId, { name: 'a.txt', content: HOURS }, { type: 'faq' }, executor)).status,
    403,
  );
  const doc = await uploaded(t, agentId, { name: 'a.txt', content: HOURS });
  t.is(
    (await call('GET', `/v1/agents/${agentId}/knowledge`, undefined, { key: reader })).status,
    200,
  );
  t.is(
    (await call('DELETE', `/v1/agents/${agentId}/knowledge/${doc.id}`, undefined, { key: reader }))
      .status,
    403,
  );
});
