// Team mode (issue 54): a dashboard login on one daemon works on the others of the sandbox.
// The login link `svc dashboard` gets from daemon A is opened on daemon B (a load balancer's
// pick); the session cookie B sets (one name for the sandbox, so a browser sends it to every
// daemon of it) is a session on A too, with the same CSRF token; a logout on A ends it on B.
import test from 'ava';
import { dashboardLoginUrl } from '../helpers/browser.js';
import type { TestDaemon } from '../helpers/daemon.js';
import { throwawayPostgres, twoDaemonsOn } from '../helpers/postgres.js';
import { daemonsStoppedAfterFile } from '../helpers/team-daemons.js';

const started = daemonsStoppedAfterFile();

/** The dashboard's session answer on `d` with this cookie: its status and CSRF token. */
async function sessionOn(d: TestDaemon, cookie: string) {
  const answer = await fetch(`${d.url}/ui/api/session`, { headers: { cookie } });
  const body = (await answer.json()) as { data?: { csrf_token: string }; csrf_token?: string };
  return { status: answer.status, csrf: body.data?.csrf_token ?? body.csrf_token };
}

test.serial('a login link of one daemon, opened on the other, is a session on both', async (t) => {
  const { url } = await throwawayPostgres();
  const [a, b] = await twoDaemonsOn(url, 'team_dashboard', started);
  const link = new URL(await dashboardLoginUrl(a));
  const onB = new URL(link.pathname + link.search, b.url);
  const login = await fetch(onB, { redirect: 'manual' });
  t.is(login.status, 303, await login.text());
  const [cookie] = login.headers.getSetCookie().map((header) => header.split(';')[0]!);
  t.truthy(cookie);
  t.regex(cookie!, /^svc_ui_\w+=/);
  t.is((await fetch(link, { redirect: 'manual' })).status, 401, 'the link is spent on A too');

  const [fromB, fromA] = [await sessionOn(b, cookie!), await sessionOn(a, cookie!)];
  t.is(fromB.status, 200);
  t.is(fromA.status, 200, 'the session made on B is known on A');
  t.truthy(fromA.csrf);
  t.is(fromA.csrf, fromB.csrf);

  const logout = await fetch(`${a.url}/ui/logout`, {
    method: 'POST',
    headers: { cookie: cookie!, origin: a.url, 'x-csrf-token': fromA.csrf! },
  });
  t.is(logout.status, 200, await logout.text());
  t.is((await sessionOn(b, cookie!)).status, 401, 'logged out on A: out on B');
});
