// The dashboard at 390 px wide (a phone), in a real Chromium: the side navigation folds behind a
// menu button, and no page scrolls sideways (long ids wrap or are cut with their whole text in a
// title). Every page is visited with data on it; screenshots of each go to test-results/dashboard/.
import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { type TestDaemon } from '../helpers/daemon.js';
import { type Receiver } from '../helpers/receiver.js';
import { waitStep, type Api } from '../helpers/workflows.js';
import {
  dashboardLoginUrl,
  dashboardPages,
  openDashboardPage,
  screenshot,
  seedPageObjects,
  seriousViolations,
  startDashboardBench,
  stopDashboardBench,
  type PageObjects,
} from '../helpers/browser.js';

const WIDTH = 390;
let d: TestDaemon;
let api: Api;
let ws: string;
let browser: Browser;
let page: Page;
let receiver: Receiver;
let ids: Partial<PageObjects> = {};

test.before(async () => {
  ({ browser, d, ws, api, receiver } = await startDashboardBench());
  ids = await seedPageObjects(api, {
    workflow: {
      name: 'A workflow with a rather long name that must wrap on a phone',
      trigger: { type: 'manual', config: {} },
      steps: [waitStep('a_cool_off_step_with_a_long_identifier', 3600)],
      settings: { timeout_seconds: 7200 }, // longer than the wait (a wait as long is refused)
    },
    input: { order: 42 },
    hookUrl: `${receiver.url}/a/rather/long/path/that/goes/on/and/on/for/a/while`,
  });
  const loginUrl = await dashboardLoginUrl(d);
  const context = await browser.newContext({ viewport: { width: WIDTH, height: 800 } });
  page = await context.newPage();
  await page.goto(loginUrl);
  await page.locator('main h1', { hasText: 'Overview' }).waitFor();
});

test.after.always(() => stopDashboardBench({ browser, receiver, d }));

test.serial('the side navigation folds behind a menu button below 700 px', async (t) => {
  const nav = page.getByRole('navigation', { name: 'Dashboard' });
  const menu = page.getByRole('button', { name: 'Menu' });
  t.false(await nav.isVisible(), 'folded at first');
  t.is(await menu.getAttribute('aria-expanded'), 'false');
  await menu.click();
  t.true(await nav.isVisible());
  t.is(await menu.getAttribute('aria-expanded'), 'true');
  t.deepEqual(await seriousViolations(page), [], 'axe with the menu open');
  await screenshot(page, 'narrow-menu-390');
  // Picking a page goes there and folds the menu again.
  await nav.getByRole('link', { name: 'Workflow runs' }).click();
  await page.locator('main h1', { hasText: 'Workflow runs' }).waitFor();
  t.false(await nav.isVisible(), 'folded after a pick');
  t.is(await menu.getAttribute('aria-expanded'), 'false');
  // Escape folds it too, and gives the focus back to the button.
  await menu.click();
  await page.keyboard.press('Escape');
  t.false(await nav.isVisible());
  t.true(await menu.evaluate((button) => button.matches(':focus')));

  // At 1280 px the navigation shows and the menu button does not.
  await page.setViewportSize({ width: 1280, height: 800 });
  t.true(await nav.isVisible());
  t.false(await menu.isVisible());
  await page.setViewportSize({ width: WIDTH, height: 800 });
});

/** Every page, with data on it: path, a text of its heading, the screenshot's name. */
const pages = () => dashboardPages(ids, 'A workflow with');

// One test a page (the names are known before the data exists), so that each ends well within
// ava's timeout (5 minutes without a test ending) on a slow machine: 18 pages with axe-core in
// one test came close to it at load 50 (issue 52).
for (const [, , name] of pages()) {
  test.serial(`the ${name} page does not scroll sideways at 390 px`, async (t) => {
    await openDashboardPage(
      page,
      d,
      ws,
      pages().find((entry) => entry[2] === name)!,
    );
    const width = await page.evaluate<number>('document.documentElement.scrollWidth');
    t.log(`${name}: scrollWidth ${width}`);
    t.true(width <= WIDTH, `${name} is ${width} px wide`);
    await screenshot(page, `${name}-390`);
    const violations = await seriousViolations(page);
    t.deepEqual(
      violations.map((v) => v.id),
      [],
      'axe-core serious or critical findings at 390 px',
    );
  });
}
