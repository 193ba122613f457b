// The dashboard's dark theme, in a real Chromium: with the system asking for dark
// (prefers-color-scheme, emulated), every page draws dark (the page, its panels, the step graph's
// boxes), axe-core finds no serious or critical violation (colour contrast included) with data
// on the page and a confirmation open, and each page is saved in both themes at 1280 and 390 px
// (test-results/dashboard/theme-*) for a person to look at, unless screenshots are off (the
// gate): then the pages visited only to be saved are not visited.
import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { type TestDaemon } from '../helpers/daemon.js';
import { type Receiver } from '../helpers/receiver.js';
import { waitStep, type Api } from '../helpers/workflows.js';
import {
  dashboardPages,
  loggedInPage,
  openDashboardPage,
  screenshot,
  screenshotsWanted,
  seedPageObjects,
  seriousViolations,
  startDashboardBench,
  stopDashboardBench,
  type PageObjects,
} from '../helpers/browser.js';

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
      name: 'Refund router',
      trigger: { type: 'manual', config: {} },
      steps: [
        {
          id: 'check',
          name: 'Check amount',
          type: 'condition',
          config: {
            condition: 'trigger.payload.amount > 100',
            if_true: 'cool_off',
            if_false: 'notify',
          },
        },
        { ...waitStep('cool_off', 3600), name: 'Cool off' },
        {
          id: 'notify',
          name: 'Notify finance',
          type: 'webhook',
          config: { url: `${receiver.url}/notify`, method: 'POST', body: {} },
          on_error: 'cool_off',
        },
      ],
      settings: { timeout_seconds: 7200 }, // longer than the wait (a wait as long is refused)
    },
    input: { amount: 500 },
    hookUrl: receiver.url,
  });
  await api('POST', '/keys', { name: 'Reporting', scopes: ['workflows:read'] });
  page = await loggedInPage(browser, d);
});

test.after.always(() => stopDashboardBench({ browser, receiver, d }));

/**
 * The pages a loop visits only to save them for a person to look at: every page when screenshots
 * are saved, else the last one alone, the page the checks after the loop look at.
 */
const pagesToSave = (): [string, string, string][] =>
  screenshotsWanted() ? pages() : pages().slice(-1);

/** Every page, with data on it: path, a text of its heading, the screenshot's name. */
const pages = () => dashboardPages(ids, 'Refund router');

/** Opens a page of pages() by its path and heading. */
const open = (path: string, heading: string) => openDashboardPage(page, d, ws, [path, heading]);

/** Relative luminance (WCAG) of a computed CSS colour such as rgb(13, 17, 23). */
async function luminance(selector: string, property: string): Promise<number> {
  const value: string = await page
    .locator(selector)
    .first()
    .evaluate(
      (element, name) => (globalThis as any).getComputedStyle(element).getPropertyValue(name),
      property,
    );
  const [r, g, b] = (value.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((part: string) => {
    const c = Number(part) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

// One test a page (the names are known before the data exists), so that each ends well within
// ava's timeout (5 minutes without a test ending) on a slow machine: the 17 pages with axe-core in
// one test took over 5 minutes at load 50 (issue 52).
for (const [, , name] of pages()) {
  test.serial(`dark: the ${name} page draws dark, axe-core finds nothing serious`, async (t) => {
    const [path, heading] = pages().find((entry) => entry[2] === name)!;
    await page.emulateMedia({ colorScheme: 'dark' });
    await open(path, heading);
    const ground = await luminance('html', 'background-color');
    const panel = await luminance('.side', 'background-color');
    const text = await luminance('main h1', 'color');
    const drawn = `page ${ground.toFixed(3)}, panel ${panel.toFixed(3)}, heading ${text.toFixed(3)}`;
    t.log(`${name}: ${drawn}`);
    t.false(ground > 0.05 || panel > 0.05 || text < 0.6, `not drawn dark: ${drawn}`);
    await screenshot(page, `theme-dark-${name}-1280`);
    const violations = await seriousViolations(page);
    t.deepEqual(
      violations.map((v) => `${v.id} ${JSON.stringify(v.nodes)}`),
      [],
      'axe-core serious or critical findings in the dark theme',
    );
  });
}

test.serial('dark: the step graph, a confirmation and a narrow screen read well too', async (t) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await open(`/runs/${ids.wex}`, 'Run');
  const waiting = `svg.step-graph g.node[data-step="cool_off"][data-state="waiting"] rect`;
  await page.locator(waiting).waitFor();
  // The graph's boxes follow the theme: a waiting step's box is a dark fill, a plain one too.
  t.true((await luminance(waiting, 'fill')) < 0.1, 'waiting box fill is dark');
  t.true((await luminance('svg.step-graph g.node rect', 'fill')) < 0.1, 'box fill is dark');
  t.true((await luminance('svg.step-graph g.node text', 'fill')) > 0.4, 'box text is light');
  await page.getByRole('button', { name: 'Cancel run' }).click();
  await page.getByRole('group', { name: /^Cancel run/ }).waitFor();
  t.deepEqual(await seriousViolations(page), [], 'axe with the question shown, dark');
  await screenshot(page, 'theme-dark-run-confirm-1280');
  await page.getByRole('button', { name: 'No', exact: true }).click();

  await page.setViewportSize({ width: 390, height: 800 });
  try {
    // That every page draws at 390 px is dashboard-narrow's check; dark, this file's page tests'.
    for (const [path, heading, name] of pagesToSave()) {
      await open(path, heading);
      await screenshot(page, `theme-dark-${name}-390`);
    }
    await page.getByRole('button', { name: 'Menu' }).click();
    t.deepEqual(await seriousViolations(page), [], 'axe with the menu open at 390 px, dark');
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
});

test.serial('light stays light when the system asks for light', async (t) => {
  await page.emulateMedia({ colorScheme: 'light' });
  for (const [path, heading, name] of pagesToSave()) {
    await open(path, heading);
    await screenshot(page, `theme-light-${name}-1280`);
  }
  t.true((await luminance('html', 'background-color')) > 0.8, 'light page');
  t.true((await luminance('.side', 'background-color')) > 0.8, 'light panel');
  t.deepEqual(await seriousViolations(page), [], 'axe on the last page, light');
});
