// Issue 55, point 7, in a real Chromium: the Workflows page is paged as the runs page is (25 a
// page, "N in all", Older / Newest), not the first 100 with no pager; the webhooks list counts
// every delivery the deliveries list shows (a replay's too: it counted only the event fan-out's);
// copy that runs text into a <code> element keeps its space ("as svc faults add", "the REST
// POST").
import test from 'ava';
import type { Page } from 'playwright-core';
import {
  loggedInPage,
  startDashboardBench,
  stopDashboardBench,
  type DashboardBench,
} from '../helpers/browser.js';
import { createWorkflow, waitStep } from '../helpers/workflows.js';

let bench: DashboardBench;
let page: Page;

test.before(async () => {
  bench = await startDashboardBench();
  page = await loggedInPage(bench.browser, bench.d);
});

test.after.always(async () => {
  if (bench) await stopDashboardBench(bench);
});

async function open(path: string): Promise<void> {
  await page.goto(`${bench.d.url}/ui${path}?ws=${bench.ws}`);
  await page.locator('main h1').first().waitFor();
}

const rows = (label: string) => page.locator(`table[aria-label="${label}"] tbody tr`);

test.serial('the Workflows page pages; the webhooks list and its deliveries agree', async (t) => {
  const { api, ws, receiver, d } = bench;
  const create = (n: number) =>
    createWorkflow(api, {
      name: `Flow ${String(n).padStart(2, '0')}`,
      trigger: { type: 'manual', config: {} },
      steps: [waitStep('pause', 60)],
    });
  for (let n = 1; n <= 27; n++) await create(n);
  // From here on, each new workflow is a delivery (workflow.created), then a replay of them all.
  const hook = await api('POST', '/webhooks', { url: receiver.url, events: ['workflow.created'] });
  t.is(hook.status, 201, JSON.stringify(hook.body));
  const hookId = hook.body.data.id as string;
  for (let n = 28; n <= 30; n++) await create(n);
  // A replay takes deliveries that have ended (--status all leaves pending ones out): the three
  // first attempts must have come back, however long a loaded machine takes to send them.
  t.is((await d.cli(['settle', '--timeout', '60s'])).code, 0);
  const replay = await d.cli([
    'webhooks',
    'replay',
    hookId,
    '--status',
    'all',
    '--wait',
    '--json',
    '--workspace',
    ws,
  ]);
  t.is(replay.code, 0, replay.stderr);
  t.is(replay.json().count, 3);

  await open('/workflows');
  await page.locator('nav.pager', { hasText: '30 in all' }).waitFor();
  t.is(await rows('Workflows').count(), 25);
  t.is(await rows('Workflows').first().locator('a').innerText(), 'Flow 30', 'newest first');
  await page.getByRole('button', { name: 'Older' }).click();
  await rows('Workflows').filter({ hasText: 'Flow 01' }).waitFor();
  t.is(await rows('Workflows').count(), 5);
  await page.getByRole('button', { name: 'Newest' }).click();
  await rows('Workflows').filter({ hasText: 'Flow 30' }).waitFor();

  await open('/webhooks');
  const row = rows('Webhooks').filter({ hasText: hookId });
  t.is(await row.locator('td').nth(3).innerText(), '6', 'three fan-out deliveries, three replays');
  await open(`/webhooks/${hookId}`);
  await page.locator('nav.pager', { hasText: '6 in all' }).waitFor();
  t.pass();
});

test.serial('text before a <code> element keeps its space', async (t) => {
  await open('/faults');
  t.regex(
    await page.locator('main p.hint').first().innerText(),
    /on purpose, as svc faults add does\./,
  );

  const id = await createWorkflow(bench.api, {
    name: 'By hand',
    trigger: { type: 'manual', config: {} },
    steps: [waitStep('pause', 60)],
  });
  await open(`/workflows/${id}`);
  const manual = page.locator('main p', { hasText: 'Started by hand' });
  t.regex(
    await manual.innerText(),
    new RegExp(`svc workflows run ${id}, or the REST POST /v1/workflows/${id}/execute\\.`),
  );
});
