// Cassettes of recorded model answers: the request key ignores ids and times, known keys are
// redacted, and cassette names cannot leave the cassette folder.
import test from 'ava';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
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
  t.is(await cassettes.find('a.json', key), undefined);
  await cassettes.record('a.json', { key, request, response: { status: 200, body: { ok: 1 } } });
  t.deepEqual((await cassettes.find('a.json', key))?.response, { status: 200, body: { ok: 1 } });
  const stored = JSON.parse(readFileSync(join(dir, 'a.json'), 'utf8'));
  t.is(stored.svc_cassette, 1);
  t.is(stored.interactions.length, 1);
  // Another daemon (a fresh instance) reads it back.
  t.truthy(await new Cassettes(dir).find('a.json', key));
});

test('a malformed cassette is refused with the file and the entry named', async (t) => {
  const dir = tempDir('svc-cassette-bad-');
  const cases: [unknown, RegExp][] = [
    [{ interactions: [null] }, /Cassette 'bad\.json' is malformed at interactions\[0\]:/],
    [{ interactions: 'x' }, /Cassette 'bad\.json' is malformed at interactions:/],
    [{ interactions: [{}] }, /is malformed at interactions\[0\]\.key:/],
    [
      { interactions: [{ key: 'k', request: { model: 'm', messages: [] }, response: null }] },
      /is malformed at interactions\[0\]\.response:/,
    ],
  ];
  for (const [document, message] of cases) {
    writeFileSync(join(dir, 'bad.json'), JSON.stringify(document));
    const error = await t.throwsAsync(new Cassettes(dir).find('bad.json', 'k'));
    t.like(error, { code: 'external_api_error' });
    t.regex(error!.message, message);
  }
});

test('a symbolic link cannot lead a cassette out of the folder, reading or writing', async (t) => {
  const dir = tempDir('svc-cassette-link-');
  const outside = tempDir('svc-cassette-outside-');
  writeFileSync(join(outside, 'x.json'), JSON.stringify({ svc_cassette: 1, interactions: [] }));
  symlinkSync(outside, join(dir, 'out'));
  const cassettes = new Cassettes(dir);
  const read = await t.throwsAsync(cassettes.find('out/x.json', 'k'));
  t.like(read, { code: 'invalid_parameter', param: 'brain.cassette' });
  const request = normalizeRequest(body('{}'));
  const write = await t.throwsAsync(
    cassettes.record('out/new/y.json', {
      key: requestKey(request),
      request,
      response: { status: 200, body: {} },
    }),
  );
  t.like(write, { code: 'invalid_parameter', param: 'cassette' });
  t.throws(() => readFileSync(join(outside, 'new', 'y.json')), undefined, 'nothing written');
  // A link that stays inside the folder is followed.
  mkdirSync(join(dir, 'team'));
  symlinkSync(join(dir, 'team'), join(dir, 'alias'));
  writeFileSync(join(dir, 'team', 'a.json'), JSON.stringify({ interactions: [] }));
  t.is(await cassettes.find('alias/a.json', 'k'), undefined);
});
