// Driving the sandbox from the dashboard, in a real Chromium: a run started from a workflow's page
// with an input edited as JSON (checked as typed) exists with that input and made its calls; an
// event sent from the Events page (a sample, edited) is in the event log and reaches a webhook
// receiver. Every new route keeps the guard: Origin, CSRF, Host, session, however spelled.
import test from 'ava';
import { request as httpRequest } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { type TestDaemon } from '../helpers/daemon.js';
import { type Receiver } from '../helpers/receiver.js';
import { createWorkflow, waitForExecution, type Api } from '../helpers/workflows.js';
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
let flow: string;

async function screenshots(name: string): Promise<void> {
  await screenshot(page, `${name}-1280`);
  await page.setViewportSize({ width: 390, height: 800 });
  await screenshot(page, `${name}-390`);
  await page.setViewportSize({ width: 1280, height: 800 });
}

test.before(async () => {
  ({ browser, d, ws, api, receiver } = await startDashboardBench());
  flow = await createWorkflow(api, {
    name: 'Refund',
    status: 'active',
    steps: [
      {
        id: 'big',
        name: 'Big refund?',
        type: 'condition',
        config: { condition: 'trigger.payload.amount > 100', if_true: 'notify' },
      },
      {
        id: 'notify',
        name: 'Notify',
        type: 'webhook',
        config: {
          url: `${receiver.url}/notify`,
          method: 'POST',
          body: { order: '{{trigger.payload.order}}' },
        },
      },
    ],
  });
  page = await loggedInPage(browser, d);
});

test.after.always(() => stopDashboardBench({ browser, receiver, d }));

test.serial('a run started with an edited input exists with that input', async (t) => {
  await page.goto(`${d.url}/ui/workflows/${flow}?ws=${ws}`);
  const editor = page.getByLabel('Input (becomes trigger.payload)');
  await editor.waitFor();
  // No run yet: the form starts from the fields the steps read.
  t.deepEqual(JSON.parse(await editor.inputValue()), { amount: null, order: null });
  const check = page.locator('.json-editor .check');
  await editor.fill('{"amount": 250,');
  t.regex(await check.innerText(), /^Not valid JSON: /);
  t.is(await editor.getAttribute('aria-invalid'), 'true');
  await editor.fill('[1, 2]');
  t.is(await check.innerText(), 'The input must be a JSON object: { ... }.');
  await editor.fill('{"amount": 250}');
  t.is(
    await check.innerText(),
    'Valid JSON, but the steps read trigger.payload.order, which is not in it.',
  );
  await editor.fill('{"amount": 250, "order": "A-17"}');
  t.is(await check.innerText(), 'Valid JSON.');
  t.deepEqual(await seriousViolations(page), [], 'axe on the workflow page with its form');
  await page.locator('#wf-start-h').scrollIntoViewIfNeeded();
  await screenshots('start-run');

  await page.getByRole('button', { name: 'Start a run with this input' }).click();
  await page.waitForURL(/\/ui\/runs\/wex_/);
  const run = new URL(page.url()).pathname.split('/').at(-1)!;
  await page.locator('main h1', { hasText: run }).waitFor();
  // Through the REST API: the run has the edited input and made the call it leads to.
  const stored = await waitForExecution(api, flow, run, (e) => e.status === 'completed');
  t.deepEqual(stored.input, { amount: 250, order: 'A-17' });
  t.is(stored.trigger.type, 'manual');
  t.true(await receiver.waitFor((all) => all.some((r) => r.body.includes('A-17'))));

  // Back on the workflow's page the form starts from that run's input.
  await page.goto(`${d.url}/ui/workflows/${flow}?ws=${ws}`);
  await page.getByLabel('Input (becomes trigger.payload)').waitFor();
  t.deepEqual(JSON.parse(await page.getByLabel('Input (becomes trigger.payload)').inputValue()), {
    amount: 250,
    order: 'A-17',
  });
});

test.serial('an event sent from a sample, edited, is logged and delivered', async (t) => {
  const hook = await api('POST', '/webhooks', { url: receiver.url, events: ['agent.created'] });
  t.is(hook.status, 201);
  await page.goto(`${d.url}/ui/events?ws=${ws}`);
  await page.getByText('Send an event').click();
  await page.getByLabel('Event type').selectOption('agent.created');
  const editor = page.getByLabel('Data (a sample of this type, to edit)');
  // The sample of the type chosen has come (it is fetched when the type changes).
  await page.waitForFunction(
    "document.querySelector('.json-editor textarea')?.value.includes('Sample support agent')",
  );
  const sample = JSON.parse(await editor.inputValue());
  t.is(sample.name, 'Sample support agent');
  await editor.fill(JSON.stringify({ ...sample, name: 'Edited by hand' }, null, 2));
  t.is(await page.locator('.json-editor .check').innerText(), 'Valid JSON.');
  t.deepEqual(await seriousViolations(page), [], 'axe on the Events page with its form');
  await screenshots('send-event');
  await page.getByRole('button', { name: 'Send the event' }).click();
  const sent = page.getByRole('status').filter({ hasText: 'Sent agent.created as evt_' });
  await sent.waitFor();
  const eventId = /as (evt_\w+)/.exec(await sent.innerText())![1]!;

  // Through the REST API: the event is logged with the edited data, and it was delivered.
  const stored = await api('GET', `/events/${eventId}`);
  t.is(stored.status, 200);
  t.like(stored.body.data, { type: 'agent.created', data: { name: 'Edited by hand' } });
  t.true(
    await receiver.waitFor((all) =>
      all.some((r) => r.body.includes(eventId) && r.body.includes('Edited by hand')),
    ),
    'the subscribed webhook received it',
  );
  await page.locator(`li[data-event="${eventId}"]`).waitFor();
});

test.serial('every new route keeps the guard: Origin, CSRF, Host, session', async (t) => {
  const port = new URL(d.url).port;
  const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  const runsBefore = (await api('GET', `/workflows/${flow}/executions`)).body.data.length;
  const eventsBefore = (await api('GET', '/events?type=agent.created')).body.data.length;
  const posts: [string, unknown][] = [
    [`/ui/api/workflows/${flow}/run`, { input: { amount: 1 } }],
    ['/ui/api/events', { type: 'agent.created', data: { name: 'forged' } }],
  ];
  const raw = (
    path: string,
    method: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path, method, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.on('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  const json = { 'content-type': 'application/json', host: `127.0.0.1:${port}`, cookie };
  for (const [path, body] of posts) {
    // Each spelling of the path reaches the same route and meets the same checks.
    for (const spelled of [
      path,
      path.replace('/ui/', '/%75i/'),
      path.replace('/api/', '/%61pi/'),
    ]) {
      const at = `${spelled}?workspace=${ws}`;
      t.is(
        (await raw(at, 'POST', { ...json, origin: 'http://attacker.example' }, body)).status,
        403,
        `forged Origin: ${spelled}`,
      );
      t.is((await raw(at, 'POST', json, body)).status, 403, `no Origin: ${spelled}`);
      const noToken = await raw(at, 'POST', { ...json, origin: d.url }, body);
      t.is(noToken.status, 403, `no CSRF token: ${spelled}`);
      t.is(JSON.parse(noToken.text).error.code, 'csrf_token_invalid');
      t.is(
        (await raw(at, 'POST', { ...json, host: `attacker.example:${port}`, origin: d.url }, body))
          .status,
        403,
        `foreign Host: ${spelled}`,
      );
      const { cookie: _, ...noSession } = json;
      const anonymous = await raw(
        at,
        'POST',
        { ...noSession, origin: d.url, 'x-csrf-token': 'x' },
        body,
      );
      t.is(anonymous.status, 401, `no session: ${spelled}`);
    }
  }
  for (const path of [
    `/ui/api/workflows/${flow}/versions`,
    '/ui/api/events/sample?type=agent.created',
  ]) {
    const at = `${path}${path.includes('?') ? '&' : '?'}workspace=${ws}`;
    t.is(
      (await raw(at, 'GET', { host: `attacker.example:${port}`, cookie })).status,
      403,
      `foreign Host: ${path}`,
    );
    t.is((await raw(at, 'GET', { host: `127.0.0.1:${port}` })).status, 401, `no session: ${path}`);
    t.is((await raw(at, 'GET', { host: `127.0.0.1:${port}`, cookie })).status, 200, path);
  }
  // With the page's own token, a bad body is refused with what to fix; nothing was started.
  const refused = await page.evaluate(
    async ([flowId, workspace]) => {
      const session = (await (await fetch('/ui/api/session')).json()) as { csrf_token: string };
      const answer = await fetch(`/ui/api/workflows/${flowId}/run?workspace=${workspace}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf_token },
        body: JSON.stringify({ input: [1, 2] }),
      });
      return { status: answer.status, body: (await answer.json()) as { error: object } };
    },
    [flow, ws],
  );
  t.is(refused.status, 400);
  t.like(refused.body.error, { code: 'invalid_parameter', param: 'input' });
  t.is((await api('GET', `/workflows/${flow}/executions`)).body.data.length, runsBefore);
  t.is((await api('GET', '/events?type=agent.created')).body.data.length, eventsBefore);
});
