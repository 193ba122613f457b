// Driving the sandbox from the dashboard, second part, in a real Chromium: a hook triggered from a
// workflow's page (signed by the daemon) starts a run with that body, and the hook's own checks
// still apply; a webhook's deliveries replayed over a range from its page; an approval decided on
// the run page lets the run go on. Each effect asserted through the REST API; every new route
// keeps the dashboard guard.
import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { type TestDaemon } from '../helpers/daemon.js';
import { type Receiver } from '../helpers/receiver.js';
import { assertDashboardGuard } from '../helpers/dashboard-guard.js';
import { control } from '../helpers/api.js';
import {
  activeAgent,
  createWorkflow,
  waitForExecution,
  waitStep,
  type Api,
} from '../helpers/workflows.js';
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
let hooked: string;
let manual: string;
let webhook: string;
let reviewed: string;

async function screenshots(name: string): Promise<void> {
  await screenshot(page, `${name}-1280`);
  await page.setViewportSize({ width: 390, height: 800 });
  await screenshot(page, `${name}-390`);
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** A POST from the logged-in page with its own CSRF token: status and parsed answer. */
async function postFromPage(path: string, body: string): Promise<{ status: number; body: any }> {
  return page.evaluate(
    async ([at, text, workspace]) => {
      const session = (await (await fetch('/ui/api/session')).json()) as { csrf_token: string };
      const answer = await fetch(`/ui/api${at}?workspace=${workspace}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf_token },
        body: text,
      });
      return { status: answer.status, body: await answer.json() };
    },
    [path, body, ws] as const,
  );
}

test.before(async () => {
  ({ browser, d, ws, api, receiver } = await startDashboardBench());
  hooked = await createWorkflow(api, {
    name: 'Alert relay',
    status: 'active',
    trigger: { type: 'webhook', config: { path: 'alerts', secret: 'hook-secret-42' } },
    steps: [
      {
        id: 'relay',
        name: 'Relay',
        type: 'webhook',
        config: {
          url: `${receiver.url}/relay`,
          method: 'POST',
          body: { alert: '{{trigger.payload.alert}}' },
        },
      },
    ],
  });
  manual = await createWorkflow(api, {
    name: 'By hand',
    status: 'active',
    steps: [waitStep('only', 60)],
  });
  // L2: every execution of the agent waits for a person.
  const agent = await activeAgent(api, { autonomy_level: 'L2', name: 'Refund approver' });
  reviewed = await createWorkflow(api, {
    name: 'Refund with review',
    status: 'active',
    steps: [
      {
        id: 'review',
        name: 'Review',
        type: 'agent_action',
        agent_id: agent.id,
        config: { action: 'refund' },
        next_step_id: 'pay',
      },
      {
        id: 'pay',
        name: 'Pay',
        type: 'webhook',
        config: {
          url: `${receiver.url}/pay`,
          method: 'POST',
          body: { order: '{{trigger.payload.order}}' },
        },
      },
    ],
  });
  page = await loggedInPage(browser, d);
});

test.after.always(() => stopDashboardBench({ browser, receiver, d }));

test.serial(
  'a hook triggered from the page, signed for you, starts a run with that body',
  async (t) => {
    await page.goto(`${d.url}/ui/workflows/${hooked}?ws=${ws}`);
    const editor = page.getByLabel('Hook body (sent as is; becomes trigger.payload)');
    await editor.waitFor();
    // No run yet: the body starts from the fields the steps read.
    t.deepEqual(JSON.parse(await editor.inputValue()), { alert: null });
    const check = page.locator('#wf-trigger-h ~ form .check');
    await editor.fill('{"alert": ');
    t.regex(await check.innerText(), /^Not valid JSON: /);
    await editor.fill('{"alert": "disk full", "host": "db-1"}');
    t.is(await check.innerText(), 'Valid JSON.');
    t.deepEqual(
      await seriousViolations(page),
      [],
      'axe on the workflow page with the trigger form',
    );
    await page.locator('#wf-trigger-h').scrollIntoViewIfNeeded();
    await screenshots('trigger-hook');

    await page.getByRole('button', { name: 'Trigger', exact: true }).click();
    const started = page.getByRole('status').filter({ hasText: 'Started run' });
    await started.waitFor();
    const text = await started.innerText();
    const run = /(wex_\w+)/.exec(text)![1]!;
    // Words apart (htm drops whitespace at line breaks).
    t.is(text, `Started run ${run} by a signed POST to hook alerts.`);

    // Through the REST API: a webhook-triggered run with the body as its input, made its call.
    const stored = await waitForExecution(api, hooked, run, (e) => e.status === 'completed');
    t.deepEqual(stored.input, { alert: 'disk full', host: 'db-1' });
    t.is(stored.trigger.type, 'webhook');
    t.true(await receiver.waitFor((all) => all.some((r) => r.body.includes('disk full'))));

    // The same body again within the second is another request (signed anew), another run.
    await page.getByRole('button', { name: 'Trigger', exact: true }).click();
    await page
      .getByRole('status')
      .filter({ hasNotText: run })
      .filter({ hasText: 'Started run' })
      .waitFor();
    const again = /(wex_\w+)/.exec(
      await page.getByRole('status').filter({ hasText: 'Started run' }).innerText(),
    )![1]!;
    t.not(again, run);

    await started.getByRole('link').click();
    await page.locator('main h1', { hasText: again }).waitFor();
  },
);

test.serial(
  'a triggered body meets the hook checks: JSON, size, status, trigger type',
  async (t) => {
    const runsBefore = (await api('GET', `/workflows/${hooked}/executions`)).body.data.length;
    const broken = await postFromPage(`/workflows/${hooked}/trigger`, '{"alert": ');
    t.is(broken.status, 400);
    t.is(broken.body.error.code, 'invalid_request_body');
    // Over the hook's 1 MiB: refused as the hook refuses it.
    const huge = await postFromPage(
      `/workflows/${hooked}/trigger`,
      JSON.stringify({ alert: 'x'.repeat(1024 * 1024) }),
    );
    t.is(huge.status, 413);
    t.is(huge.body.error.code, 'payload_too_large');
    const notHook = await postFromPage(`/workflows/${manual}/trigger`, '{}');
    t.is(notHook.status, 400);
    t.like(notHook.body.error, { code: 'invalid_parameter', param: 'workflow_id' });
    t.regex(notHook.body.error.message, /has no webhook trigger/);
    t.is((await api('PATCH', `/workflows/${hooked}`, { status: 'paused' })).status, 200);
    try {
      const paused = await postFromPage(`/workflows/${hooked}/trigger`, '{"alert": "late"}');
      t.is(paused.status, 409);
      t.is(paused.body.error.code, 'workflow_not_active');
      t.regex(paused.body.error.message, /svc workflows activate/);
    } finally {
      t.is((await api('PATCH', `/workflows/${hooked}`, { status: 'active' })).status, 200);
    }
    t.is((await api('GET', `/workflows/${hooked}/executions`)).body.data.length, runsBefore);
  },
);

/** The webhook's deliveries, oldest first, through the REST API. */
async function deliveriesOf(hookId: string): Promise<any[]> {
  const answer = await api('GET', `/webhooks/${hookId}/deliveries?limit=100`);
  return (answer.body.data as any[]).reverse();
}

test.serial(
  'a range of deliveries replayed from the webhook page: exactly its events again',
  async (t) => {
    const created = await api('POST', '/webhooks', {
      url: `${receiver.url}/replayed`,
      events: ['agent.created'],
    });
    t.is(created.status, 201);
    webhook = created.body.data.id;
    // Four events a minute apart on the sandbox clock, each delivered once.
    const eventIds: string[] = [];
    for (let i = 0; i < 4; i++) {
      if (i > 0) await d.advance(60_000);
      const event = await control<{ id: string }>(d, 'events.trigger', {
        type: 'agent.created',
        workspace_id: ws,
      });
      eventIds.push(event.id);
    }
    const deadline = Date.now() + HANG_TIMEOUT_MS;
    let before = await deliveriesOf(webhook);
    while (before.filter((x) => x.status === 'delivered').length < 4 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      before = await deliveriesOf(webhook);
    }
    t.deepEqual(
      before.map((x) => [x.event_id, x.status]),
      eventIds.map((id) => [id, 'delivered']),
    );

    await page.goto(`${d.url}/ui/webhooks/${webhook}?ws=${ws}`);
    await page.getByText('Replay deliveries over a range').click();
    // From as the page shows times (whole seconds), To as the API gives them (ISO 8601).
    const shown = (iso: string) => iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
    await page.getByLabel('From (ISO 8601)').fill(before[2].created_at);
    await page.getByLabel('To (ISO 8601)').fill(before[1].created_at);
    await page.getByLabel('Events whose latest delivery').selectOption('delivered');
    await page.getByRole('button', { name: 'Replay', exact: true }).click();
    // The daemon's refusal, worded as for the CLI; nothing sent.
    await page.getByRole('alert').filter({ hasText: '--from must be before --to.' }).waitFor();
    await page.getByLabel('From (ISO 8601)').fill('yesterday');
    await page.getByRole('button', { name: 'Replay', exact: true }).click();
    await page
      .getByRole('alert')
      .filter({
        hasText: 'From takes an ISO 8601 time such as 2030-01-01T00:00:00Z; got "yesterday".',
      })
      .waitFor();
    t.is((await deliveriesOf(webhook)).length, 4);

    await page.getByLabel('From (ISO 8601)').fill(shown(before[1].created_at));
    await page.getByLabel('To (ISO 8601)').fill(before[2].created_at);
    t.deepEqual(await seriousViolations(page), [], 'axe on the webhook page with the replay form');
    await page.getByRole('button', { name: 'Replay', exact: true }).click();
    const status = page.getByRole('status').filter({ hasText: 'Replayed' });
    await status.waitFor();
    t.is(await status.innerText(), `Replayed 2 event(s) (${eventIds[1]} .. ${eventIds[2]}).`);
    const listed = page.getByRole('list', { name: 'Events replayed' }).getByRole('listitem');
    t.is(await listed.count(), 2);
    const first = await listed.first().innerText();
    t.regex(
      first,
      new RegExp(
        `^${eventIds[1]} agent.created, was ${before[1].id} \\(delivered\\), new delivery del_\\w+$`,
      ),
    );
    await page.locator('.replayed').scrollIntoViewIfNeeded();
    await screenshots('replay-deliveries');

    // Through the REST API: new deliveries for exactly the events in the range, delivered.
    const originals = new Set(before.map((x) => x.id));
    let fresh: any[] = [];
    const until = Date.now() + HANG_TIMEOUT_MS;
    while (Date.now() < until) {
      fresh = (await deliveriesOf(webhook)).filter((x) => !originals.has(x.id));
      if (fresh.length === 2 && fresh.every((x) => x.status === 'delivered')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    t.deepEqual(fresh.map((x) => x.event_id).sort(), [eventIds[1], eventIds[2]].sort());
    t.true(fresh.every((x) => x.status === 'delivered'));
    t.deepEqual(
      (
        await listed.evaluateAll((items) => items.map((item) => item.getAttribute('data-delivery')))
      ).sort(),
      fresh.map((x) => x.id).sort(),
    );
  },
);

async function startReviewed(order: string): Promise<string> {
  const started = await api('POST', `/workflows/${reviewed}/execute`, { input: { order } });
  if (started.status !== 202) throw new Error(`execute: ${JSON.stringify(started.body)}`);
  return started.body.data.execution_id;
}

test.serial(
  'an approval decided on the run page: approved, the run goes on and completes',
  async (t) => {
    const run = await startReviewed('R-1');
    await waitForExecution(api, reviewed, run, (e) => e.status === 'awaiting_approval');
    await page.goto(`${d.url}/ui/runs/${run}?ws=${ws}`);
    const section = page.locator('section', { has: page.locator('#run-approvals-h') });
    const card = section.locator('li.card');
    await card.getByRole('button', { name: /^Approve/ }).waitFor();
    t.regex(await card.innerText(), /refund/);
    t.deepEqual(await seriousViolations(page), [], 'axe on the run page with its approval');
    await screenshots('run-approval');

    await card.getByRole('button', { name: /^Approve/ }).click();
    await page.locator('.run-head .status-completed').waitFor();
    t.is(await section.count(), 0, 'nothing awaits a decision any more');
    // Through the REST API: the run went on past the approval and completed, the call made.
    const stored = await waitForExecution(api, reviewed, run, (e) => e.status === 'completed');
    t.deepEqual(
      stored.step_results.map((s: any) => [s.step_id, s.status]),
      [
        ['review', 'completed'],
        ['pay', 'completed'],
      ],
    );
    t.true(await receiver.waitFor((all) => all.some((r) => r.body.includes('R-1'))));
  },
);

test.serial(
  'an approval rejected on the run page, after a confirmation, ends the run',
  async (t) => {
    const run = await startReviewed('R-2');
    await waitForExecution(api, reviewed, run, (e) => e.status === 'awaiting_approval');
    await page.goto(`${d.url}/ui/runs/${run}?ws=${ws}`);
    const card = page
      .locator('section', { has: page.locator('#run-approvals-h') })
      .locator('li.card');
    await card.getByRole('button', { name: /^Reject/ }).click();
    await card.getByRole('button', { name: 'No', exact: true }).click();
    t.is(
      (await api('GET', `/workflows/${reviewed}/executions/${run}`)).body.data.status,
      'awaiting_approval',
    );
    await card.getByRole('button', { name: /^Reject/ }).click();
    await card.getByRole('button', { name: 'Yes, reject' }).click();
    const stored = await waitForExecution(
      api,
      reviewed,
      run,
      (e) => e.status !== 'awaiting_approval',
    );
    t.not(stored.status, 'completed');
    t.is(stored.step_results[0].status, 'failed');
    t.is(stored.step_results[0].error.code, 'approval_rejected');
    t.false(await receiver.waitFor((all) => all.some((r) => r.body.includes('R-2')), 500));
    await page.locator(`.run-head .status-${stored.status}`).waitFor();
  },
);

test.serial('the new routes keep the guard: Origin, CSRF, Host, session', async (t) => {
  const runsBefore = (await api('GET', `/workflows/${hooked}/executions`)).body.data.length;
  const deliveriesBefore = (await deliveriesOf(webhook)).length;
  await assertDashboardGuard(t, d, page, ws, {
    posts: [
      [`/ui/api/workflows/${hooked}/trigger`, { alert: 'forged' }],
      [`/ui/api/webhooks/${webhook}/replay`, { status: 'all' }],
    ],
    list: `/ui/api/webhooks`,
  });
  t.is((await api('GET', `/workflows/${hooked}/executions`)).body.data.length, runsBefore);
  t.is((await deliveriesOf(webhook)).length, deliveriesBefore);
});
