// The knowledge extractor runs in a worker thread, also under tsx (the worker is the .ts
// source then): passages come back from real DOCX and text, refusals come back as ApiErrors
// with their codes, and the time budget stops a worker.
import test from 'ava';
import { KnowledgeExtractor } from '../../daemon/agents/knowledge/extractor.js';
import { ApiError } from '../../daemon/domain/errors.js';
import { buildDocx } from '../helpers/documents.js';

test('a DOCX and a text file come back as passages from the worker', async (t) => {
  const extractor = new KnowledgeExtractor(30_000);
  t.deepEqual(
    await extractor.passages('docx', buildDocx(['First answer.', 'Second answer.']), 'a.docx'),
    [
      { heading: null, text: 'First answer.' },
      { heading: null, text: 'Second answer.' },
    ],
  );
  t.deepEqual(
    await extractor.passages(
      'txt',
      Buffer.from('Refunds\n\nWithin 14 days.\n\nTo the card.'),
      'a.txt',
    ),
    [
      { heading: 'Refunds', text: 'Within 14 days.' },
      { heading: 'Refunds', text: 'To the card.' },
    ],
  );
});

test('refusals keep their code: a damaged DOCX is 400, a zip bomb is 413', async (t) => {
  const extractor = new KnowledgeExtractor(30_000);
  const whole = buildDocx(['text']);
  const damaged = whole.subarray(0, whole.length - 40);
  const error = await t.throwsAsync(extractor.passages('docx', damaged, 'bad.docx'), {
    instanceOf: ApiError,
  });
  t.is(error?.code, 'invalid_parameter');
  const bomb = await t.throwsAsync(
    extractor.passages('docx', buildDocx(['z'.repeat(70 * 1024 * 1024)]), 'bomb.docx'),
    { instanceOf: ApiError },
  );
  t.is(bomb?.code, 'payload_too_large');
});

test('past the time budget the worker is stopped and the answer is 413', async (t) => {
  const extractor = new KnowledgeExtractor(1);
  const error = await t.throwsAsync(
    extractor.passages('txt', Buffer.from('Some text.'), 'slow.txt'),
    { instanceOf: ApiError },
  );
  t.is(error?.code, 'payload_too_large');
  t.regex(error!.message, /within/);
});
