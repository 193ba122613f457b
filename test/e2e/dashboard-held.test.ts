// The API's newer fields on the dashboard, in a real Chromium: a delivery held by a paused webhook
// reads "held" (with how to send it) on the webhook and delivery pages, and Resume sends it (seen
// through the REST API); a schedule's next run is the workflow's top-level next_run_at, "none"
// for a paused workflow. axe-core on each page.
import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { type TestDaemon } from '../helpers/daemon.js';
import { type Receiver } from '../helpers/receiver.js';
import { activeAgent, createWorkflow, waitStep, type Api } from '../helpers/workflows.js';
import {
  loggedInPage,
  screenshot,
  seriousViolations,
  startDashboardBench,
  stopDashboardBench,
} from '../helpers/browser.js';
import { HANG_TIMEOUT_MS } from '../helpers/waiting.js';

let d: TestDaemon;
let api: Api;
let ws: string;
let browser: Browser;
let page: Page;
let receiver: Receiver;

test.before(async () => {
  ({ browser, d, ws, api, receiver } = await startDashboardBench());
  page = await loggedInPage(browser, d);
});

test.after.always(() => stopDashboardBench({ browser, receiver, d }));

async function until<T>(what: string, read: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + HANG_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what}: not within ${HANG_TIMEOUT_MS / 1000} s`);
}

test.serial('a held delivery reads "held" with how to send it; Resume sends it', async (t) => {
  const hook = (await api('POST', '/webhooks', { url: receiver.url, events: ['agent.created'] }))
    .body.data;
  // The first attempt fails (a retry is due), then the webhook is paused: the delivery is held.
  receiver.respondWith(500);
  await activeAgent(api, { name: 'Held for now' });
  const pending = await until('a failed first attempt', async () => {
    const first = (await api('GET', `/webhooks/${hook.id}/deliveries`)).body.data[0];
    return first?.http_status === 500 ? first : undefined;
  });
  t.is((await api('PATCH', `/webhooks/${hook.id}`, { status: 'paused' })).status, 200);
  const held = (await api('GET', `/webhooks/${hook.id}/deliveries/${pending.id}`)).body.data;
  t.like(held, { status: 'pending', held: true, next_attempt_at: null });
  receiver.respondWith(200);

  await page.goto(`${d.url}/ui/webhooks/${hook.id}/deliveries/${held.id}?ws=${ws}`);
  const items = page.locator(`li[data-delivery="${held.id}"]`);
  await items.nth(1).waitFor();
  for (const item of [items.first(), items.nth(1)]) {
    t.is(await item.locator('summary .badge').innerText(), 'held');
    t.regex(
      await item.locator('.held-hint').innerText(),
      new RegExp(
        `^Held: the webhook is not active, so nothing is attempted\\. Resume the webhook \\(its ` +
          `Resume button above, or svc webhooks update ${hook.id} --status active\\) to send ` +
          'every held delivery at once, or Resend now to send this one\\.$',
      ),
    );
  }
  t.deepEqual(await seriousViolations(page), [], 'axe on a held delivery');
  await screenshot(page, 'delivery-held-1280');

  await page.getByRole('button', { name: `Resume ${hook.url}` }).click();
  const sent = await until('the delivery sent', async () => {
    const delivery = (await api('GET', `/webhooks/${hook.id}/deliveries/${held.id}`)).body.data;
    return delivery.status === 'delivered' ? delivery : undefined;
  });
  t.false(sent.held);
  // Both views of it update live: delivered, and no hint left.
  await items.first().locator('summary .status-delivered').waitFor();
  await items.nth(1).locator('summary .status-delivered').waitFor();
  t.is(await page.locator('.held-hint').count(), 0, 'no hint once sent');
});

test.serial("a schedule's next run is the workflow's next_run_at; none when paused", async (t) => {
  const body = (status: string) => ({
    name: `Nightly ${status}`,
    status,
    trigger: { type: 'schedule', config: { cron: '0 2 * * *', timezone: 'Europe/Paris' } },
    steps: [waitStep('pause', 1)],
  });
  const active = await createWorkflow(api, body('active'));
  const stored = (await api('GET', `/workflows/${active}`)).body.data;
  t.regex(stored.next_run_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
  await page.goto(`${d.url}/ui/workflows/${active}?ws=${ws}`);
  const shown = page.locator('[data-field="next_run_at"]');
  await shown.waitFor();
  const expected = `${stored.next_run_at.slice(0, 19).replace('T', ' ')} UTC (sandbox clock)`;
  t.is((await shown.innerText()).trim(), expected);
  t.deepEqual(await seriousViolations(page), [], 'axe on a scheduled workflow');

  const paused = await createWorkflow(api, body('paused'));
  t.is((await api('GET', `/workflows/${paused}`)).body.data.next_run_at, null);
  await page.goto(`${d.url}/ui/workflows/${paused}?ws=${ws}`);
  await shown.waitFor();
  t.is((await shown.innerText()).trim(), 'none: the workflow is not active');
});
