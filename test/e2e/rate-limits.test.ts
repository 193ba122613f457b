// Rate limits against the real daemon (decisions §6, §10): the X-RateLimit-* headers, the
// tier's burst and per-minute buckets per credential, the per-operation auth.me bucket per
// workspace, the 429 body in both forms, and an unlimited-looking enterprise workspace.
//
// Windows are aligned on the daemon clock, so each test sets the sandbox clock, frozen, to the
// instants it wants (through the control channel) and fires its requests there: a batch lands
// in one window however long the machine takes to send it (under load, 50 requests took over a
// second and spilled into the next window while the clock ticked). No test depends on where
// real time happens to be, or on how fast it passes.
import test, { type ExecutionContext } from 'ava';
import { startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { control } from '../helpers/api.js';

let daemon: TestDaemon;

type Answer = Awaited<ReturnType<TestDaemon['request']>>;

/** Each test gets its own minute, later than the previous test's. */
const BASE = Date.parse('2030-01-01T00:00:00Z');
let nextMinute = 0;
function freshMinute(): number {
  nextMinute += 10;
  return BASE + nextMinute * 60_000;
}

test.before(async () => {
  daemon = await startDaemon();
});

test.after.always(async () => {
  await daemon?.stop();
});

/** Sets the daemon clock to an exact instant, frozen there until the next set or advance. */
async function setClock(epochMs: number): Promise<void> {
  await control(daemon, 'clock.set', { to: new Date(epochMs).toISOString(), frozen: true });
}

/**
 * A key in a new workspace of this tier, both made over the control channel (what `svc
 * workspaces create --tier` and `svc keys create` do, tested in cli-operator.test.ts).
 */
async function workspaceKey(tier: string, scopes = 'admin'): Promise<string> {
  const workspace = await daemon.createWorkspace(`${tier} workspace`, tier);
  return (await daemon.createKey(scopes, { workspace })).key;
}

function many(count: number, path: string, key: string): Promise<Answer[]> {
  return Promise.all(Array.from({ length: count }, () => daemon.request(path, { key })));
}

function assertRateHeaders(t: ExecutionContext, answer: Answer): void {
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    t.regex(answer.headers.get(name) ?? '', /^\d+$/, `${name} on a ${answer.status}`);
  }
  t.true(
    Number(answer.headers.get('x-ratelimit-remaining')) <=
      Number(answer.headers.get('x-ratelimit-limit')),
  );
}

function assert429(
  t: ExecutionContext,
  answer: Answer,
  limit: number,
  windowEnd: number,
  retryAfter: [number, number],
): void {
  t.is(answer.status, 429, answer.text);
  const error = answer.body?.error;
  t.is(error?.code, 'rate_limit_exceeded');
  t.is(error.type, 'rate_limit_error');
  t.is(typeof error.message, 'string');
  t.is(error.request_id, answer.headers.get('x-request-id'));
  t.is(error.documentation_url, `${daemon.url}/docs/errors#rate_limit_exceeded`);
  t.is(error.limit, limit);
  t.is(error.remaining, 0);
  t.is(error.reset_at, new Date(windowEnd).toISOString(), 'reset_at: end of the window, ISO');
  const wait = Number(answer.headers.get('retry-after'));
  t.true(Number.isInteger(wait), `Retry-After ${answer.headers.get('retry-after')}`);
  t.true(wait >= retryAfter[0] && wait <= retryAfter[1], `Retry-After ${wait}`);
  assertRateHeaders(t, answer);
  t.is(answer.headers.get('x-ratelimit-limit'), String(limit));
  t.is(answer.headers.get('x-ratelimit-remaining'), '0');
  t.is(answer.headers.get('x-ratelimit-reset'), String(Math.ceil(windowEnd / 1000)));
}

test.serial('every authenticated answer carries X-RateLimit-Limit/Remaining/Reset', async (t) => {
  const key = await workspaceKey('free', 'webhooks:read');
  const start = freshMinute();
  await setClock(start);
  const me = await daemon.request('/v1/auth/me', { key });
  t.is(me.status, 200, me.text);
  assertRateHeaders(t, me);
  // The tightest bucket of a fresh free key is the burst: 5 per second, 4 left.
  t.is(me.headers.get('x-ratelimit-limit'), '5');
  t.is(me.headers.get('x-ratelimit-remaining'), '4');
  t.is(me.headers.get('x-ratelimit-reset'), String(start / 1000 + 1), 'unix seconds');

  const meId = me.body.data.workspace_id as string;
  const list = await daemon.request('/v1/events', { key, tenant: meId });
  t.is(list.status, 200, list.text);
  assertRateHeaders(t, list);
  t.is(list.headers.get('x-ratelimit-remaining'), '3');

  // Authenticated errors carry them too.
  const missing = await daemon.request('/v1/events/evt_nope', { key, tenant: meId });
  t.is(missing.status, 404);
  assertRateHeaders(t, missing);
  const invalid = await daemon.request('/v1/events?limit=0', { key, tenant: meId });
  t.is(invalid.status, 400);
  assertRateHeaders(t, invalid);
});

test.serial('burst: the 6th request within a second of a free key is 429', async (t) => {
  const key = await workspaceKey('free', 'webhooks:read');
  const other = await workspaceKey('free', 'webhooks:read');
  let answers: Answer[] = [];
  let second = 0;
  // Retry once in case the machine is so slow that the batch crossed into the next second.
  for (let attempt = 0; attempt < 2; attempt++) {
    second = freshMinute();
    await setClock(second);
    answers = await many(8, '/v1/auth/me', key);
    if (answers.filter((a) => a.status === 200).length === 5) break;
    t.log(`attempt ${attempt + 1}: ${answers.map((a) => a.status).join(',')}`);
  }
  const ok = answers.filter((answer) => answer.status === 200);
  const limited = answers.filter((answer) => answer.status === 429);
  t.is(ok.length, 5, answers.map((a) => a.status).join(','));
  t.is(limited.length, 3);
  for (const answer of ok) assertRateHeaders(t, answer);
  for (const answer of limited) assert429(t, answer, 5, second + 1000, [1, 1]);

  // Request limits count per credential: another key is not affected.
  t.is((await daemon.request('/v1/auth/me', { key: other })).status, 200);

  // With Accept: application/problem+json the 429 is flat.
  const problem = await daemon.request('/v1/auth/me', {
    key,
    headers: { accept: 'application/problem+json' },
  });
  t.is(problem.status, 429, problem.text);
  t.regex(problem.headers.get('content-type') ?? '', /^application\/problem\+json/);
  t.deepEqual(Object.keys(problem.body).sort(), ['detail', 'status', 'title', 'type']);
  t.is(problem.body.type, 'rate_limit_exceeded');
  t.is(problem.body.status, 429);
  t.is(typeof problem.body.title, 'string');
  t.true(problem.body.title.length > 0);
  t.regex(problem.body.detail, /\d+ ?s/, 'detail gives the wait in seconds');
  t.regex(problem.headers.get('retry-after') ?? '', /^\d+$/);
  t.regex(problem.headers.get('x-request-id') ?? '', /^req_/);

  // The CLI's clock advance moves into a fresh window.
  const advanced = await daemon.cli(['clock', 'advance', '1m', '--json']);
  t.is(advanced.code, 0, advanced.stderr);
  const again = await daemon.request('/v1/auth/me', { key });
  t.is(again.status, 200, again.text);
  t.is(again.headers.get('x-ratelimit-remaining'), '4');
});

test.serial(
  'per minute: a free key gets 20 requests, then 429 until the next minute',
  async (t) => {
    const key = await workspaceKey('free', 'webhooks:read');
    const start = freshMinute();
    // Four batches of 5 in four consecutive seconds: never over the burst.
    for (let i = 0; i < 4; i++) {
      await setClock(start + i * 1000);
      const answers = await many(5, '/v1/auth/me', key);
      t.deepEqual(
        answers.map((answer) => answer.status),
        [200, 200, 200, 200, 200],
        `batch ${i}`,
      );
      if (i === 3) {
        for (const answer of answers) assertRateHeaders(t, answer);
        const remaining = answers.map((answer) =>
          Number(answer.headers.get('x-ratelimit-remaining')),
        );
        t.is(Math.min(...remaining), 0, 'the last one used up the minute');
      }
    }
    await setClock(start + 4000);
    const limited = await daemon.request('/v1/auth/me', { key });
    assert429(t, limited, 20, start + 60_000, [50, 56]);
    t.regex(limited.body.error.message, /minute/);

    await setClock(start + 30_000);
    t.is((await daemon.request('/v1/auth/me', { key })).status, 429, 'same minute: still limited');

    await daemon.advance('1m'); // the CLI's clock advance is the first test's
    t.is((await daemon.request('/v1/auth/me', { key })).status, 200, 'next minute: fine again');
  },
);

test.serial('auth.me is 60/minute per workspace even on business (300/min)', async (t) => {
  const workspace = await daemon.createWorkspace('Business', 'business');
  const key = (await daemon.createKey('admin', { workspace })).key;
  const second = (await daemon.createKey('admin', { workspace, name: 'second' })).key;

  const start = freshMinute();
  await setClock(start);
  const first50 = await many(50, '/v1/auth/me', key);
  t.is(first50.filter((answer) => answer.status === 200).length, 50, 'burst of 50 is fine');
  await setClock(start + 1000);
  const next10 = await many(10, '/v1/auth/me', key);
  t.is(next10.filter((answer) => answer.status === 200).length, 10);

  await setClock(start + 2000);
  const limited = await daemon.request('/v1/auth/me', { key });
  assert429(t, limited, 60, start + 60_000, [50, 58]);
  t.regex(limited.body.error.message, /auth\.me/);

  // Per workspace: another key of the same workspace is limited on this operation too...
  const sameWorkspace = await daemon.request('/v1/auth/me', { key: second });
  t.is(sameWorkspace.status, 429, sameWorkspace.text);
  t.is(sameWorkspace.body.error.limit, 60);
  // ...while other operations of the same key still run (61 requests < 300/min).
  const events = await daemon.request('/v1/events', { key, tenant: workspace });
  t.is(events.status, 200, events.text);
  assertRateHeaders(t, events);

  await daemon.advance('1m');
  t.is((await daemon.request('/v1/auth/me', { key })).status, 200);
});

test.serial('the enterprise default workspace is not limited at 100 quick requests', async (t) => {
  const { key, workspaceId } = await daemon.operator();
  await setClock(freshMinute());
  const answers = await many(100, '/v1/auth/me', key);
  t.deepEqual([...new Set(answers.map((answer) => answer.status))], [200], 'all 100 answered 200');
  for (const answer of answers) assertRateHeaders(t, answer);
  t.true(Number(answers[0]!.headers.get('x-ratelimit-limit')) >= 5000);

  const list = await Promise.all(
    Array.from({ length: 100 }, () =>
      daemon.request('/v1/events?limit=1', { key, tenant: workspaceId }),
    ),
  );
  t.deepEqual([...new Set(list.map((answer) => answer.status))], [200]);
});
