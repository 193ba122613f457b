// Recorded agent brains (issue 18): svc agents record makes the openai brain write each request
// and answer to a cassette (keys redacted, ids and times normalized out of the request key, no
// paths); an agent on brain {provider: "replay", cassette} then answers from it with the model
// server stopped, the same outputs and no network call; a request the cassette lacks fails with
// an error naming the agent, the request key and the cassette; record_missing appends instead.
// Cassettes are untrusted input (issue 39): a malformed one fails with 502 naming the file and
// the entry, a symbolic link cannot lead reading or record_missing out of the folder, and a
// cassette past 16 MiB is refused after a stat, without stalling the daemon.
import test from 'ava';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:http';
import { assertExit, startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { closeServer, listenLocally } from '../helpers/local-server.js';
import { trpc } from '../helpers/api.js';
import { psql } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp-dir.js';
import { resolveStoreSetting } from '../../shared/store-url.js';

const SECRET_KEY = 'sk-cassette-secret-key-123';
let d: TestDaemon;
let fake: FakeOpenAi;
let cassetteDir: string;
/** The agent of the first test, whose questions support.json answers. */
let supportAgent: string;
let call: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

test.before(async () => {
  fake = await startFakeOpenAi();
  cassetteDir = tempDir('svc-cassettes-');
  d = await startDaemon({
    env: {
      SVC_AGENT_BRAIN: 'openai',
      SVC_OPENAI_BASE_URL: fake.baseUrl,
      SVC_OPENAI_MODEL: 'rec-model',
      SVC_OPENAI_API_KEY: SECRET_KEY,
      SVC_CASSETTE_DIR: cassetteDir,
    },
  });
  const { key, workspaceId } = await d.operator();
  call = async (method, path, body) => {
    const answer = await d.callJson(method, `/v1${path}`, body, { key, tenant: workspaceId });
    return { status: answer.status, body: answer.body };
  };
});

test.after.always(async () => {
  await Promise.all([d?.stop(), fake?.close()]);
});

/**
 * The text of a recorded cassette, undefined when there is none: its file; on the PostgreSQL
 * pass (SVC_STORE_URL, scripts/test-e2e-pg.mjs) its row in the daemon's sandbox, where a daemon
 * on PostgreSQL keeps cassettes (team-cassettes.test.ts). Files the tests write in the folder
 * are read (and there taken into the store) by the daemon alike.
 */
function cassetteText(name: string): string | undefined {
  const store = resolveStoreSetting({ store: process.env.SVC_STORE_URL }, d.dataDir);
  if (store.kind === 'postgres') {
    const text = psql(
      store.url,
      `SELECT data FROM ${store.sandbox}.cassettes WHERE name = '${name}'`,
    );
    return text === '' ? undefined : text;
  }
  const file = join(cassetteDir, name);
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/** An id as the daemon makes them: different on every run, so never part of a request key. */
const runId = () => `wex_${Math.random().toString(36).slice(2, 12).padEnd(20, 'x').slice(0, 20)}`;

test.serial(
  'record against the test server, stop it, replay: same outputs, no network',
  async (t) => {
    const started = await d.cli(['agents', 'record', '--cassette', 'support.json', '--json']);
    assertExit(t, started, 0);
    t.deepEqual(started.json(), { recording: 'support.json' });

    const created = await call('POST', '/agents', {
      name: 'Support',
      ontology: 'retail-v1',
      type: 'customer-service',
      autonomy_level: 'L3',
    });
    const agent = created.body.data.id as string;
    supportAgent = agent;
    await call('POST', '/agents/deploy', { agent_id: agent });
    const execute = (input: string) =>
      call('POST', `/agents/${agent}/execute`, {
        input,
        context: { run: runId(), at: new Date().toISOString() },
        wait_for_completion: true,
      });
    const questions = ['Where is my order?', 'Please cancel my plan'];
    const recorded = [];
    for (const [i, question] of questions.entries()) {
      fake.answerJson({ action: `answer_${i}`, output: `Recorded answer ${i}`, confidence: 0.9 });
      const answer = await execute(question);
      t.is(answer.status, 200, JSON.stringify(answer.body));
      recorded.push(answer.body.data.result);
    }
    assertExit(t, await d.cli(['agents', 'record', '--stop']), 0);

    const text = cassetteText('support.json')!;
    const cassette = JSON.parse(text);
    t.is(cassette.interactions.length, 2);
    t.false(text.includes(SECRET_KEY), 'no key');
    t.false(text.includes(cassetteDir) || text.includes(d.dataDir), 'no absolute path');
    t.false(/wex_[0-9a-z]{20}/.test(text), 'no ids');
    t.true(text.includes('<id>') && text.includes('<time>'));
    t.is(cassette.interactions[0].request.model, 'rec-model');

    await fake.close();
    const calls = fake.requests.length;
    const patched = await call('PATCH', `/agents/${agent}`, {
      brain: { provider: 'replay', cassette: 'support.json' },
    });
    t.is(patched.status, 200, JSON.stringify(patched.body));
    for (const [i, question] of questions.entries()) {
      const answer = await execute(question);
      t.is(answer.status, 200, JSON.stringify(answer.body));
      t.deepEqual(answer.body.data.result, recorded[i]);
    }
    t.is(fake.requests.length, calls, 'no network call');

    // A request the cassette does not hold: a failed execution naming what is missing.
    const missing = await execute('Something nobody asked');
    t.is(missing.status, 502);
    t.is(missing.body.error.code, 'external_api_error');
    t.regex(
      missing.body.error.message,
      new RegExp(
        `Agent ${agent}: the cassette support\\.json has no recorded answer for request [0-9a-f]{24}`,
      ),
    );

    // record_missing with a real endpoint: asked once, appended, then replayed.
    const live = await startFakeOpenAi(t);
    live.answerJson({ action: 'new_answer', output: 'Asked live once', confidence: 0.7 });
    await call('PATCH', `/agents/${agent}`, {
      brain: {
        provider: 'replay',
        cassette: 'support.json',
        record_missing: true,
        base_url: live.baseUrl,
      },
    });
    const first = await execute('Something nobody asked');
    t.is(first.status, 200, JSON.stringify(first.body));
    t.is(first.body.data.result.output, 'Asked live once');
    const second = await execute('Something nobody asked');
    t.is(second.body.data.result.output, 'Asked live once');
    t.is(live.requests.length, 1, 'the appended answer is replayed');
    t.is(JSON.parse(cassetteText('support.json')!).interactions.length, 3);
  },
);

test.serial('cassette names stay inside the cassette folder', async (t) => {
  const created = await call('POST', '/agents', {
    name: 'Paths',
    ontology: 'retail-v1',
    type: 'customer-service',
    brain: { provider: 'replay', cassette: '../escape.json' },
  });
  t.is(created.status, 400);
  t.like(created.body.error, { code: 'invalid_parameter', param: 'brain.cassette' });
  const absolute = await call('POST', '/agents', {
    name: 'Paths',
    ontology: 'retail-v1',
    type: 'customer-service',
    brain: { provider: 'replay', cassette: '/etc/passwd.json' },
  });
  t.is(absolute.status, 400);
  const none = await call('POST', '/agents', {
    name: 'Paths',
    ontology: 'retail-v1',
    type: 'customer-service',
    brain: { provider: 'replay' },
  });
  t.is(none.status, 400);
  t.is(none.body.error.param, 'brain.cassette');
  const record = await d.cli(['agents', 'record', '--cassette', '../../x.json']);
  assertExit(t, record, 1);
});

/** A new active agent on the replay brain with this cassette (and these brain settings). */
async function replayAgent(cassette: string, brain: Record<string, unknown> = {}): Promise<string> {
  const created = await call('POST', '/agents', {
    name: 'Replayer',
    ontology: 'retail-v1',
    type: 'customer-service',
    autonomy_level: 'L3',
    brain: { provider: 'replay', cassette, ...brain },
  });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  const agent = created.body.data.id as string;
  await call('POST', '/agents/deploy', { agent_id: agent });
  return agent;
}

const ask = (agent: string, input = 'Where is my order?') =>
  call('POST', `/agents/${agent}/execute`, {
    input,
    context: { run: runId(), at: new Date().toISOString() },
    wait_for_completion: true,
  });

test.serial('a malformed cassette fails with 502 naming the file and the entry', async (t) => {
  const cases: [string, unknown, string][] = [
    ['null-entry.json', { interactions: [null] }, 'interactions[0]'],
    ['string.json', { interactions: 'x' }, 'interactions'],
    ['empty-entry.json', { svc_cassette: 1, interactions: [{}] }, 'interactions[0].key'],
    [
      'null-response.json',
      {
        interactions: [
          { key: 'k', request: { model: 'm', messages: [], tools: null }, response: null },
        ],
      },
      'interactions[0].response',
    ],
  ];
  for (const [name, document, where] of cases) {
    writeFileSync(join(cassetteDir, name), JSON.stringify(document));
    const answer = await ask(await replayAgent(name));
    t.is(answer.status, 502, `${name}: ${JSON.stringify(answer.body)}`);
    t.is(answer.body.error.code, 'external_api_error');
    t.true(
      answer.body.error.message.startsWith(`Cassette '${name}' is malformed at ${where}: `),
      answer.body.error.message,
    );
    t.false(/TypeError|Cannot read/.test(answer.body.error.message));
  }

  // An entry that matches the request but whose recorded content is an object, not text.
  const recorded = JSON.parse(cassetteText('support.json')!);
  for (const entry of recorded.interactions)
    entry.response.body.choices[0].message.content = { action: 'x' };
  writeFileSync(join(cassetteDir, 'object-content.json'), JSON.stringify(recorded));
  await call('PATCH', `/agents/${supportAgent}`, {
    brain: { provider: 'replay', cassette: 'object-content.json' },
  });
  const answer = await ask(supportAgent);
  t.is(answer.status, 502, JSON.stringify(answer.body));
  t.is(answer.body.error.code, 'external_api_error');
  t.regex(
    answer.body.error.message,
    /^The recorded model \(cassette object-content\.json, interactions\[\d+\]\) answered without content\.$/,
  );
});

test.serial(
  'svc agents cassette load makes a file the cassette of a name; not a cassette, it is refused',
  async (t) => {
    const given = join(tempDir('svc-given-'), 'given.json');
    writeFileSync(given, cassetteText('support.json')!);
    const loaded = await d.cli([
      'agents',
      'cassette',
      'load',
      given,
      '--name',
      'team/loaded.json',
      '--json',
    ]);
    assertExit(t, loaded, 0);
    t.like(loaded.json(), { cassette: 'team/loaded.json', interactions: 3 });
    t.is(JSON.parse(cassetteText('team/loaded.json')!).interactions.length, 3);
    await call('PATCH', `/agents/${supportAgent}`, {
      brain: { provider: 'replay', cassette: 'team/loaded.json' },
    });
    const answer = await ask(supportAgent);
    t.is(answer.status, 200, JSON.stringify(answer.body));
    t.is(answer.body.data.result.output, 'Recorded answer 0');

    // Not a cassette: refused naming the entry (400), and the cassette is as it was.
    writeFileSync(given, JSON.stringify({ interactions: [{ key: 'k' }] }));
    const refused = await d.cli([
      'agents',
      'cassette',
      'load',
      given,
      '--name',
      'team/loaded.json',
    ]);
    assertExit(t, refused, 1);
    t.regex(
      refused.stderr,
      /Cassette 'team\/loaded\.json' is malformed at interactions\[0\]\.request: /,
    );
    t.is(JSON.parse(cassetteText('team/loaded.json')!).interactions.length, 3);
    const answered = await trpc(d, 'agents.cassettes.load', { name: 'x.json', text: '[' });
    t.is(answered.status, 400, answered.text);
    // A name that leads out of the cassette folder, as brain.cassette's.
    const out = await d.cli(['agents', 'cassette', 'load', given, '--name', '../out.json']);
    assertExit(t, out, 1);
    t.regex(out.stderr, /no \.\. in cassette names/);
  },
);

test.serial(
  'a cassette answer nested 100,000 deep fails with 502 naming the file, as a REST body would be refused',
  async (t) => {
    // The recorded support.json, each answer replaced by arrays nested 100,000 deep: the entry
    // matches the request, and the daemon overflowed its stack serialising the answer (a 500).
    const recorded = JSON.parse(cassetteText('support.json')!);
    for (const entry of recorded.interactions) entry.response.body = 'DEEP';
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const name = 'deep-answer.json';
    writeFileSync(join(cassetteDir, name), JSON.stringify(recorded).replaceAll('"DEEP"', deep));
    await call('PATCH', `/agents/${supportAgent}`, {
      brain: { provider: 'replay', cassette: name },
    });
    const answer = await ask(supportAgent);
    t.is(answer.status, 502, JSON.stringify(answer.body).slice(0, 500));
    t.is(answer.body.error.code, 'external_api_error');
    t.is(
      answer.body.error.message,
      `Cassette '${name}' nests objects and arrays more than 64 levels deep, as no recorded answer does; fix the file or record it again with svc agents record.`,
    );

    // Through the CLI, as a user meets it.
    const executed = await d.cli([
      'agents',
      'execute',
      supportAgent,
      '--input',
      'Where is my order?',
      '--wait',
    ]);
    t.not(executed.code, 0);
    t.regex(executed.stderr, /Cassette 'deep-answer\.json' nests objects and arrays more than 64/);

    // A live endpoint answering so deep while recording: refused before it reaches a cassette.
    const live = await startFakeOpenAi(t);
    live.answerText('unused');
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(`{"choices":${deep}}`);
      });
    });
    const origin = await listenLocally(server);
    t.teardown(() => closeServer(server));
    const recorder = await replayAgent('deep-live.json', {
      record_missing: true,
      base_url: `${origin}/v1`,
    });
    const recording = await ask(recorder);
    t.is(recording.status, 502, JSON.stringify(recording.body).slice(0, 500));
    t.is(recording.body.error.code, 'external_api_error');
    t.regex(recording.body.error.message, /answered JSON nested more than 64 levels deep/);
    t.is(cassetteText('deep-live.json'), undefined, 'nothing recorded');
  },
);

test.serial(
  'a symbolic link cannot lead reading or record_missing out of the folder',
  async (t) => {
    const outside = tempDir('svc-cassettes-outside-');
    writeFileSync(join(outside, 'support.json'), cassetteText('support.json')!);
    symlinkSync(outside, join(cassetteDir, 'elsewhere'));
    // The agent whose questions the linked copy answers: without the check, it would answer.
    await call('PATCH', `/agents/${supportAgent}`, {
      brain: { provider: 'replay', cassette: 'elsewhere/support.json' },
    });
    const reading = await ask(supportAgent);
    t.is(reading.status, 400, JSON.stringify(reading.body));
    t.is(reading.body.error.code, 'invalid_parameter');
    t.regex(reading.body.error.message, /leads out of the cassette folder through a symbolic link/);

    const live = await startFakeOpenAi(t);
    live.answerJson({ action: 'x', output: 'never recorded', confidence: 0.5 });
    const writer = await replayAgent('elsewhere/new/written.json', {
      record_missing: true,
      base_url: live.baseUrl,
    });
    const writing = await ask(writer);
    t.is(writing.status, 400, JSON.stringify(writing.body));
    t.like(writing.body.error, { code: 'invalid_parameter' });
    t.false(existsSync(join(outside, 'new')), 'nothing made outside the cassette folder');
  },
);

test.serial('an 82 MB cassette is refused after a stat, /healthz keeps answering', async (t) => {
  // A well-formed cassette padded to 82 MB: the size is the only thing wrong with it.
  const padding = 'x'.repeat(1024 * 1024);
  const interactions = Array.from({ length: 82 }, (_, i) => ({
    key: `pad${i}`,
    request: { model: 'm', messages: [{ role: 'user', content: padding }], tools: null },
    response: { status: 200, body: 'x' },
  }));
  writeFileSync(join(cassetteDir, 'huge.json'), JSON.stringify({ svc_cassette: 1, interactions }));
  const agent = await replayAgent('huge.json');

  let longest = 0;
  let polling = true;
  const poller = (async () => {
    let last = performance.now();
    while (polling) {
      const health = await fetch(`${d.url}/healthz`);
      await health.arrayBuffer();
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const answer = await ask(agent);
  await new Promise((resolve) => setTimeout(resolve, 100));
  polling = false;
  await poller;
  t.log(`longest gap between /healthz answers: ${Math.round(longest)} ms`);
  t.true(longest < 1000, `longest gap ${Math.round(longest)} ms`);
  t.is(answer.status, 502, JSON.stringify(answer.body));
  t.is(answer.body.error.code, 'external_api_error');
  t.regex(answer.body.error.message, /^Cassette 'huge\.json' is \d+ bytes, more than the 16777216/);
});
