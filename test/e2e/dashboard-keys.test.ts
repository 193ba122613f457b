// The Keys page in a real Chromium: a key created from the page works against the REST API (its
// secret shown once), a key revoked from the page (after a confirmation) answers 401, and the new
// routes keep the guard (Origin, CSRF, session). axe-core on the page, screenshots at 1280 and 390.
import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { launchChromium, loggedInPage, screenshot, seriousViolations } from '../helpers/browser.js';

let d: TestDaemon;
let ws: string;
let browser: Browser;
let page: Page;

test.before(async () => {
  browser = await launchChromium();
  d = await startDaemon();
  ws = (await d.operator()).workspaceId;
  page = await loggedInPage(browser, d);
});

test.after.always(async () => {
  await browser?.close();
  await d?.stop();
});

/** GET /v1/workflows with `key`: its status. */
async function listWith(key: string): Promise<number> {
  return (await d.callJson('GET', '/v1/workflows', undefined, { key, tenant: ws })).status;
}

test.serial(
  'a key created on the page works; revoked after a confirmation, it answers 401',
  async (t) => {
    await page.goto(`${d.url}/ui/keys?ws=${ws}`);
    await page.locator('main h1', { hasText: 'API keys' }).waitFor();
    await page.locator('.empty', { hasText: 'No API keys in this workspace yet.' }).waitFor();
    await page.getByLabel('Name').fill('CI reader');
    await page.getByRole('checkbox', { name: 'workflows:read' }).check();
    await page.getByRole('button', { name: 'Create the key' }).click();
    const secret = page.locator('[data-field="new-key"]');
    await secret.waitFor();
    const key = (await secret.innerText()).trim();
    t.regex(
      await page.locator('.created-key p').innerText(),
      /^Key CI reader created\. Copy its secret now: it is not shown again\.$/,
    );
    const row = page.locator('tr', { hasText: 'CI reader' });
    await row.waitFor();
    t.regex(await row.innerText(), /CI reader\s+\.\.\.\w+\s+workflows:read\s+sandbox\s+active/);
    t.false((await row.innerText()).includes(key), 'the table never shows the secret');
    t.is(await listWith(key), 200, 'the new key works against the REST API');
    t.deepEqual(await seriousViolations(page), [], 'axe on the Keys page');
    await screenshot(page, 'keys-1280');
    await page.setViewportSize({ width: 390, height: 800 });
    await screenshot(page, 'keys-390');
    await page.setViewportSize({ width: 1280, height: 800 });

    // Revoke asks first: "No" leaves the key working.
    await row.getByRole('button', { name: 'Revoke CI reader' }).click();
    await row.getByRole('button', { name: 'No', exact: true }).click();
    t.is(await listWith(key), 200, 'No leaves the key as it was');
    await row.getByRole('button', { name: 'Revoke CI reader' }).click();
    t.regex(await row.locator('.confirm').innerText(), /Requests with it will answer 401 at once/);
    await row.getByRole('button', { name: 'Yes, revoke it' }).click();
    await row.locator('.status-revoked').waitFor();
    t.is(await listWith(key), 401, 'the revoked key answers 401');
  },
);

test.serial(
  'the keys routes keep the guard: Origin, CSRF, session; other workspaces',
  async (t) => {
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const post = (path: string, headers: Record<string, string>, body: unknown = {}) =>
      fetch(`${d.url}${path}?workspace=${ws}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const create = { name: 'forged', scopes: ['admin'] };
    const created = await d.cli([
      'keys',
      'create',
      '--name',
      'target',
      '--scopes',
      'workflows:read',
      '--json',
    ]);
    t.is(created.code, 0, created.stderr);
    const target = created.json() as { id: string; key: string };
    for (const [path, body] of [
      ['/ui/api/keys', create],
      [`/ui/api/keys/${target.id}/revoke`, {}],
    ] as const) {
      t.is((await post(path, { cookie, origin: 'http://attacker.example' }, body)).status, 403);
      t.is((await post(path, { cookie }, body)).status, 403, 'no Origin');
      const noToken = await post(path, { cookie, origin: d.url }, body);
      t.is(noToken.status, 403);
      t.is(
        ((await noToken.json()) as { error: { code: string } }).error.code,
        'csrf_token_invalid',
      );
      t.is(
        (await post(path, { origin: d.url, 'x-csrf-token': 'x' }, body)).status,
        401,
        'no session',
      );
    }
    t.is((await fetch(`${d.url}/ui/api/keys?workspace=${ws}`)).status, 401, 'no session, no list');
    t.is(await listWith(target.key), 200, 'the target key was not revoked');
    const keys = await d.cli(['keys', 'list', '--json']);
    t.false(keys.stdout.includes('forged'), 'no key was created');

    // With the page's own token: a key of another workspace is not this page's to revoke.
    const made = await d.cli([
      'workspaces',
      'create',
      '--name',
      'Other',
      '--tier',
      'starter',
      '--json',
    ]);
    t.is(made.code, 0, made.stderr);
    const other = made.json() as { id: string };
    const madeKey = await d.cli(
      ['keys', 'create', '--name', 'foreign', '--scopes', 'workflows:read'].concat([
        '--workspace',
        other.id,
        '--json',
      ]),
    );
    t.is(madeKey.code, 0, madeKey.stderr);
    const foreign = madeKey.json() as { id: string; key: string };
    const refused = await page.evaluate(
      async ([id, workspace]) => {
        const session = (await (await fetch('/ui/api/session')).json()) as { csrf_token: string };
        const answer = await fetch(`/ui/api/keys/${id}/revoke?workspace=${workspace}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf_token },
          body: '{}',
        });
        return { status: answer.status, body: (await answer.json()) as { error: object } };
      },
      [foreign.id, ws],
    );
    t.is(refused.status, 404);
    t.like(refused.body.error, {
      code: 'not_found',
      param: 'key_id',
      message: `No API key ${foreign.id} in this workspace.`,
    });
    const stillWorks = await d.callJson('GET', '/v1/workflows', undefined, {
      key: foreign.key,
      tenant: other.id,
    });
    t.is(stillWorks.status, 200, "the other workspace's key still works");
  },
);
