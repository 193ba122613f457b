// A run's event history on its page, in a real Chromium: every event the run published, in the
// order published, with the step of each step event and the webhook deliveries of each (status,
// attempts, a link to the delivery's page), the same events and deliveries the REST API lists;
// another run's events are not in it. Pages of the history chain by cursor; a cursor of another
// run is refused. axe-core, screenshots at 1280 and 390 px.
import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { type TestDaemon } from '../helpers/daemon.js';
import { type Receiver } from '../helpers/receiver.js';
import { allEvents, createWorkflow, type Api } from '../helpers/workflows.js';
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
let hook: string;
let flow: string;

const call = (id: string, next?: string) => ({
  id,
  name: `Call ${id}`,
  type: 'webhook',
  config: { url: `${receiver.url}/step/${id}`, method: 'POST', body: { step: id } },
  ...(next ? { next_step_id: next } : {}),
});

test.before(async () => {
  ({ browser, d, ws, api, receiver } = await startDashboardBench());
  const created = await api('POST', '/webhooks', {
    url: `${receiver.url}/hook`,
    events: [
      'workflow.execution.started',
      'workflow.execution.step_completed',
      'workflow.execution.completed',
    ],
  });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  hook = created.body.data?.id ?? created.body.id;
  flow = await createWorkflow(api, {
    name: 'Two calls',
    status: 'active',
    steps: [call('reserve', 'charge'), call('charge')],
  });
  page = await loggedInPage(browser, d);
});

test.after.always(() => stopDashboardBench({ browser, receiver, d }));

async function runToEnd(): Promise<string> {
  const answer = await api('POST', `/workflows/${flow}/execute`, {
    input: {},
    wait_for_completion: true,
  });
  if (answer.body.data?.status !== 'completed') throw new Error(JSON.stringify(answer.body));
  return answer.body.data.execution_id;
}

/** The webhook's deliveries (REST), once each has been attempted. */
async function settledDeliveries(count: number): Promise<any[]> {
  for (let tries = 0; tries < 200; tries += 1) {
    const listed = await api('GET', `/webhooks/${hook}/deliveries?limit=100`);
    const data = listed.body.data as any[];
    if (data.length >= count && data.every((delivery) => delivery.status !== 'pending'))
      return data;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('deliveries not attempted in 10 s');
}

/** GET on the dashboard API from the logged-in page (its session cookie). */
async function dashboardGet(path: string): Promise<{ status: number; body: any }> {
  return page.evaluate(
    async (url) => {
      const response = await fetch(url);
      return { status: response.status, body: await response.json() };
    },
    `${path}${path.includes('?') ? '&' : '?'}workspace=${ws}`,
  );
}

test.serial('a run page lists the events the run published, with their deliveries', async (t) => {
  const run = await runToEnd();
  const other = await runToEnd();
  const deliveries = await settledDeliveries(8);

  const published = (await allEvents(api, 'workflow.execution.*')).filter(
    (event) => event.data.execution_id === run,
  );
  t.is(published.length, 4, 'started, two steps, completed');

  await page.goto(`${d.url}/ui/runs/${run}?ws=${ws}`);
  const entries = page.locator(`ol[aria-label="Events of run ${run}"] > li`);
  await entries.nth(3).waitFor();
  // The text as rendered (innerText: the words as a reader sees them, spaces included).
  type Shown = { innerText: string };
  const shown = await entries.evaluateAll((items) =>
    items.map((item) => ({
      id: item.getAttribute('data-event'),
      type: item.getAttribute('data-type'),
      line: (item.querySelector('.history-line') as unknown as Shown).innerText,
      deliveries: [...item.querySelectorAll('[data-delivery]')].map((line) => ({
        id: line.getAttribute('data-delivery'),
        text: (line as unknown as Shown).innerText,
      })),
    })),
  );
  t.deepEqual(
    shown.map((entry) => entry.type),
    [
      'workflow.execution.started',
      'workflow.execution.step_completed',
      'workflow.execution.step_completed',
      'workflow.execution.completed',
    ],
    'in the order published',
  );
  t.deepEqual(
    shown.map((entry) => entry.id).sort(),
    published.map((event) => event.id).sort(),
    'the events the REST API lists for this run, and only those',
  );
  // The rendered words keep their spaces (htm drops whitespace at line breaks).
  t.regex(
    shown[1]!.line,
    /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC workflow\.execution\.step_completed · step reserve \(Call reserve\) completed · evt_\w+$/,
  );
  t.regex(shown[2]!.line, / · step charge \(Call charge\) completed · /);
  t.regex(shown[0]!.line, / workflow\.execution\.started running · evt_/);

  for (const entry of shown) {
    const expected = deliveries.filter((delivery) => delivery.event_id === entry.id);
    t.is(expected.length, 1, `one delivery of ${entry.id} (REST)`);
    t.deepEqual(
      entry.deliveries.map((line) => line.id),
      expected.map((delivery) => delivery.id),
    );
    t.regex(
      entry.deliveries[0]!.text,
      new RegExp(`^Delivery ${expected[0].id} to ${hook} delivered · 1 attempt · HTTP 200$`),
    );
  }
  const otherIds = new Set(
    (await allEvents(api, 'workflow.execution.*'))
      .filter((event) => event.data.execution_id === other)
      .map((event) => event.id),
  );
  t.false(
    shown.some((entry) => otherIds.has(entry.id)),
    "another run's events are not listed",
  );

  t.deepEqual(await seriousViolations(page), [], 'axe on the run page with its history');
  await page.locator('#history-h').scrollIntoViewIfNeeded();
  await screenshot(page, 'run-history-1280');
  await page.setViewportSize({ width: 390, height: 800 });
  t.true((await page.evaluate<number>('document.documentElement.scrollWidth')) <= 390);
  await page.locator('#history-h').scrollIntoViewIfNeeded();
  await screenshot(page, 'run-history-390');
  await page.setViewportSize({ width: 1280, height: 800 });

  // A delivery's link opens its page.
  const first = shown[0]!.deliveries[0]!.id!;
  await page.locator(`[data-delivery="${first}"] a`).first().click();
  await page.waitForURL((url) => url.pathname === `/ui/webhooks/${hook}/deliveries/${first}`);
  t.pass();
});

test.serial('the history pages by cursor; a cursor or run of another is refused', async (t) => {
  const run = await runToEnd();
  const whole = await dashboardGet(`/ui/api/runs/${run}/events`);
  t.is(whole.status, 200);
  t.is(whole.body.data.length, 4);
  t.false(whole.body.has_more);

  const paged: string[] = [];
  let after: string | undefined;
  for (;;) {
    const next = await dashboardGet(
      `/ui/api/runs/${run}/events?limit=1${after ? `&after=${after}` : ''}`,
    );
    t.is(next.status, 200);
    paged.push(...next.body.data.map((event: { id: string }) => event.id));
    if (!next.body.has_more) break;
    after = next.body.next_cursor;
  }
  t.deepEqual(
    paged,
    whole.body.data.map((event: { id: string }) => event.id),
    'page by page, the same events in the same order',
  );

  const other = await runToEnd();
  const foreign = await dashboardGet(`/ui/api/runs/${other}/events?after=${paged[0]}`);
  t.is(foreign.status, 400);
  t.is(foreign.body.error.code, 'invalid_parameter');
  t.regex(
    foreign.body.error.message,
    /is not an event of run wex_\w+: give the id of the last event shown/,
  );
  const missing = await dashboardGet('/ui/api/runs/wex_nosuchrun/events');
  t.is(missing.status, 404);
});
