// Cassettes of recorded model answers: the request key ignores ids and times, known keys are
// redacted, and cassette names cannot leave the cassette folder.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  Cassettes,
  cassetteFile,
  normalizeRequest,
  redact,
  requestKey,
} from '../../daemon/agents/brains/cassette.js';
import { tempDir } from '../helpers/temp-dir.js';

const body = (context: string) => ({
  model: 'm',
  temperature: 0,
  messages: [
    { role: 'system', content: 'You are Support.' },
    { role: 'user', content: `Where is my order?\n\nContext: ${context}` },
  ],
});

test('the key of a request ignores svc ids and ISO times, not the question', (t) => {
  const a = normalizeRequest(
    body('{"workflow_execution_id":"wex_0AbCdEfGh1234567890z","at":"2030-01-01T00:00:00.000Z"}'),
  );
  const b = normalizeRequest(
    body('{"workflow_execution_id":"wex_9ZyXwVuTs0987654321a","at":"2031-05-06T07:08:09Z"}'),
  );
  t.is(requestKey(a), requestKey(b));
  t.regex(requestKey(a), /^[0-9a-f]{24}$/);
  t.true(a.messages[1]!.content.includes('<id>') && a.messages[1]!.content.includes('<time>'));
  const other = normalizeRequest({ ...body('{}'), model: 'other' });
  t.not(requestKey(other), requestKey(normalizeRequest(body('{}'))));
});

test('redact replaces key values wherever they appear', (t) => {
  const value = { request: { note: 'Bearer sk-live-secret' }, list: ['sk-live-secret'] };
  t.deepEqual(redact(value, ['sk-live-secret']), {
    request: { note: 'Bearer [redacted]' },
    list: ['[redacted]'],
  });
  t.is(redact(value, []), value);
});

test('cassette names stay inside the folder and are .json files', (t) => {
  const dir = '/data/cassettes';
  t.is(cassetteFile(dir, 'support.json'), '/data/cassettes/support.json');
  t.is(cassetteFile(dir, 'team/support.json'), '/data/cassettes/team/support.json');
  for (const name of ['../x.json', 'a/../../x.json', '/etc/x.json', 'x.txt', '', 'C:\\x.json']) {
    const error = t.throws(() => cassetteFile(dir, name), undefined, name);
    t.is((error as { param?: string }).param, 'brain.cassette');
  }
});

test('recorded answers are found by key and written as one JSON document', async (t) => {
  const dir = tempDir('svc-cassette-unit-');
  const cassettes = new Cassettes(dir);
  const request = normalizeRequest(body('{}'));
  const key = requestKey(request);
  t.is(cassettes.find('a.json', key), undefined);
  await cassettes.record('a.json', { key, request, response: { status: 200, body: { ok: 1 } } });
  t.deepEqual(cassettes.find('a.json', key)?.response, { status: 200, body: { ok: 1 } });
  const stored = JSON.parse(readFileSync(join(dir, 'a.json'), 'utf8'));
  t.is(stored.svc_cassette, 1);
  t.is(stored.interactions.length, 1);
  // Another daemon (a fresh instance) reads it back.
  t.truthy(new Cassettes(dir).find('a.json', key));
});
