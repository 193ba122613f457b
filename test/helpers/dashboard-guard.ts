// The dashboard's guard, asserted for a page's new routes: every POST is refused with a forged or
// missing Origin, without the CSRF token, from a foreign Host (403) and without a session (401),
// in three spellings of its path; the page's list refuses a foreign Host and no session. The
// caller checks afterwards that nothing changed.
import type { ExecutionContext } from 'ava';
import { request as httpRequest } from 'node:http';
import type { Page } from 'playwright-core';
import type { TestDaemon } from './daemon.js';

export interface GuardedRoutes {
  /** Each POST path (under /ui/api/) with a body that would be accepted with the guard passed. */
  posts: [path: string, body: unknown][];
  /** The page's list (GET, under /ui/api/). */
  list: string;
}

export async function assertDashboardGuard(
  t: ExecutionContext,
  d: TestDaemon,
  page: Page,
  ws: string,
  routes: GuardedRoutes,
): Promise<void> {
  const port = new URL(d.url).port;
  const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  const raw = (
    path: string,
    method: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<number> =>
    new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path, method, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  const json = { 'content-type': 'application/json', host: `127.0.0.1:${port}`, cookie };
  const { cookie: _, ...noSession } = json;
  for (const [path, body] of routes.posts) {
    for (const spelled of [
      path,
      path.replace('/ui/', '/%75i/'),
      path.replace('/api/', '/%61pi/'),
    ]) {
      const at = `${spelled}?workspace=${ws}`;
      const origin = d.url;
      t.is(await raw(at, 'POST', { ...json, origin: 'http://attacker.example' }, body), 403);
      t.is(await raw(at, 'POST', json, body), 403, `no Origin: ${spelled}`);
      t.is(await raw(at, 'POST', { ...json, origin }, body), 403, `no CSRF token: ${spelled}`);
      t.is(
        await raw(at, 'POST', { ...json, host: `attacker.example:${port}`, origin }, body),
        403,
        `foreign Host: ${spelled}`,
      );
      t.is(
        await raw(at, 'POST', { ...noSession, origin, 'x-csrf-token': 'x' }, body),
        401,
        `no session: ${spelled}`,
      );
    }
  }
  const list = `${routes.list}?workspace=${ws}`;
  t.is(await raw(list, 'GET', { host: `attacker.example:${port}`, cookie }), 403, 'foreign Host');
  t.is(await raw(list, 'GET', { host: `127.0.0.1:${port}` }), 401, 'no session, no list');
}
