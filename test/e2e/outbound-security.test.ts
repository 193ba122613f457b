// Outbound calls cannot be steered inward (issue 10, items 1-4). A production daemon is started
// with a resolver stub (test/helpers/resolver-stub.mjs) that resolves public-looking names to
// 127.0.0.1, the way a hosts-file alias or a wildcard DNS name does; a TCP server on that port
// counts connections, so "refused" means the daemon never connected. Redirects are answers,
// never followed; the daemon's OpenAI key goes only to the daemon's own base URL.
import test, { type ExecutionContext } from 'ava';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { startReceiver } from '../helpers/receiver.js';
import { watchDeliveries } from '../helpers/events.js';

const STUB = pathToFileURL(join(ROOT, 'test', 'helpers', 'resolver-stub.mjs')).href;
const RESOLVE = 'hooks.example.test=127.0.0.1,model.example.test=127.0.0.1,v6.example.test=::1';

interface Listener {
  port: number;
  connections: () => number;
  close(): Promise<void>;
}

/** A TCP server on 127.0.0.1 that only counts the connections it accepts. */
async function countingListener(): Promise<Listener> {
  let count = 0;
  const server = createServer((socket) => {
    count += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function production(extraArgs: string[] = []): Promise<TestDaemon> {
  return startDaemon({
    args: ['--env', 'production', ...extraArgs],
    env: { NODE_OPTIONS: `--import=${STUB}`, SVC_TEST_RESOLVE: RESOLVE },
  });
}

/**
 * Creates a webhook on agent.created to `url` and calls its test endpoint: the webhook's id and
 * the test's answer (the create must succeed).
 */
async function testedHook(
  t: ExecutionContext,
  daemon: TestDaemon,
  auth: { key: string; tenant: string },
  url: string,
) {
  const created = await daemon.callJson(
    'POST',
    '/v1/webhooks',
    { url, events: ['agent.created'] },
    auth,
  );
  t.is(created.status, 201, created.text);
  const hookId = created.body.data.id as string;
  const tested = await daemon.callJson(
    'POST',
    `/v1/webhooks/${hookId}/test`,
    { event_type: 'agent.created' },
    auth,
  );
  return { hookId, tested };
}

let prod: TestDaemon;
let prodAuth: { key: string; tenant: string };
let listener: Listener;

test.before(async () => {
  listener = await countingListener();
  prod = await production();
  const operator = await prod.operator();
  prodAuth = { key: operator.key, tenant: operator.workspaceId };
});

test.after.always(async () => {
  await Promise.all([prod?.stop(), listener?.close()]);
});

test.serial(
  'production: a webhook on a name that resolves to 127.0.0.1 is never connected to (test endpoint and deliveries)',
  async (t) => {
    const { hookId, tested } = await testedHook(
      t,
      prod,
      prodAuth,
      `https://hooks.example.test:${listener.port}/hooks`,
    );
    t.is(tested.status, 200, tested.text);
    t.is(tested.body.data.status, 'failed');
    t.regex(tested.body.data.error, /Refused: hooks\.example\.test resolves to 127\.0\.0\.1/);

    // A real event: the delivery is attempted, recorded as failed, and still nothing connects.
    const attempts = await watchDeliveries(prod, { webhook_id: hookId }, t);
    const agent = await prod.callJson(
      'POST',
      '/v1/agents',
      { name: 'Trigger', ontology: 'retail-v1' },
      prodAuth,
    );
    t.is(agent.status, 201, agent.text);
    await attempts.waitFor(() => true, { what: 'delivery attempt' });
    const list = await prod.callJson(
      'GET',
      `/v1/webhooks/${hookId}/deliveries`,
      undefined,
      prodAuth,
    );
    const delivery = list.body.data[0];
    t.is(delivery?.attempts, 1);
    t.is(delivery.http_status, null);
    t.regex(delivery.error, /Refused: .*127\.0\.0\.1 \(loopback\)/);
    t.is(listener.connections(), 0, 'the daemon connected to loopback');
  },
);

test.serial(
  'production: an agent brain on a name that resolves to loopback is refused (502), nothing connects',
  async (t) => {
    const created = await prod.callJson(
      'POST',
      '/v1/agents',
      {
        name: 'Steered',
        ontology: 'retail-v1',
        autonomy_level: 'L3',
        brain: { provider: 'openai', base_url: `https://model.example.test:${listener.port}/v1` },
      },
      prodAuth,
    );
    t.is(created.status, 201, created.text);
    const id = created.body.data.id as string;
    t.is(
      (await prod.callJson('POST', '/v1/agents/deploy', { agent_id: id }, prodAuth)).status,
      200,
    );
    const executed = await prod.callJson(
      'POST',
      `/v1/agents/${id}/execute`,
      { input: 'hello', wait_for_completion: true },
      prodAuth,
    );
    t.is(executed.status, 502, executed.text);
    t.is(executed.body.error.code, 'external_api_error');
    t.regex(executed.body.error.message, /127\.0\.0\.1 \(loopback\)/);
    t.is(listener.connections(), 0, 'the daemon connected to loopback');
  },
);

test.serial('production: a name that resolves to ::1 is refused too', async (t) => {
  const { tested } = await testedHook(
    t,
    prod,
    prodAuth,
    `https://v6.example.test:${listener.port}/hooks`,
  );
  t.regex(tested.body.data.error, /Refused: v6\.example\.test resolves to ::1 \(loopback\)/);
});

test('production: literal private addresses are refused when stored, in every form', async (t) => {
  const refused = [
    'https://127.0.0.1/',
    'https://10.1.2.3/',
    'https://172.16.0.1/',
    'https://192.168.1.1/',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/',
    'https://0.0.0.0/',
    'https://224.0.0.1/',
    'https://[::1]/',
    'https://[::]/',
    'https://[fd00::1]/',
    'https://[fe80::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:a9fe:a9fe]/',
    'https://[64:ff9b::7f00:1]/',
    'https://0x7f000001/',
    'https://localhost/',
  ];
  for (const url of refused) {
    const answer = await prod.callJson(
      'POST',
      '/v1/webhooks',
      { url, events: ['agent.created'] },
      prodAuth,
    );
    t.is(answer.status, 400, `${url}: ${answer.text}`);
    t.is(answer.body.error.code, 'invalid_url', url);
  }
});

test('production with --allow-private-network connects to the same name (the check is what refused)', async (t) => {
  const allowing = await production(['--allow-private-network']);
  t.teardown(() => allowing.stop());
  const operator = await allowing.operator();
  const auth = { key: operator.key, tenant: operator.workspaceId };
  const local = await countingListener();
  t.teardown(() => local.close());
  const { tested } = await testedHook(
    t,
    allowing,
    auth,
    `https://hooks.example.test:${local.port}/hooks`,
  );
  t.is(tested.body.data.status, 'failed', 'the listener is not TLS, so it fails after connecting');
  t.notRegex(tested.body.data.error, /Refused/);
  t.true(local.connections() >= 1);
});

/** An HTTP server answering every request with a redirect to `location`; counts requests. */
async function redirector(
  location: string,
  status = 307,
): Promise<{ url: string; hits: () => number; server: Server }> {
  let hits = 0;
  const server = createHttpServer((req, res) => {
    hits += 1;
    req.resume();
    res.writeHead(status, { location });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: () => hits,
    server,
  };
}

test('redirects are answers, never followed: the brain (307) and webhooks (302, 308)', async (t) => {
  const target = await startFakeOpenAi(t);
  const receiver = await startReceiver(t);
  const brainRedirect = await redirector(`${target.baseUrl}/chat/completions`);
  const hookRedirect = await redirector(receiver.url, 302);
  const permanent = await redirector(receiver.url, 308);
  t.teardown(() => {
    for (const r of [brainRedirect, hookRedirect, permanent]) r.server.close();
  });
  const sandbox = await startDaemon();
  t.teardown(() => sandbox.stop());
  const operator = await sandbox.operator();
  const auth = { key: operator.key, tenant: operator.workspaceId };

  const agent = await sandbox.callJson(
    'POST',
    '/v1/agents',
    {
      name: 'Redirected',
      ontology: 'retail-v1',
      autonomy_level: 'L3',
      brain: { provider: 'openai', base_url: `${brainRedirect.url}/v1` },
    },
    auth,
  );
  t.is(agent.status, 201, agent.text);
  await sandbox.callJson('POST', '/v1/agents/deploy', { agent_id: agent.body.data.id }, auth);
  const executed = await sandbox.callJson(
    'POST',
    `/v1/agents/${agent.body.data.id}/execute`,
    { input: 'hello', wait_for_completion: true },
    auth,
  );
  t.is(executed.status, 502, executed.text);
  t.regex(executed.body.error.message, /HTTP 307/);
  t.is(brainRedirect.hits(), 1);
  t.is(target.requests.length, 0, 'the redirect was followed');

  for (const hop of [hookRedirect, permanent]) {
    const { tested } = await testedHook(t, sandbox, auth, `${hop.url}/hooks`);
    t.is(tested.body.data.status, 'failed');
    t.is(tested.body.data.http_status, hop === permanent ? 308 : 302);
    t.is(hop.hits(), 1);
  }
  t.is(receiver.requests.length, 0, 'a webhook redirect was followed');
});

interface KeyedBrains {
  daemon: TestDaemon;
  auth: { key: string; tenant: string };
  own: FakeOpenAi;
  theirs: FakeOpenAi;
}

async function keyedBrains(t: {
  teardown(fn: () => Promise<void> | void): void;
}): Promise<KeyedBrains> {
  const own = await startFakeOpenAi(t);
  const theirs = await startFakeOpenAi(t);
  own.answerJson({ action: 'respond', output: 'daemon model', confidence: 0.9 });
  theirs.answerJson({ action: 'respond', output: 'agent model', confidence: 0.9 });
  const daemon = await startDaemon({
    env: {
      SVC_AGENT_BRAIN: 'openai',
      SVC_OPENAI_BASE_URL: own.baseUrl,
      SVC_OPENAI_API_KEY: 'sk-daemon-private-key',
    },
  });
  t.teardown(() => daemon.stop());
  const operator = await daemon.operator();
  return { daemon, auth: { key: operator.key, tenant: operator.workspaceId }, own, theirs };
}

async function runAgent(s: KeyedBrains, brain: Record<string, unknown> | undefined) {
  const created = await s.daemon.callJson(
    'POST',
    '/v1/agents',
    { name: 'Keyed', ontology: 'retail-v1', autonomy_level: 'L3', ...(brain ? { brain } : {}) },
    s.auth,
  );
  if (created.status !== 201) return created;
  await s.daemon.callJson('POST', '/v1/agents/deploy', { agent_id: created.body.data.id }, s.auth);
  return s.daemon.callJson(
    'POST',
    `/v1/agents/${created.body.data.id}/execute`,
    { input: 'hello', wait_for_completion: true },
    s.auth,
  );
}

test("the daemon's OpenAI key goes only to the daemon's base URL, never to an agent's own base_url", async (t) => {
  const s = await keyedBrains(t);

  const daemonBrain = await runAgent(s, undefined);
  t.is(daemonBrain.status, 200, daemonBrain.text);
  t.is(s.own.requests.at(-1)?.headers.authorization, 'Bearer sk-daemon-private-key');

  // An agents:write key points an agent at its own server: it gets no key at all.
  const writer = await s.daemon.createKey('agents:read agents:write agents:execute');
  const steered = await runAgent(
    { ...s, auth: { key: writer.key, tenant: s.auth.tenant } },
    { provider: 'openai', base_url: s.theirs.baseUrl },
  );
  t.is(steered.status, 200, steered.text);
  t.is(steered.body.data.result.output, 'agent model');
  t.is(s.theirs.requests.length, 1);
  t.is(s.theirs.requests[0]!.headers.authorization, undefined);
  t.false(s.theirs.requests[0]!.raw.includes('sk-daemon-private-key'));

  // Naming a workspace secret: with no secret store wired, the workspace has none -> 502, no call.
  const named = await runAgent(s, {
    provider: 'openai',
    base_url: s.theirs.baseUrl,
    api_key_secret: 'THEIR_MODEL_KEY',
  });
  t.is(named.status, 502, named.text);
  t.regex(named.body.error.message, /THEIR_MODEL_KEY/);
  t.is(s.theirs.requests.length, 1, 'a call went out without the named key');
});

test('brain.api_key_secret is validated: a secret name, and only with base_url', async (t) => {
  const s = await keyedBrains(t);
  const withoutUrl = await runAgent(s, { provider: 'openai', api_key_secret: 'MODEL_KEY' });
  t.is(withoutUrl.status, 400, withoutUrl.text);
  t.is(withoutUrl.body.error.code, 'invalid_parameter');
  t.is(withoutUrl.body.error.param, 'brain.api_key_secret');
  const badName = await runAgent(s, {
    provider: 'openai',
    base_url: s.theirs.baseUrl,
    api_key_secret: 'not a name',
  });
  t.is(badName.status, 400, badName.text);
  t.is(badName.body.error.param, 'brain.api_key_secret');
});
