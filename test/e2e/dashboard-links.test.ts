// Deep links into the dashboard, in a real Chromium: `svc open <id>` mints a login link that
// lands on that object's page (run, workflow, agent, agent execution, webhook, delivery); any page
// URL works once logged in; the search box jumps to any id and says so for an unknown one; the
// login link's `next` never leads off the dashboard. The new routes keep the guard (Host, session).
import test from 'ava';
import { request as httpRequest } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { activeAgent, apiFor, createWorkflow, waitStep, type Api } from '../helpers/workflows.js';
import { launchChromium, screenshot, seriousViolations } from '../helpers/browser.js';
import { HANG_TIMEOUT_MS } from '../helpers/waiting.js';

let d: TestDaemon;
let api: Api;
let ws: string;
let browser: Browser;
let receiver: Receiver;
const ids: Record<string, string> = {};

interface Link {
  url: string;
  login_url: string;
  opened: boolean;
}

async function svcOpen(id: string): Promise<Link> {
  const result = await d.cli(['open', id, '--print', '--json']);
  if (result.code !== 0) throw new Error(`svc open failed: ${result.stderr}`);
  return result.json();
}

/** A new browser context logged in through `login_url`: the page where the link landed. */
async function landOn(loginUrl: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(loginUrl);
  await page.locator('main h1').first().waitFor();
  return page;
}

test.before(async () => {
  browser = await launchChromium();
  d = await startDaemon();
  ws = (await d.operator()).workspaceId;
  api = await apiFor(d, ws);
  receiver = await startReceiver();
  const agent = await activeAgent(api, { autonomy_level: 'L2', name: 'Refund approver' });
  ids.agt = agent.id;
  ids.wfl = await createWorkflow(api, {
    name: 'Refund with review',
    status: 'active',
    trigger: { type: 'manual', config: {} },
    steps: [waitStep('cool_off', 3600)],
    settings: { timeout_seconds: 7200 }, // longer than the wait (a wait as long is refused)
  });
  const hook = await api('POST', '/webhooks', {
    url: receiver.url,
    events: ['workflow.execution.started'],
  });
  ids.hook = hook.body.data.id;
  const run = await api('POST', `/workflows/${ids.wfl}/execute`, { input: { order: 42 } });
  ids.wex = run.body.data.execution_id;
  const execution = await api('POST', `/agents/${ids.agt}/execute`, {
    input: 'Refund order 42, please',
  });
  ids.exec = execution.body.data.execution_id;
  // Until the delivery is listed: bounded by the hang guard, not a count of polls.
  const until = Date.now() + HANG_TIMEOUT_MS;
  while (!ids.del && Date.now() < until) {
    const deliveries = await api('GET', `/webhooks/${ids.hook}/deliveries`);
    ids.del = deliveries.body.data[0]?.id;
    if (!ids.del) await new Promise((resolve) => setTimeout(resolve, 50));
  }
});

test.after.always(async () => {
  await browser?.close();
  await receiver?.close();
  await d?.stop();
});

test('svc open <id> lands on the page of each kind of id, logged in, the token gone', async (t) => {
  const expected: [string, RegExp, string][] = [
    ['wex', /^\/ui\/runs\/wex_/, `Run ${ids.wex}`],
    ['wfl', /^\/ui\/workflows\/wfl_/, 'Workflow Refund with review'],
    ['agt', /^\/ui\/agents\/agt_/, 'Agent Refund approver'],
    ['exec', /^\/ui\/executions\/exec_/, `Agent execution ${ids.exec}`],
    ['hook', /^\/ui\/webhooks\/hook_/, 'Webhooks & deliveries'],
    ['del', /^\/ui\/webhooks\/hook_\w+\/deliveries\/del_/, 'Webhooks & deliveries'],
  ];
  for (const [kind, path, heading] of expected) {
    const link = await svcOpen(ids[kind]!);
    t.false(link.opened, '--print never opens a browser');
    t.regex(new URL(link.url).pathname, path, `${kind}: the page's address is printed`);
    const page = await landOn(link.login_url);
    const landed = new URL(page.url());
    t.regex(landed.pathname, path, `${kind}: landed on its page`);
    t.is(landed.searchParams.get('ws'), ws, `${kind}: in its workspace`);
    t.false(page.url().includes('token'), 'the token never stays in the address bar');
    await page.locator('main h1', { hasText: heading }).waitFor();
    if (kind === 'del') {
      // The delivery is shown opened, with its attempts.
      await page.locator(`section li.delivery[data-delivery="${ids.del}"] details[open]`).waitFor();
    }
    await screenshot(page, `deep-link-${kind}`);
    t.deepEqual(await seriousViolations(page), [], `axe on the ${kind} page`);
    await page.context().close();
  }
});

test('svc open refuses an id without a page and an unknown id, saying what to give', async (t) => {
  const bogus = await d.cli(['open', 'tmpl_123']);
  t.not(bogus.code, 0);
  t.regex(bogus.stderr, /wex_.*exec_.*del_.*hook_.*agt_.*wfl_/s);
  const unknown = await d.cli(['open', 'wex_00000000nothinghere']);
  t.not(unknown.code, 0);
  t.regex(unknown.stderr, /No workflow run wex_00000000nothinghere/);
});

test('any page URL works once logged in; without a session it names svc open <id>', async (t) => {
  const { login_url } = (await d.cli(['dashboard', '--no-open', '--json'])).json();
  const page = await landOn(login_url);
  await page.goto(`${d.url}/ui/workflows/${ids.wfl}?ws=${ws}`);
  await page.locator('main h1', { hasText: 'Workflow Refund with review' }).waitFor();
  await page.goto(`${d.url}/ui/executions/${ids.exec}?ws=${ws}`);
  await page.locator('main h1', { hasText: ids.exec! }).waitFor();
  await page.goto(`${d.url}/ui/no/such/page?ws=${ws}`);
  await page.locator('main h1', { hasText: 'No such page' }).waitFor();
  await page.context().close();

  const stranger = await (await browser.newContext()).newPage();
  const answer = await stranger.goto(`${d.url}/ui/runs/${ids.wex}?ws=${ws}`);
  t.is(answer!.status(), 401);
  t.regex((await stranger.textContent('pre'))!, new RegExp(`svc open ${ids.wex}`));
  await stranger.context().close();
});

test('the search box jumps to any id, and says so for an unknown one', async (t) => {
  const { login_url } = (await d.cli(['dashboard', '--no-open', '--json'])).json();
  const page = await landOn(login_url);
  const box = page.getByRole('searchbox', { name: 'Go to an id' });
  await box.fill(ids.wex!);
  await box.press('Enter');
  await page.locator('main h1', { hasText: `Run ${ids.wex}` }).waitFor();
  t.is(new URL(page.url()).pathname, `/ui/runs/${ids.wex}`);

  await box.fill(ids.del!);
  await page.getByRole('button', { name: 'Go' }).click();
  await page.waitForURL(/\/deliveries\/del_/);
  t.regex(new URL(page.url()).pathname, new RegExp(`/ui/webhooks/${ids.hook}/deliveries/`));

  await box.fill('agt_00000000unknown');
  await box.press('Enter');
  const alert = page.locator('.search-error');
  await alert.waitFor();
  t.regex((await alert.textContent())!, /No agent agt_00000000unknown/);
  await box.fill('hello');
  await box.press('Enter');
  await page.locator('.search-error', { hasText: 'is not an id the dashboard shows' }).waitFor();
  await screenshot(page, 'search-unknown');
  t.deepEqual(await seriousViolations(page), [], 'axe with the search error shown');
  await page.context().close();
});

test("a login link's next never leads off the dashboard", async (t) => {
  for (const next of [
    '//attacker.example/ui',
    'https://attacker.example/',
    '/ui/../v1/keys',
    '/ui/%2F%2Fattacker.example',
    '/\\attacker.example',
    '/ui/api/keys',
  ]) {
    const { login_url } = (await d.cli(['dashboard', '--no-open', '--json'])).json();
    // A hand-edited link: the daemon checks `next` again when it redirects.
    const edited = `${login_url}&next=${encodeURIComponent(next)}`;
    const answer = await fetch(edited, { redirect: 'manual' });
    t.is(answer.status, 303, next);
    t.is(answer.headers.get('location'), '/ui', `${next} is not followed`);
  }
});

test('the new routes keep the guard: foreign Host refused, no data without a session', async (t) => {
  const port = new URL(d.url).port;
  const raw = (path: string, host: string) =>
    new Promise<number>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.end();
    });
  for (const path of [
    `/ui/api/locate?id=${ids.wex}`,
    `/%75i/api/locate?id=${ids.wex}`,
    `/ui/api/workflows/${ids.wfl}`,
    `/ui/api/agents/${ids.agt}`,
    `/u%69/api/agent-executions/${ids.exec}`,
  ]) {
    t.is(await raw(path, `attacker.example:${port}`), 403, `foreign Host: ${path}`);
    t.is(await raw(path, `127.0.0.1:${port}`), 401, `no session: ${path}`);
  }
});
