// The Fault rules page in a real Chromium: a rule added on the page is the CLI's (svc faults list)
// and makes the next delivery fail as it says (seen through the REST API); a bad rule is refused
// with the flag to fix; clear asks first. The new routes keep the guard: Origin, CSRF, Host,
// session, however spelled, and change nothing when refused. axe-core, screenshots.
import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { type TestDaemon } from '../helpers/daemon.js';
import { type Receiver } from '../helpers/receiver.js';
import { activeAgent, type Api } from '../helpers/workflows.js';
import {
  loggedInPage,
  screenshot,
  seriousViolations,
  startDashboardBench,
  stopDashboardBench,
} from '../helpers/browser.js';
import { assertDashboardGuard } from '../helpers/dashboard-guard.js';
import { HANG_TIMEOUT_MS } from '../helpers/waiting.js';

let d: TestDaemon;
let api: Api;
let ws: string;
let browser: Browser;
let page: Page;
let receiver: Receiver;
let hookId: string;

test.before(async () => {
  ({ browser, d, ws, api, receiver } = await startDashboardBench());
  const hook = await api('POST', '/webhooks', { url: receiver.url, events: ['agent.created'] });
  hookId = hook.body.data.id;
  page = await loggedInPage(browser, d);
});

test.after.always(() => stopDashboardBench({ browser, receiver, d }));

/** The workspace's rules as `svc faults list --json` gives them. */
async function cliRules(): Promise<{ id: string; hits: number }[]> {
  const listed = await d.cli(['faults', 'list', '--json']);
  if (listed.code !== 0) throw new Error(listed.stderr);
  return listed.json().data;
}

/** The first attempt of the webhook's first delivery, once made. */
async function firstAttempt(): Promise<{ http_status: number | null; injected_fault: string }> {
  const deadline = Date.now() + HANG_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const list = await api('GET', `/webhooks/${hookId}/deliveries`);
    const delivery = list.body.data[0];
    if (delivery?.attempts > 0) {
      const detail = await api('GET', `/webhooks/${hookId}/deliveries/${delivery.id}`);
      return detail.body.data.attempts_history[0];
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no delivery attempt within ${HANG_TIMEOUT_MS / 1000} s`);
}

test.serial('a rule added on the page is the CLI’s and makes the delivery fail', async (t) => {
  await page.goto(`${d.url}/ui/faults?ws=${ws}`);
  await page.locator('main h1', { hasText: 'Fault rules' }).waitFor();
  await page.locator('.empty', { hasText: 'No fault rules in this workspace' }).waitFor();
  const add = page.getByRole('button', { name: 'Add the rule' });

  // Refused with what to fix, in the CLI's words: nothing is added.
  await add.click();
  const refusal = page.locator('.fault-form .error-note');
  await refusal.waitFor();
  t.regex(await refusal.innerText(), /needs exactly one of --webhook hook_\.\.\., --url-prefix/);
  await page.getByRole('textbox', { name: 'Deliveries of a webhook' }).fill(hookId);
  await page.getByRole('textbox', { name: 'Rate, 0 to 1 (--rate)' }).fill('2');
  await add.click();
  await page.locator('.fault-form .error-note', { hasText: 'rate' }).waitFor();
  t.regex(await refusal.innerText(), /^rate: /);
  await page.getByRole('textbox', { name: 'Rate, 0 to 1 (--rate)' }).fill('');
  await page.getByRole('textbox', { name: 'Attempts (--attempts)' }).fill('one');
  await add.click();
  await page.locator('.fault-form .error-note', { hasText: '--attempts' }).waitFor();
  t.deepEqual(await cliRules(), [], 'no rule was added by the refused forms');

  await page.getByRole('textbox', { name: 'Attempts (--attempts)' }).fill('1');
  await page.getByRole('textbox', { name: 'HTTP status (--status)' }).fill('503');
  await add.click();
  const row = page.locator('tr[data-fault]');
  await row.waitFor();
  const id = (await row.getAttribute('data-fault'))!;
  t.regex(id, /^flt_/);
  t.regex(
    await row.innerText(),
    new RegExp(`^${id}\\s+deliveries of ${hookId}\\s+attempt 1\\s+HTTP 503\\s+0\\s+0\\s+active\\s`),
  );
  t.deepEqual(
    (await cliRules()).map((rule) => rule.id),
    [id],
    'svc faults list shows the rule',
  );

  // Its effect through the REST API: the delivery's first attempt was answered 503 by the rule.
  await activeAgent(api, { name: 'Fault target' });
  const attempt = await firstAttempt();
  t.is(attempt.http_status, 503);
  t.is(attempt.injected_fault, id);
  t.deepEqual(await seriousViolations(page), [], 'axe on the Fault rules page');
  await screenshot(page, 'faults-1280');
  await page.setViewportSize({ width: 390, height: 800 });
  t.true((await page.evaluate<number>('document.documentElement.scrollWidth')) <= 390);
  await screenshot(page, 'faults-390');
  await page.setViewportSize({ width: 1280, height: 800 });
});

test.serial('clear asks first; "No" keeps the rules, "Yes" removes them all', async (t) => {
  await page.goto(`${d.url}/ui/faults?ws=${ws}`);
  await page.locator('tr[data-fault]').waitFor();
  const clear = page.getByRole('button', { name: 'Clear all rules' });
  await clear.click();
  t.regex(
    await page.locator('.confirm').innerText(),
    /Remove all 1 fault rule\(s\) of this workspace\?/,
  );
  await page.getByRole('button', { name: 'No', exact: true }).click();
  t.is((await cliRules()).length, 1, 'No keeps the rule');
  await clear.click();
  await page.getByRole('button', { name: 'Yes, clear them' }).click();
  await page.locator('.empty', { hasText: 'No fault rules in this workspace' }).waitFor();
  t.deepEqual(await cliRules(), []);
});

test.serial('the fault routes keep the guard and change nothing when refused', async (t) => {
  const added = await d.cli(['faults', 'add', '--webhook', hookId, '--status', '500', '--json']);
  t.is(added.code, 0, added.stderr);
  await assertDashboardGuard(t, d, page, ws, {
    posts: [
      ['/ui/api/faults', { webhook_id: hookId, status: 502 }],
      ['/ui/api/faults/clear', {}],
    ],
    list: '/ui/api/faults',
  });
  const rules = await cliRules();
  t.is(rules.length, 1, 'nothing added, nothing cleared');
  t.like(rules[0], { what: { status: 500 } });
});
