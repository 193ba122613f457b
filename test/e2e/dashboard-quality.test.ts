// The dashboard reads as a person expects, in a real Chromium: words and values never run
// together, an offset reads in words, the approval line on the Overview is a link, pages show a
// loading state and then no stray boot paragraph, the workspace picker shows whole ids, and what
// cannot be undone (reject) asks first. axe-core on each page touched.
import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { type TestDaemon } from '../helpers/daemon.js';
import { type Receiver } from '../helpers/receiver.js';
import { activeAgent, createWorkflow, type Api } from '../helpers/workflows.js';
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
let workflowId: string;
let runId: string;

async function open(path: string): Promise<void> {
  await page.goto(`${d.url}/ui${path}${path.includes('?') ? '&' : '?'}ws=${ws}`);
  await page.locator('main h1').first().waitFor();
}

/** The page's text as a person reads it (layout applied: blocks break lines, inline runs join). */
const readText = (selector: string) => page.locator(selector).first().innerText();

test.before(async () => {
  ({ browser, d, ws, api, receiver } = await startDashboardBench());
  const agent = await activeAgent(api, { autonomy_level: 'L2', name: 'Refund approver' });
  workflowId = await createWorkflow(api, {
    name: 'Check then review',
    status: 'active',
    trigger: { type: 'manual', config: {} },
    steps: [
      {
        id: 'check',
        name: 'Check',
        type: 'condition',
        config: { condition: 'trigger.payload.order > 100', if_true: 'big', if_false: 'review' },
      },
      { id: 'big', name: 'Big', type: 'wait', config: { duration_seconds: 0 } },
      {
        id: 'review',
        name: 'Review',
        type: 'agent_action',
        agent_id: agent.id,
        config: { action: 'issue_refund' },
      },
    ],
  });
  await api('POST', '/webhooks', { url: receiver.url, events: ['workflow.execution.started'] });
  const started = await api('POST', `/workflows/${workflowId}/execute`, { input: { order: 42 } });
  runId = started.body.data.execution_id;
  page = await loggedInPage(browser, d);
});

test.after.always(() => stopDashboardBench({ browser, receiver, d }));

test.serial('no words run together on the Overview, a run, approvals and webhooks', async (t) => {
  await open('');
  const line = page.locator('section[aria-labelledby="approvals-h"] li').first();
  await line.waitFor();
  const text = await line.innerText();
  t.regex(text, /^\w+ exec_\w+ waiting since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/, text);
  // The approval line is a link to the execution's page.
  await line.getByRole('link').click();
  await page.locator('main h1', { hasText: 'Agent execution' }).waitFor();
  const card = await readText('li.card');
  t.regex(card, /\w+ by Refund approver/);
  t.regex(card, /exec_\w+ · asked \S+ \S+ UTC · for run wex_\w+/);
  t.regex(card, /\(confidence \d+%\)/);

  await open(`/runs/${runId}`);
  const check = page.locator('li.step[data-step="check"]');
  await check.waitFor();
  const checkText = await check.innerText();
  t.regex(checkText, /took if false → review/, checkText);
  t.regex(checkText, /started \S+ \S+ UTC · ended \S+ \S+ UTC · \d/, checkText);

  await open('/webhooks');
  const hookCell = await readText('table[aria-label="Webhooks"] tbody td');
  t.regex(hookCell, /^http:\/\/\S+ hook_\w+$/, hookCell);
  t.is(await page.locator('.boot').count(), 0, 'the boot paragraph is gone once the app drew');
});

test.serial('pages show a loading state until their data comes', async (t) => {
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/ui/api/workflows?*', async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(`${d.url}/ui/workflows?ws=${ws}`);
  const loading = page.getByRole('status');
  await loading.waitFor();
  t.regex((await loading.innerText())!, /Loading workflows/);
  await screenshot(page, 'loading');
  release();
  await page.locator(`tr[data-workflow="${workflowId}"]`).waitFor();
  t.is(await page.locator('.loading').count(), 0);
  await page.unroute('**/ui/api/workflows?*');
  t.deepEqual(await seriousViolations(page), [], 'axe on Workflows');
});

test.serial('the workspace picker shows whole workspace ids', async (t) => {
  const other = await d.createWorkspace('A workspace with a rather long name for the picker');
  await open('');
  const select = page.getByRole('combobox', { name: 'Workspace' });
  const option = await select.locator(`option[value="${other}"]`).innerText();
  t.true(option.includes(other));
  // The closed picker is as wide as its longest option: nothing of an id is cut.
  const fits = await select.evaluate((element: any) => {
    // Runs in the page (the test's own types have no DOM).
    const page = globalThis as any;
    const canvas = page.document.createElement('canvas').getContext('2d');
    canvas.font = page.getComputedStyle(element).font;
    const widest = Math.max(
      ...[...element.options].map((o: any) => canvas.measureText(o.text.trim()).width),
    );
    return { widest, width: element.clientWidth };
  });
  t.true(fits.width >= fits.widest, `picker ${fits.width}px, longest option ${fits.widest}px`);
});

test.serial('rejecting asks first; "No" leaves the execution waiting', async (t) => {
  await open('/approvals');
  const card = page.locator('li.card').first();
  await card.waitFor();
  const executionId = (await card.getAttribute('data-execution'))!;
  await card.getByRole('button', { name: /^Reject/ }).click();
  await card
    .getByRole('group', { name: /^Reject \w+\? The execution ends as cancelled/ })
    .waitFor();
  t.deepEqual(await seriousViolations(page), [], 'axe with the question shown');
  await card.getByRole('button', { name: 'No', exact: true }).click();
  const approvals = await fetchApproval(executionId);
  t.is(approvals, 'awaiting_approval');
  await card.getByRole('button', { name: /^Reject/ }).click();
  await card.getByRole('button', { name: 'Yes, reject' }).click();
  await card.waitFor({ state: 'detached' });
  t.is(await fetchApproval(executionId), 'cancelled');
});

test.serial('the clock offset reads in words, on the Clock page and the Overview', async (t) => {
  await d.advance(350_701_000);
  await open('/clock');
  const now = await readText('.clock-now');
  t.regex(now, /ahead of real time \(.+\) by 4d 1h 25m 1s/, now);
  await open('');
  const facts = await readText('section[aria-labelledby="daemon-h"] dl');
  t.regex(facts, /4d 1h 25m \d+s ahead of real time; real time/, facts);
});

/** The execution's status through the REST API. */
async function fetchApproval(executionId: string): Promise<string> {
  const agents = await api('GET', '/agents');
  const agentId = agents.body.data[0].id;
  const answer = await api('GET', `/agents/${agentId}/executions/${executionId}`);
  return answer.body.data.status;
}
