// The Templates page in a real Chromium: the catalogue the REST API lists, a template's steps as
// a graph, and a workflow created from it with what `svc workflows init` asks for (a name, the
// value the template leaves to you, an agent per role): the REST API then has that workflow with
// the template's steps, the roles' agents and the value. The template's example value and a
// missing agent are refused with the CLI's words, creating nothing. The new route keeps the
// guard. axe-core, screenshots at 1280 and 390 px.
import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { type TestDaemon } from '../helpers/daemon.js';
import { type Receiver } from '../helpers/receiver.js';
import { activeAgent, type Api } from '../helpers/workflows.js';
import {
  loggedInPage,
  screenshot,
  seriousViolations,
  startDashboardBench,
  stopDashboardBench,
} from '../helpers/browser.js';
import { assertDashboardGuard } from '../helpers/dashboard-guard.js';

const TEMPLATE = 'tmpl_incident_response';
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

async function workflowNames(): Promise<string[]> {
  const listed = await api('GET', '/workflows?limit=100');
  return (listed.body.data as { name: string }[]).map((workflow) => workflow.name);
}

test.serial('a workflow created from a template on the page has its steps', async (t) => {
  const catalogue = (await api('GET', '/workflows/templates')).body.data as any[];
  const template = catalogue.find((candidate) => candidate.id === TEMPLATE);

  await page.goto(`${d.url}/ui/templates?ws=${ws}`);
  const rows = page.locator('table[aria-label="Workflow templates"] tbody tr');
  await rows.first().waitFor();
  t.deepEqual(
    await rows.evaluateAll((items) => items.map((item) => item.getAttribute('data-template'))),
    catalogue.map((candidate) => candidate.id),
    'the catalogue of GET /v1/workflows/templates',
  );
  t.regex(
    await page.locator(`tr[data-template="${TEMPLATE}"]`).innerText(),
    /^Incident response with paging\n.+\s+it_operations\s+4\s+webhook\s+on_call, follow_up$/s,
  );
  t.deepEqual(await seriousViolations(page), [], 'axe on the templates list');
  await screenshot(page, 'templates-1280');

  // No agent yet: the page says how to make one; creating is refused, nothing made.
  await page.getByRole('link', { name: 'Incident response with paging' }).click();
  await page.locator('main h1', { hasText: 'Template Incident response with paging' }).waitFor();
  t.regex(
    await page.locator('.hint').innerText(),
    /This workspace has no agent yet: create one per role first \(svc agents create, or svc workflows init --template tmpl_incident_response --create-agents\)\./,
  );
  const onCall = await activeAgent(api, { name: 'Pager duty', type: 'operations' });
  const followUp = await activeAgent(api, { name: 'Follow up', type: 'operations' });
  await page.reload();
  await page.locator('main h1', { hasText: 'Template Incident response with paging' }).waitFor();

  // The steps drawn, and the same graph in words (the words apart).
  await page
    .locator(`svg[aria-label="Steps of template ${template.name}: 4 steps, described below"]`)
    .waitFor();
  const words = page.getByRole('list', { name: `Steps of template ${template.name}, in words` });
  t.deepEqual(await words.locator('li').allInnerTexts(), [
    'Assess the alert (agent_action); then → Page the on-call engineer',
    'Page the on-call engineer (webhook); then → Give the engineer 15 minutes',
    'Give the engineer 15 minutes (wait); then → Check and write the status update',
    'Check and write the status update (agent_action); ends its branch',
  ]);

  const create = page.getByRole('button', { name: 'Create the workflow' });
  const urlField = page.getByLabel(/the URL that pages the on-call engineer/);
  await urlField.fill('https://pager.example.com/v1/incidents');
  await create.click();
  const refusal = page.locator('form .error-note');
  await refusal.waitFor();
  t.is(
    await refusal.innerText(),
    "steps.page.url: https://pager.example.com/v1/incidents is the template's example; give your own (a local receiver works: http://127.0.0.1:PORT/...).",
  );
  t.deepEqual(await workflowNames(), [], 'nothing created');

  await page.getByLabel('Workflow name').fill('Pager for checkout');
  await urlField.fill(`${receiver.url}/page`);
  await page.getByLabel(/Agent for role on_call/).selectOption(onCall.id);
  await page.getByLabel(/Agent for role follow_up/).selectOption(followUp.id);
  await page.getByLabel('Workflow status', { exact: false }).selectOption('active');
  t.deepEqual(await seriousViolations(page), [], 'axe on a template page');
  await screenshot(page, 'template-1280');
  await page.setViewportSize({ width: 390, height: 800 });
  t.true((await page.evaluate<number>('document.documentElement.scrollWidth')) <= 390);
  await screenshot(page, 'template-390');
  await page.setViewportSize({ width: 1280, height: 800 });
  await create.click();
  await page.waitForURL((url) => /^\/ui\/workflows\/wfl_\w+$/.test(url.pathname));
  const id = new URL(page.url()).pathname.split('/').at(-1)!;

  const made = (await api('GET', `/workflows/${id}`)).body.data;
  t.is(made.name, 'Pager for checkout');
  t.is(made.status, 'active');
  t.deepEqual(made.trigger, template.trigger);
  t.deepEqual(
    made.steps.map((step: any) => [step.id, step.type, step.agent_id, step.next_step_id]),
    [
      ['assess', 'agent_action', onCall.id, 'page'],
      ['page', 'webhook', null, 'wait_ack'],
      ['wait_ack', 'wait', null, 'status_update'],
      ['status_update', 'agent_action', followUp.id, null],
    ],
  );
  t.is(made.steps[1].config.url, `${receiver.url}/page`);
  t.deepEqual(made.steps[1].config.body, template.steps[1].config.body);
});

test.serial('a role left without an agent is refused; the route keeps the guard', async (t) => {
  const before = await workflowNames();
  await page.goto(`${d.url}/ui/templates/${TEMPLATE}?ws=${ws}`);
  await page.getByLabel('Workflow name').waitFor();
  await page.getByLabel(/the URL that pages the on-call engineer/).fill(`${receiver.url}/page`);
  await page.getByLabel(/Agent for role follow_up/).selectOption('');
  await page.getByRole('button', { name: 'Create the workflow' }).click();
  const refusal = page.locator('form .error-note');
  await refusal.waitFor();
  t.regex(
    await refusal.innerText(),
    /^Template tmpl_incident_response needs an agent for each role; missing: follow_up\./,
  );
  await assertDashboardGuard(t, d, page, ws, {
    posts: [
      [
        `/ui/api/templates/${TEMPLATE}/workflows`,
        { name: 'Forged', values: { 'steps.page.url': `${receiver.url}/x` }, agents: {} },
      ],
    ],
    list: '/ui/api/templates',
  });
  t.deepEqual(await workflowNames(), before, 'nothing created');
});
