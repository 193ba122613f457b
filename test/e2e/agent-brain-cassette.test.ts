// Recorded agent brains (issue 18): svc agents record makes the openai brain write each request
// and answer to a cassette (keys redacted, ids and times normalized out of the request key, no
// paths); an agent on brain {provider: "replay", cassette} then answers from it with the model
// server stopped, the same outputs and no network call; a request the cassette lacks fails with
// an error naming the agent, the request key and the cassette; record_missing appends instead.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertExit, startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { tempDir } from '../helpers/temp-dir.js';

const SECRET_KEY = 'sk-cassette-secret-key-123';
let d: TestDaemon;
let fake: FakeOpenAi;
let cassetteDir: string;
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

    const text = readFileSync(join(cassetteDir, 'support.json'), 'utf8');
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
    t.is(
      JSON.parse(readFileSync(join(cassetteDir, 'support.json'), 'utf8')).interactions.length,
      3,
    );
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
