// The dashboard in a real Chromium, as a user drives it: log in with the link of svc dashboard,
// watch a run arrive live, approve it, move the clock, see it complete; resend a failed delivery;
// cancel a run. Plus the security rules (single-use login, Host and Origin checks) and an
// axe-core check and a screenshot of every page. One daemon and one browser for the file.
import test from 'ava';
import { request as httpRequest } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { activeAgent, apiFor, createWorkflow, waitStep, type Api } from '../helpers/workflows.js';
import { launchChromium, screenshot, seriousViolations } from '../helpers/browser.js';

let d: TestDaemon;
let api: Api;
let ws: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let receiver: Receiver;
let workflowId: string;
const cspViolations: string[] = [];

async function loginUrl(): Promise<{ login_url: string; url: string }> {
  const result = await d.cli(['dashboard', '--no-open', '--json']);
  if (result.code !== 0) throw new Error(`svc dashboard failed: ${result.stderr}`);
  return result.json();
}

/** The dashboard page at `path` (e.g. /runs), in the default workspace. */
async function open(path: string): Promise<void> {
  await page.goto(`${d.url}/ui${path}${path.includes('?') ? '&' : '?'}ws=${ws}`);
  await page.locator('main h1').first().waitFor();
}

async function runWorkflow(): Promise<string> {
  const started = await api('POST', `/workflows/${workflowId}/execute`, { input: { order: 42 } });
  if (started.status !== 202) throw new Error(`execute: ${JSON.stringify(started.body)}`);
  return started.body.data.execution_id;
}

test.before(async () => {
  browser = await launchChromium();
  d = await startDaemon();
  ws = (await d.operator()).workspaceId;
  api = await apiFor(d, ws);
  receiver = await startReceiver();
  // L2: every execution waits for a person.
  const agent = await activeAgent(api, { autonomy_level: 'L2', name: 'Refund approver' });
  workflowId = await createWorkflow(api, {
    name: 'Refund with review',
    status: 'active',
    trigger: { type: 'manual', config: {} },
    steps: [
      {
        id: 'review',
        name: 'Review',
        type: 'agent_action',
        agent_id: agent.id,
        config: { action: 'refund' },
        next_step_id: 'cool_off',
      },
      waitStep('cool_off', 3600),
    ],
    // Longer than the wait, so that advancing the clock ends the wait, not the run.
    settings: { timeout_seconds: 7200 },
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  page.on('console', (message) => {
    if (/Content.Security.Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  const { login_url } = await loginUrl();
  await page.goto(login_url);
  await page.locator('main h1', { hasText: 'Overview' }).waitFor();
});

test.after.always(async () => {
  await browser?.close();
  await receiver?.close();
  await d?.stop();
});

test.serial(
  'a login link works once; a second use is refused with the command to run',
  async (t) => {
    const { login_url } = await loginUrl();
    const other = await browser.newContext();
    const first = await other.newPage();
    await first.goto(login_url);
    t.is(new URL(first.url()).pathname, '/ui', 'redirected to /ui, the token is gone from the URL');
    t.false(first.url().includes('token'));
    await first.locator('main h1', { hasText: 'Overview' }).waitFor();
    const cookies = await other.cookies();
    const session = cookies.find((cookie) => cookie.name.startsWith('svc_ui_'));
    t.truthy(session);
    t.true(session!.httpOnly);
    t.is(session!.sameSite, 'Strict');

    const second = await (await browser.newContext()).newPage();
    const answer = await second.goto(login_url);
    t.is(answer!.status(), 401);
    t.true((await second.textContent('body'))!.includes('svc dashboard'));
    // Without a session, no data: the API answers 401, pages show how to log in.
    const data = await fetch(`${d.url}/ui/api/runs?workspace=${ws}`);
    t.is(data.status, 401);
    t.false((await data.text()).includes(workflowId));
    await other.close();
  },
);

test.serial('a foreign Host or Origin is refused', async (t) => {
  const port = new URL(d.url).port;
  const rawAnswer = (headers: Record<string, string>, method = 'GET', path = '/ui/api/clock') =>
    new Promise<{ status: number; csp: unknown }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path, method, headers }, (res) => {
        res.resume();
        resolve({ status: res.statusCode!, csp: res.headers['content-security-policy'] });
      });
      req.on('error', reject);
      req.end(method === 'POST' ? '{}' : undefined);
    });
  const raw = async (headers: Record<string, string>, method = 'GET') =>
    (await rawAnswer(headers, method)).status;
  t.is(await raw({ host: `attacker.example:${port}` }), 403, 'DNS rebinding: foreign Host');
  // The guard runs on the path as routed, whatever its spelling: percent-encoded letters and
  // an absolute-form request target reach the same route and meet the same checks.
  for (const path of [
    '/%75i/api/clock',
    '/%75%69/api/clock',
    '/u%69/api/session',
    `http://attacker.example:${port}/ui/api/clock`,
  ]) {
    const answer = await rawAnswer({ host: `attacker.example:${port}` }, 'GET', path);
    t.is(answer.status, 403, `foreign Host refused for ${path}`);
    t.truthy(answer.csp, `CSP header set for ${path}`);
  }
  const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  t.is(
    await raw({ host: `127.0.0.1:${port}`, cookie }),
    200,
    'the same request from the daemon host',
  );
  const post = (origin: string | undefined) =>
    fetch(`${d.url}/ui/api/clock/advance?workspace=${ws}`, {
      method: 'POST',
      headers: {
        cookie,
        'content-type': 'application/json',
        ...(origin ? { origin } : {}),
      },
      body: JSON.stringify({ ms: 1000 }),
    });
  t.is((await post('http://attacker.example')).status, 403, 'foreign Origin');
  t.is((await post(undefined)).status, 403, 'no Origin');
  const noToken = await post(d.url);
  t.is(noToken.status, 403, 'own Origin but no CSRF token');
  // The refusal is a documented error code (shared/errors.ts, /docs/errors), in the API's form.
  const refusal = (await noToken.json()) as { error: Record<string, unknown> };
  t.like(refusal.error, { code: 'csrf_token_invalid', type: 'authorization_error' });
  t.regex(String(refusal.error.documentation_url), /\/docs\/errors#csrf_token_invalid$/);
});

test.serial(
  'a run appears live, waits for approval, is approved, waits, and completes after a clock move',
  async (t) => {
    await open('/runs');
    const executionId = await runWorkflow();
    const row = page.locator(`tr[data-run="${executionId}"]`);
    await row.waitFor();
    t.regex((await row.textContent())!, /awaiting approval/);
    await screenshot(page, 'runs');

    await row.locator('a').click();
    await page.locator('h1', { hasText: executionId }).waitFor();
    const review = page.locator('li.step[data-step="review"]');
    await review.waitFor();
    t.is(await review.getAttribute('data-status'), 'awaiting_approval');

    await page.getByRole('link', { name: 'Approvals', exact: true }).click();
    const card = page.locator('li.card', { hasText: executionId });
    await card.waitFor();
    await screenshot(page, 'approvals');
    await card.getByRole('button', { name: /^Approve/ }).click();
    await card.waitFor({ state: 'detached' });

    await open(`/runs/${executionId}`);
    const wait = page.locator('li.step[data-step="cool_off"][data-status="waiting"]');
    await wait.waitFor();
    t.regex((await wait.textContent())!, /wakes at .* \(sandbox clock\)/);
    await screenshot(page, 'run-waiting');

    await page.getByRole('link', { name: 'Clock', exact: true }).click();
    await page.getByRole('button', { name: 'Advance 1 hour' }).click();
    await page.locator('.clock-now', { hasText: 'ahead of real time' }).waitFor();
    await screenshot(page, 'clock');

    await page.goBack();
    await page.locator('h1', { hasText: executionId }).waitFor();
    await page.locator('.run-head .status-completed').waitFor();
    await page.locator('li.step[data-step="cool_off"][data-status="completed"]').waitFor();
    await screenshot(page, 'run-completed');
    t.pass();
  },
);

test.serial(
  'a failed delivery is resent and the new attempt shows; a failed webhook resumes',
  async (t) => {
    receiver.respondWith(500);
    const created = await api('POST', '/webhooks', {
      url: receiver.url,
      events: ['workflow.execution.started'],
      settings: { retry_policy: { max_attempts: 1 } },
    });
    t.is(created.status, 201);
    const hookId = created.body.data.id;
    await open(`/webhooks/${hookId}`);
    await runWorkflow();
    const delivery = page.locator('li.delivery').first();
    await delivery.locator('.status-failed').waitFor();
    await delivery.locator('summary').click();
    const firstAttempt = delivery.locator('tr[data-attempt="1"]');
    await firstAttempt.waitFor();
    t.regex((await firstAttempt.textContent())!, /HTTP 500/);
    t.regex((await firstAttempt.textContent())!, /t=\d+,v1=[0-9a-f]{64}/, 'the signature sent');
    t.regex((await firstAttempt.textContent())!, /"received":false/, "the receiver's answer");

    receiver.respondWith(200);
    await delivery.getByRole('button', { name: /^Resend/ }).click();
    const secondAttempt = delivery.locator('tr[data-attempt="2"]');
    await secondAttempt.waitFor();
    t.regex((await secondAttempt.textContent())!, /HTTP 200/);
    await screenshot(page, 'webhooks');

    const resume = page.getByRole('button', { name: `Resume ${receiver.url}` });
    await resume.click();
    await page.locator('tr.selected .status-active').waitFor();
    t.is((await api('GET', `/webhooks/${hookId}`)).body.data.status, 'active');
  },
);

test.serial('a run is cancelled from its page, after a confirmation', async (t) => {
  const executionId = await runWorkflow();
  await open(`/runs/${executionId}`);
  // The first click only asks; "No" leaves the run as it was.
  await page.getByRole('button', { name: 'Cancel run' }).click();
  const question = page.getByRole('group', { name: /^Cancel run wex_\w+\? A cancelled run/ });
  await question.waitFor();
  await screenshot(page, 'run-cancel-confirm');
  await question.getByRole('button', { name: 'No', exact: true }).click();
  await page.getByRole('button', { name: 'Cancel run' }).waitFor();
  const untouched = await api('GET', `/workflows/${workflowId}/executions/${executionId}`);
  t.is(untouched.body.data.status, 'awaiting_approval', 'not cancelled without a yes');
  await page.getByRole('button', { name: 'Cancel run' }).click();
  await page.getByRole('button', { name: 'Yes, cancel the run' }).click();
  await page.locator('.run-head .status-cancelled').waitFor();
  const stored = await api('GET', `/workflows/${workflowId}/executions/${executionId}`);
  t.is(stored.body.data.status, 'cancelled');
});

test.serial(
  'every page passes axe-core (no serious or critical finding) and is screenshotted',
  async (t) => {
    const pages: [string, string][] = [
      ['', 'overview'],
      ['/runs', 'runs'],
      ['/approvals', 'approvals'],
      ['/webhooks', 'webhooks'],
      ['/events', 'events'],
      ['/clock', 'clock'],
    ];
    const { body } = await api('GET', `/workflows/${workflowId}/executions?limit=1`);
    pages.push([`/runs/${body.data[0].execution_id}`, 'run']);
    for (const [path, name] of pages) {
      await open(path);
      // The live stream stays open, so the network is never idle for long: a short bound.
      await page.waitForLoadState('networkidle', { timeout: 1500 }).catch(() => undefined);
      await screenshot(
        page,
        name === 'runs' || name === 'approvals' || name === 'webhooks' || name === 'clock'
          ? `${name}-page`
          : name,
      );
      const violations = await seriousViolations(page);
      t.deepEqual(violations, [], `axe on ${name}`);
    }
    t.deepEqual(cspViolations, [], 'the pages break none of their own Content-Security-Policy');
  },
);
