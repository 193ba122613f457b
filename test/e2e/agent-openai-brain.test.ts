// The OpenAI-compatible brain end to end (decisions §7): agents whose brain is
// `{provider: "openai", base_url, model}`, or a daemon started with SVC_AGENT_BRAIN=openai,
// call a real local chat-completions server (test/helpers/fake-openai.ts). The request carries
// the model and the input; a JSON answer becomes the result, a plain-text answer the output;
// an unreachable endpoint or an HTTP error is 502 external_api_error; a hanging one times out.
import test from 'ava';
import { createServer } from 'node:net';
import { startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { createAgent, executionWhen } from '../helpers/agents.js';
import { assertError, type Answer } from '../helpers/api.js';

interface Sandbox {
  daemon: TestDaemon;
  key: string;
  ws: string;
}

let simulated: Sandbox;
let openai: Sandbox;
let envFake: FakeOpenAi;

async function sandbox(env: NodeJS.ProcessEnv): Promise<Sandbox> {
  const daemon = await startDaemon({ env });
  const { key, workspaceId } = await daemon.operator();
  return { daemon, key, ws: workspaceId };
}

test.before(async () => {
  envFake = await startFakeOpenAi();
  envFake.answerJson({
    action: 'env_action',
    output: 'From the daemon-wide model.',
    confidence: 0.66,
  });
  [simulated, openai] = await Promise.all([
    sandbox({}),
    sandbox({
      SVC_AGENT_BRAIN: 'openai',
      SVC_OPENAI_BASE_URL: envFake.baseUrl,
      SVC_OPENAI_MODEL: 'env-model',
      SVC_OPENAI_API_KEY: 'sk-fake-test-key',
      // Answers are awaited as long as a hang guard (test/helpers/waiting.ts HANG_TIMEOUT_MS):
      // on a loaded machine the fake model's answer took more than 2 s to come through.
      SVC_AGENT_TIMEOUT_SECONDS: '60',
    }),
  ]);
});

test.after.always(async () => {
  await Promise.all([simulated?.daemon.stop(), openai?.daemon.stop(), envFake?.close()]);
});

function call(s: Sandbox, method: string, path: string, body?: unknown): Promise<Answer> {
  return s.daemon.callJson(method, path, body, { key: s.key, tenant: s.ws });
}

/** An active L3 agent of the sandbox `s`. */
function agent(s: Sandbox, fields: Record<string, unknown> = {}): Promise<string> {
  return createAgent((method, path, body) => call(s, method, path, body), {
    name: 'Modelled',
    ...fields,
  });
}

/** An asynchronous execution once it ended (the event stream says when). */
function settled(s: Sandbox, agentId: string, executionId: string) {
  return executionWhen(s.daemon, (method, path) => call(s, method, path), agentId, executionId);
}

function execute(s: Sandbox, agentId: string, input: string, wait = true): Promise<Answer> {
  return call(s, 'POST', `/v1/agents/${agentId}/execute`, { input, wait_for_completion: wait });
}

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('per-agent brain: the fake gets a chat completion with the model and the input; a JSON answer is the result', async (t) => {
  const fake = await startFakeOpenAi(t);
  const answer = { action: 'issue_refund', output: 'I refunded order 1234.', confidence: 0.87 };
  fake.answerJson(answer);
  const agentId = await agent(simulated, {
    brain: { provider: 'openai', base_url: fake.baseUrl, model: 'test-model' },
  });
  const got = (await call(simulated, 'GET', `/v1/agents/${agentId}`)).body.data;
  t.deepEqual(got.brain, { provider: 'openai', base_url: fake.baseUrl, model: 'test-model' });

  const input = 'Please refund order 1234, it arrived broken.';
  const done = await execute(simulated, agentId, input);
  t.is(done.status, 200, done.text);
  t.like(done.body.data, { status: 'completed', result: answer });

  t.is(fake.requests.length, 1);
  const request = fake.requests[0]!;
  t.is(request.method, 'POST');
  t.is(request.path, '/v1/chat/completions');
  t.regex(String(request.headers['content-type']), /application\/json/);
  t.is(request.body?.model, 'test-model');
  t.true(Array.isArray(request.body?.messages));
  t.deepEqual(fake.userMessages(), [input]);
  t.is(request.headers.authorization, undefined, 'no key configured, none sent');

  // Asynchronous executions use it too.
  const started = await execute(simulated, agentId, 'Another refund, order 99', false);
  t.is(started.status, 202);
  const execution = await settled(simulated, agentId, started.body.data.execution_id);
  t.like(execution, { status: 'completed', result: answer });
  t.is(fake.requests.length, 2);
});

test('a plain-text answer becomes the output; messages answer with it as well', async (t) => {
  const fake = await startFakeOpenAi(t);
  fake.answerText('Your parcel is on its way and should arrive tomorrow.');
  const agentId = await agent(simulated, {
    brain: { provider: 'openai', base_url: fake.baseUrl, model: 'test-model' },
  });
  const done = await execute(simulated, agentId, 'Where is my order 77?');
  t.is(done.status, 200, done.text);
  const result = done.body.data.result;
  t.is(result.output, 'Your parcel is on its way and should arrive tomorrow.');
  t.is(typeof result.action, 'string');
  t.true(result.action.length > 0);
  t.true(typeof result.confidence === 'number' && result.confidence >= 0 && result.confidence <= 1);

  const reply = await call(simulated, 'POST', `/v1/agents/${agentId}/messages`, {
    content: 'Hi, where is order 78?',
  });
  t.is(reply.status, 201, reply.text);
  t.is(reply.body.data.content, 'Your parcel is on its way and should arrive tomorrow.');
  t.is(fake.requests.length, 2);
  t.true(fake.userMessages()[1]!.includes('Hi, where is order 78?'));
  t.is(fake.requests[1]!.body?.model, 'test-model');
});

test('an unreachable base URL: 502 external_api_error, and the execution is failed', async (t) => {
  const port = await closedPort();
  const agentId = await agent(simulated, {
    brain: { provider: 'openai', base_url: `http://127.0.0.1:${port}/v1`, model: 'test-model' },
  });
  assertError(
    t,
    await execute(simulated, agentId, 'Where is my order?'),
    502,
    'external_api_error',
  );
  const started = await execute(simulated, agentId, 'Where is my order?', false);
  t.is(started.status, 202);
  const execution = await settled(simulated, agentId, started.body.data.execution_id);
  t.is(execution.status, 'failed');
  t.is(execution.error?.code, 'external_api_error');
  assertError(
    t,
    await call(simulated, 'POST', `/v1/agents/${agentId}/messages`, { content: 'Hello?' }),
    502,
    'external_api_error',
  );
});

test('a 500 from the model server: 502 external_api_error', async (t) => {
  const fake = await startFakeOpenAi(t);
  fake.answerStatus(500);
  const agentId = await agent(simulated, {
    brain: { provider: 'openai', base_url: fake.baseUrl, model: 'test-model' },
  });
  const answer = await execute(simulated, agentId, 'Where is my order?');
  assertError(t, answer, 502, 'external_api_error');
  t.is(answer.body.error.type, 'integration_error');
  t.is(fake.requests.length, 1, 'no retry against a failing model');
  // An answer with no content is no answer either.
  fake.answerStatus(200, { choices: [] });
  assertError(
    t,
    await execute(simulated, agentId, 'Where is my order?'),
    502,
    'external_api_error',
  );
  // Back to healthy: the same agent works again.
  fake.answerJson({ action: 'check_order_status', output: 'Shipped.', confidence: 0.9 });
  const ok = await execute(simulated, agentId, 'Where is my order?');
  t.is(ok.status, 200, ok.text);
  t.is(ok.body.data.result.output, 'Shipped.');
});

test('SVC_AGENT_BRAIN=openai: agents use SVC_OPENAI_BASE_URL, SVC_OPENAI_MODEL and SVC_OPENAI_API_KEY', async (t) => {
  const agentId = await agent(openai);
  const input = `Daemon-wide brain question ${Date.now()}`;
  const done = await execute(openai, agentId, input);
  t.is(done.status, 200, done.text);
  t.deepEqual(done.body.data.result, {
    action: 'env_action',
    output: 'From the daemon-wide model.',
    confidence: 0.66,
  });
  const request = envFake.requests.find((r) =>
    r.body?.messages?.some((m) => m.role === 'user' && m.content === input),
  );
  t.truthy(request, 'the configured endpoint got the input');
  t.is(request!.body?.model, 'env-model');
  t.is(request!.headers.authorization, 'Bearer sk-fake-test-key');
});

test('an agent can override the daemon brain with the simulated one', async (t) => {
  const agentId = await agent(openai, { brain: { provider: 'simulated' } });
  const input = `Simulated override, where is my order ${Date.now()}?`;
  const done = await execute(openai, agentId, input);
  t.is(done.status, 200, done.text);
  t.is(done.body.data.result.action, 'check_order_status');
  t.not(done.body.data.result.output, 'From the daemon-wide model.');
  t.false(
    envFake.requests.some((r) => r.raw.includes(input)),
    'the model server was not asked',
  );
  // PATCH brain: null goes back to the daemon's brain.
  const patched = await call(openai, 'PATCH', `/v1/agents/${agentId}`, { brain: null });
  t.is(patched.status, 200, patched.text);
  const again = await execute(openai, agentId, input);
  t.is(again.body.data.result.output, 'From the daemon-wide model.');
});

test('a model server that never answers: the execution times out (408 execution_timeout)', async (t) => {
  const fake = await startFakeOpenAi(t);
  fake.hang();
  // A daemon of its own with a 2 s model timeout (the shared one waits 60 s, not to time out
  // a slow answer on a loaded machine).
  const impatient = await sandbox({ SVC_AGENT_TIMEOUT_SECONDS: '2' });
  t.teardown(() => impatient.daemon.stop());
  const agentId = await agent(impatient, {
    brain: { provider: 'openai', base_url: fake.baseUrl, model: 'slow-model' },
  });
  // The answer coming at all (the server never answers) is the timeout at work; how soon depends
  // on the machine's load too, so it is not asserted.
  const answer = await execute(impatient, agentId, 'Where is my order?');
  assertError(t, answer, 408, 'execution_timeout');
  t.is(fake.requests.length, 1);
});

test('a brain base_url that is not an http(s) URL is refused at create and PATCH (400)', async (t) => {
  for (const base_url of ['not a url', 'file:///etc/passwd', 'ftp://127.0.0.1/v1']) {
    const answer = await call(simulated, 'POST', '/v1/agents', {
      name: 'Bad brain',
      ontology: 'retail-v1',
      brain: { provider: 'openai', base_url, model: 'test-model' },
    });
    t.is(answer.status, 400, `${base_url}: ${answer.text}`);
    t.true(
      ['invalid_parameter', 'invalid_url'].includes(answer.body?.error?.code),
      `${base_url}: ${answer.text}`,
    );
    t.regex(String(answer.body?.error?.param), /base_url/, `${base_url}: ${answer.text}`);
  }
  const agentId = await agent(simulated);
  const patched = await call(simulated, 'PATCH', `/v1/agents/${agentId}`, {
    brain: { provider: 'openai', base_url: 'not a url' },
  });
  t.is(patched.status, 400, patched.text);
  t.is((await call(simulated, 'GET', `/v1/agents/${agentId}`)).body.data.brain, null);
});
