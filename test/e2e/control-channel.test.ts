// The control channel (tRPC at /trpc): only the control token opens it, the token opens
// nothing else, and the events.stream subscription delivers events live (through
// `svc events tail`, the way operators use it).
import { HANG_TIMEOUT_MS } from '../helpers/waiting.js';
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sharedDaemon } from '../helpers/setup.js';
import { CliStream } from '../helpers/cli-stream.js';

const d = sharedDaemon(test);
let token: string;

test.before(async () => {
  token = readFileSync(join(d.dataDir, 'control-token'), 'utf8').trim();
});

interface TrpcError {
  error: { message: string; code: number; data: { code: string; httpStatus: number } };
}

function trpcPost(path: string, input: unknown, authorization?: string) {
  return d.request(`/trpc/${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(authorization ? { authorization } : {}),
    },
    body: JSON.stringify(input),
  });
}

function assertUnauthorized(
  t: { is(a: unknown, b: unknown, m?: string): void },
  answer: { status: number; body: TrpcError; text: string },
) {
  t.is(answer.status, 401, answer.text);
  t.is(answer.body.error.data.code, 'UNAUTHORIZED');
  t.is(answer.body.error.data.httpStatus, 401);
}

test('GET /trpc without the control token or with a wrong one is 401', async (t) => {
  assertUnauthorized(t, await d.request('/trpc/daemon.status'));
  const sameLength = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
  for (const wrong of [`Bearer ${sameLength}`, 'Bearer nope', `Basic ${token}`, 'Bearer ']) {
    const answer = await d.request('/trpc/daemon.status', { headers: { authorization: wrong } });
    assertUnauthorized(t, answer);
  }
  const answer = await d.request('/trpc/auth.operatorCredential');
  assertUnauthorized(t, answer);
  t.false(answer.text.includes('sk_test_'), 'no credential leaks in the refusal');
});

test('POST /trpc without the control token or with a wrong one is 401 and changes nothing', async (t) => {
  assertUnauthorized(t, await trpcPost('workspaces.create', { name: 'intruder', tier: 'free' }));
  assertUnauthorized(
    t,
    await trpcPost('workspaces.create', { name: 'intruder', tier: 'free' }, 'Bearer wrong'),
  );
  assertUnauthorized(t, await trpcPost('clock.advance', { ms: 3_600_000 }, 'Bearer wrong'));
  assertUnauthorized(t, await trpcPost('daemon.shutdown', {}));

  const list = await d.cli(['workspaces', 'list', '--json']);
  t.is(list.code, 0);
  t.false(list.json<{ data: { name: string }[] }>().data.some((ws) => ws.name === 'intruder'));
  const clock = await d.cli(['clock', 'show', '--json']);
  t.is(clock.json().offset_ms, 0);
  t.is((await fetch(`${d.url}/healthz`)).status, 200, 'the daemon still runs');
});

test('the right control token opens the channel', async (t) => {
  const status = await d.request('/trpc/daemon.status', {
    headers: { authorization: `Bearer ${token}` },
  });
  t.is(status.status, 200, status.text);
  t.like(status.body.result.data, { pid: d.pid, url: d.url, environment: 'sandbox' });

  const created = await trpcPost(
    'workspaces.create',
    { name: 'via trpc', tier: 'business' },
    `Bearer ${token}`,
  );
  t.is(created.status, 200, created.text);
  t.regex(created.body.result.data.id, /^ws_/);
  t.like(created.body.result.data, { name: 'via trpc', tier: 'business', default: false });

  const invalid = await trpcPost(
    'workspaces.create',
    { name: 'bad', tier: 'platinum' },
    `Bearer ${token}`,
  );
  t.is(invalid.status, 400, invalid.text);
  t.is(invalid.body.error.data.code, 'BAD_REQUEST');
});

test('the control token is not an API key', async (t) => {
  const asBearer = await d.request('/v1/auth/me', { key: token });
  t.is(asBearer.status, 401);
  t.is(asBearer.body.error.code, 'invalid_token');
  const asQuery = await d.request(`/v1/auth/me?api_key=${encodeURIComponent(token)}`);
  t.is(asQuery.status, 401);
  t.is(asQuery.body.error.code, 'invalid_token');
  const events = await d.request('/v1/events', {
    key: token,
    tenant: (await d.operator()).workspaceId,
  });
  t.is(events.status, 401);
});

test('an API key is not the control token', async (t) => {
  const { key } = await d.operator();
  assertUnauthorized(
    t,
    await d.request('/trpc/daemon.status', { headers: { authorization: `Bearer ${key}` } }),
  );
  const admin = await d.createKey('admin', { name: 'admin-key' });
  assertUnauthorized(
    t,
    await d.request('/trpc/keys.list', { headers: { authorization: `Bearer ${admin.key}` } }),
  );
});

test('events.stream and deliveries.stream without the control token are 401 before any stream starts', async (t) => {
  for (const procedure of ['events.stream', 'deliveries.stream']) {
    for (const authorization of [undefined, 'Bearer nope']) {
      const controller = new AbortController();
      t.teardown(() => controller.abort());
      const response = await fetch(`${d.url}/trpc/${procedure}`, {
        signal: controller.signal,
        headers: { accept: 'text/event-stream', ...(authorization ? { authorization } : {}) },
      });
      t.is(response.status, 401, procedure);
      t.notRegex(response.headers.get('content-type') ?? '', /event-stream/);
      const body = (await response.json()) as TrpcError;
      t.is(body.error.data.code, 'UNAUTHORIZED');
      t.is(body.error.data.httpStatus, 401);
    }
  }
  // With the token the stream opens as before.
  const controller = new AbortController();
  const open = await fetch(`${d.url}/trpc/events.stream`, {
    signal: controller.signal,
    headers: { authorization: `Bearer ${token}` },
  });
  t.is(open.status, 200);
  t.regex(open.headers.get('content-type') ?? '', /event-stream/);
  controller.abort();
});

/** `svc events tail --json` as a child process; lines are collected as they come. */
class Tail extends CliStream {
  constructor(args: string[]) {
    super(['events', 'tail', '--json', ...args], d.env);
  }

  /** Resolves true once the event with this id is printed (false after the hang guard). */
  printed(id: string): Promise<boolean> {
    return this.waitFor((lines) => lines.some((line) => line.id === id), HANG_TIMEOUT_MS);
  }

  /**
   * The subscription starts some time after the process does: publish `type` until one
   * arrives, so that what the test triggers next is known to be streamed. Returns the ids used.
   */
  async warmUp(type: string): Promise<Set<string>> {
    const ids = new Set<string>();
    // Bounded by the hang guard, not a count of tries: the CLI starts slowly under load.
    const until = Date.now() + HANG_TIMEOUT_MS;
    while (Date.now() < until) {
      const event = await trigger(type);
      ids.add(event.id);
      if (await this.waitFor((lines) => lines.some((line) => ids.has(line.id)), 1_000)) {
        // The stream keeps order and was open before the one that arrived was published, so
        // the last one published arrives too: after it, no warm-up event is still on its way.
        await this.waitFor((lines) => lines.some((line) => line.id === event.id), HANG_TIMEOUT_MS);
        return ids;
      }
    }
    throw new Error(`events tail never streamed anything; stderr: ${this.stderr}`);
  }
}

async function trigger(type: string): Promise<{ id: string; type: string }> {
  const result = await d.cli(['events', 'trigger', type, '--json']);
  if (result.code !== 0) throw new Error(`events trigger ${type} failed: ${result.stderr}`);
  return result.json();
}

test.serial('svc events tail --json streams events as they are published', async (t) => {
  const tail = new Tail([]);
  t.teardown(() => {
    if (tail.child.exitCode === null) tail.child.kill('SIGKILL');
  });
  const warm = await tail.warmUp('agent.updated');

  const first = await trigger('agent.created');
  const second = await trigger('workflow.execution.completed');
  t.true(await tail.printed(second.id), `tail did not print ${second.id}; stderr: ${tail.stderr}`);
  const streamed = tail.lines.filter((line) => !warm.has(line.id));
  t.deepEqual(
    streamed.map((line) => [line.id, line.type]),
    [
      [first.id, 'agent.created'],
      [second.id, 'workflow.execution.completed'],
    ],
  );
  for (const line of streamed) {
    t.regex(line.id, /^evt_/);
    t.is(line.workspace_id, (await d.operator()).workspaceId);
    t.regex(line.created_at, /^\d{4}-\d{2}-\d{2}T/);
    t.is(typeof line.data, 'object');
  }

  const exit = await tail.stop();
  t.not(exit, 'timeout', 'events tail stops on SIGINT');
  if (exit !== 'timeout') t.is(exit.code, 0, `exit ${exit.code} ${exit.signal}; ${tail.stderr}`);
});

test.serial('svc events tail --events workflow.* streams only those types', async (t) => {
  const tail = new Tail(['--events', 'workflow.*']);
  t.teardown(() => {
    if (tail.child.exitCode === null) tail.child.kill('SIGKILL');
  });
  const warm = await tail.warmUp('workflow.created');

  const skipped = await trigger('agent.created');
  const kept = await trigger('workflow.execution.completed');
  const skippedToo = await trigger('integration.connected');
  const last = await trigger('workflow.updated');
  t.true(await tail.printed(last.id), `tail did not print ${last.id}; stderr: ${tail.stderr}`);
  const streamed = tail.lines.filter((line) => !warm.has(line.id));
  t.deepEqual(
    streamed.map((line) => line.id),
    [kept.id, last.id],
  );
  t.true(tail.lines.every((line) => String(line.type).startsWith('workflow.')));
  t.false(tail.lines.some((line) => line.id === skipped.id || line.id === skippedToo.id));

  const exit = await tail.stop();
  t.not(exit, 'timeout', 'events tail stops on SIGINT');
});
