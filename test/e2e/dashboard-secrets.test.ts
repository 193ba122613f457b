// The Secrets page in a real Chromium: a secret set on the page is the one a workflow step sends
// (seen by a receiver, started through the REST API), its value never shown; deleted after a
// confirmation, a run needing it fails with secret_not_found. The new routes keep the guard:
// Origin, CSRF, Host, session, however spelled, and change nothing when refused. axe-core.
import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { type TestDaemon } from '../helpers/daemon.js';
import { type Receiver } from '../helpers/receiver.js';
import { createWorkflow, type Api } from '../helpers/workflows.js';
import {
  loggedInPage,
  screenshot,
  seriousViolations,
  startDashboardBench,
  stopDashboardBench,
} from '../helpers/browser.js';
import { assertDashboardGuard } from '../helpers/dashboard-guard.js';

const VALUE = 'tok-from-the-page-123';
let d: TestDaemon;
let api: Api;
let ws: string;
let browser: Browser;
let page: Page;
let receiver: Receiver;
let flow: string;

test.before(async () => {
  ({ browser, d, ws, api, receiver } = await startDashboardBench());
  flow = await createWorkflow(api, {
    name: 'Call with a token',
    status: 'active',
    trigger: { type: 'manual', config: {} },
    steps: [
      {
        id: 'call',
        name: 'Call',
        type: 'webhook',
        config: {
          url: receiver.url,
          headers: { authorization: 'Bearer {{secrets.API_TOKEN}}' },
          body: {},
        },
      },
    ],
  });
  page = await loggedInPage(browser, d);
});

test.after.always(() => stopDashboardBench({ browser, receiver, d }));

const run = () =>
  api('POST', `/workflows/${flow}/execute`, { input: {}, wait_for_completion: true });

async function cliNames(): Promise<string[]> {
  const listed = await d.cli(['secrets', 'list', '--json']);
  if (listed.code !== 0) throw new Error(listed.stderr);
  return (listed.json().data as { name: string }[]).map((secret) => secret.name);
}

test.serial('a secret set on the page is what a step sends; deleted, the step fails', async (t) => {
  await page.goto(`${d.url}/ui/secrets?ws=${ws}`);
  await page.locator('main h1', { hasText: 'Secrets' }).waitFor();
  await page.locator('.empty', { hasText: 'No secrets in this workspace yet.' }).waitFor();
  const set = page.getByRole('button', { name: 'Set the secret' });

  // A bad name is refused with the rule; nothing is stored.
  await page.getByLabel('Name').fill('1bad');
  await page.getByLabel('Value').fill(VALUE);
  await set.click();
  const refusal = page.locator('form .error-note');
  await refusal.waitFor();
  t.is(await refusal.innerText(), 'name: letters, digits and _, not starting with a digit');
  t.deepEqual(await cliNames(), []);

  await page.getByLabel('Name').fill('API_TOKEN');
  await set.click();
  const row = page.locator('tr[data-secret="API_TOKEN"]');
  await row.waitFor();
  t.is(await page.getByLabel('Value').inputValue(), '', 'the value field is emptied');
  t.regex(await row.innerText(), /^API_TOKEN\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\s+\d{4}-/);
  t.false((await page.content()).includes(VALUE), 'the value is nowhere on the page');
  t.deepEqual(await cliNames(), ['API_TOKEN']);

  const answer = await run();
  t.is(answer.status, 200, JSON.stringify(answer.body));
  t.is(receiver.requests.at(-1)!.header('authorization'), `Bearer ${VALUE}`);
  t.deepEqual(await seriousViolations(page), [], 'axe on the Secrets page');
  await screenshot(page, 'secrets-1280');
  await page.setViewportSize({ width: 390, height: 800 });
  t.true((await page.evaluate<number>('document.documentElement.scrollWidth')) <= 390);
  await screenshot(page, 'secrets-390');
  await page.setViewportSize({ width: 1280, height: 800 });

  // Delete asks first: "No" keeps it.
  await row.getByRole('button', { name: 'Delete API_TOKEN' }).click();
  t.regex(
    await row.locator('.confirm').innerText(),
    /Steps that use \{\{secrets\.API_TOKEN\}\} fail with secret_not_found until it is set again\./,
  );
  await row.getByRole('button', { name: 'No', exact: true }).click();
  t.deepEqual(await cliNames(), ['API_TOKEN'], 'No keeps the secret');
  await row.getByRole('button', { name: 'Delete API_TOKEN' }).click();
  await row.getByRole('button', { name: 'Yes, delete it' }).click();
  await page.locator('.empty', { hasText: 'No secrets in this workspace yet.' }).waitFor();
  const failed = await run();
  t.is(failed.status, 500);
  t.is(failed.body.error.underlying_error.code, 'secret_not_found');
});

test.serial('the secrets routes keep the guard and change nothing when refused', async (t) => {
  t.is((await d.cli(['secrets', 'set', 'KEEP_ME', 'v1'])).code, 0);
  await assertDashboardGuard(t, d, page, ws, {
    posts: [
      ['/ui/api/secrets', { name: 'FORGED', value: 'x' }],
      ['/ui/api/secrets/KEEP_ME/delete', {}],
    ],
    list: '/ui/api/secrets',
  });
  t.deepEqual(await cliNames(), ['KEEP_ME'], 'nothing set, nothing deleted');
});
