// Re-runs in the dashboard, in a real Chromium: a re-run from a step is started from the step
// on the timeline, calls only that step and the later ones again (counted at the receiver), shows
// the steps it copied apart from its own time axis with the original's id, and links back to the
// original, which lists it. axe-core on both run pages.
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

test('a re-run from a step chosen on the timeline reads as a re-run, both ways', async (t) => {
  const call = (id: string, next?: string) => ({
    id,
    name: id,
    type: 'webhook',
    config: { url: `${receiver.url}/${id}`, method: 'POST', body: { step: id } },
    ...(next ? { next_step_id: next } : {}),
  });
  const flow = await createWorkflow(api, {
    name: 'Pipeline',
    status: 'active',
    steps: [call('reserve', 'charge'), call('charge', 'notify'), call('notify')],
  });
  const first = await api('POST', `/workflows/${flow}/execute`, {
    input: { order: 'A-1' },
    wait_for_completion: true,
  });
  t.is(first.body.data.status, 'completed');
  const original: string = first.body.data.execution_id;
  const calls = (step: string) => receiver.requests.filter((r) => r.path.endsWith(`/${step}`));

  await page.goto(`${d.url}/ui/runs/${original}?ws=${ws}`);
  await page.locator('main h1', { hasText: original }).waitFor();
  await page.getByRole('button', { name: 'Re-run from here: step charge' }).click();
  await page.waitForURL(
    (url) => !url.pathname.endsWith(original) && /\/runs\/wex_/.test(url.pathname),
  );
  const rerun = new URL(page.url()).pathname.split('/').at(-1)!;
  await page.locator('.run-head .status-completed').waitFor();

  // Through the REST API: a re-run of the original from charge, which called charge and notify only.
  const stored = await api('GET', `/workflows/${flow}/executions/${rerun}`);
  t.like(stored.body.data, { rerun_of: original, from_step_id: 'charge', status: 'completed' });
  t.deepEqual(
    [calls('reserve').length, calls('charge').length, calls('notify').length],
    [1, 2, 2],
    'only the chosen step and the later ones were called again',
  );

  // The copied step is marked with the original's id and kept off the re-run's time axis.
  const copied = page.locator('li.step[data-step="reserve"]');
  t.is(await copied.count(), 1);
  t.is(await copied.getAttribute('data-copied-from'), original);
  t.is(await copied.locator('.bar').count(), 0, 'no bar on the time axis');
  t.regex(await copied.innerText(), new RegExp(`copied[\\s\\S]*ran in ${original} at`));
  t.is(await page.locator('.lanes li.step[data-step="charge"] .bar').count(), 1);
  const lineage = page.getByRole('navigation', { name: 'Re-runs' });
  t.regex(await lineage.innerText(), new RegExp(`^Re-run of ${original} from step charge$`));
  await screenshot(page, 'rerun');
  t.deepEqual(await seriousViolations(page), [], 'axe on the re-run');

  // Back to the original: it lists its re-run, which links forward.
  await lineage.getByRole('link', { name: original }).click();
  await page.locator('main h1', { hasText: original }).waitFor();
  const back = page.getByRole('navigation', { name: 'Re-runs' });
  t.regex(await back.innerText(), new RegExp(`Re-run once: ${rerun}`));
  await back.getByRole('link', { name: rerun }).click();
  await page.locator('main h1', { hasText: rerun }).waitFor();
  t.deepEqual(await seriousViolations(page), [], 'axe on the original');
});
