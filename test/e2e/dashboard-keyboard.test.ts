// The dashboard by keyboard only (page.keyboard, no mouse), in a real Chromium: Tab reaches the
// navigation with a visible focus ring, Enter follows a link and the focus lands on the new
// page's heading, "/" focuses the id search (but types a "/" inside a field), and a run is
// cancelled through its confirmation: Escape and "No" leave it running and give the focus back,
// Space opens the question again and Enter on "Yes" cancels it (checked through the REST API).
import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { type TestDaemon } from '../helpers/daemon.js';
import { type Receiver } from '../helpers/receiver.js';
import { createWorkflow, waitStep, type Api } from '../helpers/workflows.js';
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
let runId: string;

test.before(async () => {
  ({ browser, d, ws, api, receiver } = await startDashboardBench());
  const workflowId = await createWorkflow(api, {
    name: 'Cool off',
    status: 'active',
    trigger: { type: 'manual', config: {} },
    steps: [waitStep('cool_off', 3600)],
    settings: { timeout_seconds: 7200 }, // longer than the wait (a wait as long is refused)
  });
  const started = await api('POST', `/workflows/${workflowId}/execute`, { input: { n: 1 } });
  runId = started.body.data.execution_id;
  page = await loggedInPage(browser, d);
});

test.after.always(() => stopDashboardBench({ browser, receiver, d }));

/** What has the focus: its tag, text (or value) and accessible label, read in the page. */
function focused(): Promise<{ tag: string; text: string; label: string | null; id: string }> {
  return page.evaluate(() => {
    const element = (globalThis as any).document.activeElement;
    return {
      tag: element?.tagName.toLowerCase() ?? '',
      text: (element?.innerText ?? '').trim(),
      label: element?.getAttribute('aria-label') ?? null,
      id: element?.id ?? '',
    };
  });
}

/** Presses Tab (or Shift+Tab) until `matches` says the focused element is the one, at most 80 times. */
async function tabTo(
  matches: (f: Awaited<ReturnType<typeof focused>>) => boolean,
  key = 'Tab',
): Promise<number> {
  for (let presses = 1; presses <= 80; presses++) {
    await page.keyboard.press(key);
    if (matches(await focused())) return presses;
  }
  throw new Error(
    `${key} never reached the element; last focused: ${JSON.stringify(await focused())}`,
  );
}

/** The REST API's status of the run. */
async function runStatus(): Promise<string> {
  return (await api('GET', `/executions/${runId}`)).body.data.status;
}

test.serial(
  'Tab reaches the navigation with a visible ring; Enter goes, the heading gets the focus',
  async (t) => {
    await page.goto(`${d.url}/ui?ws=${ws}`);
    await page.locator('main h1', { hasText: 'Overview' }).waitFor();
    // The first stop is the skip link, shown when focused.
    await page.keyboard.press('Tab');
    t.like(await focused(), { tag: 'a', text: 'Skip to content' });
    const presses = await tabTo((f) => f.tag === 'a' && f.text === 'Workflow runs');
    t.log(`Tab presses from the skip link to "Workflow runs": ${presses}`);
    const ring = await page.evaluate(() => {
      const style = (globalThis as any).getComputedStyle(
        (globalThis as any).document.activeElement,
      );
      return { style: style.outlineStyle, width: parseFloat(style.outlineWidth) };
    });
    t.is(ring.style, 'solid', 'the focused link has an outline');
    t.true(ring.width >= 2, `outline ${ring.width}px`);
    await screenshot(page, 'keyboard-focus-ring');
    await page.keyboard.press('Enter');
    await page.locator('main h1', { hasText: 'Workflow runs' }).waitFor();
    await page.waitForFunction(() => {
      const active = (globalThis as any).document.activeElement;
      return active?.matches('main h1');
    });
    t.regex((await focused()).text, /^Workflow runs/);
    t.is(new URL(page.url()).pathname, '/ui/runs');
    // Tab from the heading goes on into the page, not back to the top.
    await page.keyboard.press('Tab');
    t.true(
      await page.evaluate(
        () => (globalThis as any).document.activeElement.closest('main') !== null,
      ),
      'the next Tab stop is inside the page',
    );
  },
);

test.serial(
  '"/" focuses the id search, except while typing in a field; Enter opens the id',
  async (t) => {
    await page.locator('main h1').focus();
    await page.keyboard.press('/');
    t.like(await focused(), { tag: 'input', id: 'find-id' });
    t.is(await page.locator('#find-id').inputValue(), '', 'the "/" itself is not typed');
    // Inside a field "/" is a character: the filter keeps the focus.
    await page.keyboard.type('a/b');
    t.is(await page.locator('#find-id').inputValue(), 'a/b');
    await page.locator('#find-id').fill('');
    await page.keyboard.type(runId);
    await page.keyboard.press('Enter');
    await page.locator('main h1', { hasText: runId }).waitFor();
    await page.waitForFunction(() =>
      (globalThis as any).document.activeElement?.matches('main h1'),
    );
    t.regex((await focused()).text, new RegExp(`^Run ${runId}`));
  },
);

test.serial(
  'cancel a run by keyboard: Escape and "No" keep it, Enter on "Yes" cancels',
  async (t) => {
    await page.goto(`${d.url}/ui/runs/${runId}?ws=${ws}`);
    await page.locator('li.step[data-step="cool_off"]').waitFor();
    const before = await runStatus();
    t.is(before, 'running', 'the run waits in its cool-off step');
    const isCancel = (f: Awaited<ReturnType<typeof focused>>) =>
      f.tag === 'button' && f.text === 'Cancel run';
    await tabTo(isCancel);
    const question = page.getByRole('group', { name: new RegExp(`^Cancel run ${runId}\\?`) });

    // Enter asks; the focus is on "No"; Escape closes the question and the focus goes back.
    await page.keyboard.press('Enter');
    await question.waitFor();
    t.like(await focused(), { tag: 'button', text: 'No' });
    t.deepEqual(await seriousViolations(page), [], 'axe with the question shown');
    await screenshot(page, 'keyboard-cancel-question');
    await page.keyboard.press('Escape');
    await question.waitFor({ state: 'detached' });
    t.true(isCancel(await focused()), 'Escape gives the focus back to "Cancel run"');
    t.is(await runStatus(), before);

    // Space asks too; Enter on "No" keeps the run, the focus back on the button.
    await page.keyboard.press('Space');
    await question.waitFor();
    await page.keyboard.press('Enter');
    await question.waitFor({ state: 'detached' });
    t.true(isCancel(await focused()), '"No" gives the focus back to "Cancel run"');
    t.is(await runStatus(), before);

    // Shift+Tab from "No" reaches "Yes, cancel the run"; Enter cancels.
    await page.keyboard.press('Enter');
    await question.waitFor();
    await page.keyboard.press('Shift+Tab');
    t.like(await focused(), { tag: 'button', text: 'Yes, cancel the run' });
    await page.keyboard.press('Enter');
    await page.locator('.run-head .badge', { hasText: 'cancelled' }).waitFor();
    t.is(await runStatus(), 'cancelled');
  },
);
