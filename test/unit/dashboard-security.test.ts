// The dashboard's login tokens and sessions, its Host/Origin guard, and the lanes of a run's
// timeline.
import type { TypedStep } from '../../shared/schemas/steps.js';
import test from 'ava';
import type { FastifyRequest } from 'fastify';
import { serverUrls } from '../../daemon/domain/urls.js';
import { allowedHosts, refuse } from '../../daemon/dashboard/guard.js';
import { laneOf } from '../../daemon/dashboard/lanes.js';
import {
  DashboardSessions,
  LOGIN_TOKEN_TTL_MS,
  SESSION_IDLE_MS,
} from '../../daemon/dashboard/sessions.js';

function sessions() {
  const clock = { now: 1_000_000 };
  return { clock, store: new DashboardSessions(() => clock.now) };
}

test('a login token gives one session, once', (t) => {
  const { store } = sessions();
  const { token } = store.mintLoginToken();
  const first = store.redeem(token);
  t.truthy(first);
  t.is(store.redeem(token), undefined, 'a second use is refused');
  t.deepEqual(store.session(first!.sessionId), first!.session);
  t.is(store.session('forged'), undefined);
});

test('a login token expires after 5 minutes; a session after 12 idle hours', (t) => {
  const { clock, store } = sessions();
  const late = store.mintLoginToken();
  clock.now += LOGIN_TOKEN_TTL_MS;
  t.is(store.redeem(late.token), undefined);
  const { sessionId } = store.redeem(store.mintLoginToken().token)!;
  clock.now += SESSION_IDLE_MS - 1;
  t.truthy(store.session(sessionId), 'a request keeps it alive');
  clock.now += SESSION_IDLE_MS + 1;
  t.is(store.session(sessionId), undefined);
});

test('the CSRF token is compared whole', (t) => {
  const { store } = sessions();
  const { session } = store.redeem(store.mintLoginToken().token)!;
  t.true(DashboardSessions.csrfMatches(session, session.csrfToken));
  t.false(DashboardSessions.csrfMatches(session, session.csrfToken.slice(1)));
  t.false(DashboardSessions.csrfMatches(session, undefined));
});

const urls = serverUrls('127.0.0.1', 7717);
const request = (headers: Record<string, string>, method = 'GET', remote = '127.0.0.1') =>
  ({ headers, method, socket: { remoteAddress: remote } }) as unknown as FastifyRequest;

test('only loopback clients naming the daemon in Host get in; changes need its Origin', (t) => {
  t.deepEqual([...allowedHosts(urls)].sort(), ['127.0.0.1:7717', '[::1]:7717', 'localhost:7717']);
  t.is(refuse(request({ host: '127.0.0.1:7717' }), urls), undefined);
  t.is(refuse(request({ host: 'localhost:7717' }), urls), undefined);
  t.is(refuse(request({ host: 'evil.example:7717' }), urls)?.status, 403);
  t.is(refuse(request({ host: '127.0.0.1:7717' }, 'GET', '10.0.0.2'), urls)?.status, 403);
  t.is(refuse(request({ host: '127.0.0.1:7717' }, 'POST'), urls)?.status, 403, 'no Origin');
  const origin = (value: string) =>
    refuse(request({ host: '127.0.0.1:7717', origin: value }, 'POST'), urls);
  t.is(origin('http://127.0.0.1:7717'), undefined);
  t.is(origin('http://evil.example')?.status, 403);
  t.is(origin('http://127.0.0.1:7718')?.status, 403, 'another port is another origin');
  t.is(origin('null')?.status, 403);
});

test('parallel branches get their own lanes; conditions stay on theirs', (t) => {
  const step = (id: string, type: string, config: object = {}, next: string | null = null) =>
    ({
      id,
      name: id,
      type,
      agent_id: null,
      config,
      next_step_id: next,
      on_error: null,
    }) as TypedStep;
  const lanes = laneOf([
    step('check', 'condition', { if_true: 'fan', if_false: 'skip' }),
    step('fan', 'parallel', { steps: ['a', 'b'] }, 'join'),
    step('a', 'wait', {}, 'a2'),
    step('a2', 'wait'),
    step('b', 'wait'),
    step('skip', 'wait'),
    step('join', 'wait'),
  ]);
  t.deepEqual(
    lanes.map((lane) => [lane.key, lane.step_ids]),
    [
      ['main', ['check', 'fan', 'join', 'skip']],
      ['main/fan.1', ['a', 'a2']],
      ['main/fan.2', ['b']],
    ],
  );
});
