// The workflow pages of the dashboard in a real Chromium: a workflow's steps drawn as a graph
// (condition branches, parallel branches, on_error paths) and a run's place on the same graph,
// checked against the run as the REST API reports it; a webhook trigger's URL and a curl that
// starts a run as shown; a schedule; versions and what each changed. axe-core on each page,
// screenshots at 1280 and 390 px wide.
import test from 'ava';
import { execFile } from 'node:child_process';
import type { Browser, Page } from 'playwright-core';
import { startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import {
  apiFor,
  createWorkflow,
  waitForExecution,
  waitStep,
  type Api,
} from '../helpers/workflows.js';
import { launchChromium, loggedInPage, screenshot, seriousViolations } from '../helpers/browser.js';

let d: TestDaemon;
let api: Api;
let ws: string;
let browser: Browser;
let page: Page;
let ok: Receiver;
let broken: Receiver;
let flow: string;

const call = (id: string, name: string, url: string, more: Record<string, unknown> = {}) => ({
  id,
  name,
  type: 'webhook',
  config: { url, method: 'POST', body: { step: id } },
  ...more,
});

/** The page at 1280 px, then at 390 px, each written as a screenshot; back to 1280 after. */
async function screenshots(name: string): Promise<void> {
  await screenshot(page, `${name}-1280`);
  await page.setViewportSize({ width: 390, height: 800 });
  await screenshot(page, `${name}-390`);
  await page.setViewportSize({ width: 1280, height: 800 });
}

test.before(async () => {
  browser = await launchChromium();
  d = await startDaemon();
  ws = (await d.operator()).workspaceId;
  api = await apiFor(d, ws);
  ok = await startReceiver();
  broken = await startReceiver();
  broken.respondWith(500);
  flow = await createWorkflow(api, {
    name: 'Refund router',
    status: 'active',
    steps: [
      {
        id: 'check',
        name: 'Check amount',
        type: 'condition',
        config: {
          condition: 'trigger.payload.amount > 100',
          if_true: 'fan',
          if_false: 'small',
        },
      },
      {
        id: 'fan',
        name: 'Fan out',
        type: 'parallel',
        config: { steps: ['notify', 'cool_off'] },
        next_step_id: 'done',
      },
      call('notify', 'Notify finance', `${broken.url}/notify`, { on_error: 'fallback' }),
      call('fallback', 'Page on-call', `${ok.url}/fallback`),
      { ...waitStep('cool_off', 600), name: 'Cool off' },
      call('small', 'Small refund', `${ok.url}/small`),
      call('done', 'Close ticket', `${ok.url}/done`),
    ],
  });
  page = await loggedInPage(browser, d);
});

test.after.always(async () => {
  await browser?.close();
  await ok?.close();
  await broken?.close();
  await d?.stop();
});

test.serial('the workflow page draws its steps as a graph with every kind of edge', async (t) => {
  await page.goto(`${d.url}/ui/workflows/${flow}?ws=${ws}`);
  await page.locator('main h1', { hasText: 'Refund router' }).waitFor();
  const graph = page.locator('svg.step-graph');
  await graph.waitFor();
  const stored = (await api('GET', `/workflows/${flow}`)).body.data;
  t.deepEqual(
    await graph.locator('g.node').evaluateAll((nodes) => nodes.map((n) => n.dataset.step)),
    stored.steps.map((step: { id: string }) => step.id),
    'one box per step of the stored workflow',
  );
  const edges = await graph
    .locator('g.edge')
    .evaluateAll((list) =>
      list.map((g) => `${g.dataset.from}>${g.dataset.to}:${g.getAttribute('class')}`).sort(),
    );
  t.deepEqual(edges, [
    'check>fan:edge edge-if_true',
    'check>small:edge edge-if_false',
    'fan>cool_off:edge edge-branch',
    'fan>done:edge edge-next',
    'fan>notify:edge edge-branch',
    'notify>fallback:edge edge-on_error',
  ]);
  // Rows: the condition first, each step below every step that leads to it.
  const rows = await graph
    .locator('g.node')
    .evaluateAll((nodes) =>
      Object.fromEntries(
        nodes.map((n) => [
          n.dataset.step,
          Number(/ (\d+(\.\d+)?)\)$/.exec(n.getAttribute('transform')!)![1]),
        ]),
      ),
    );
  for (const edge of edges) {
    const [from, to] = edge.split(':')[0]!.split('>') as [string, string];
    t.true(rows[from]! < rows[to]!, `${from} is drawn above ${to}`);
  }
  // What follows the join is drawn below every step of the branches.
  for (const step of ['notify', 'fallback', 'cool_off']) t.true(rows[step]! < rows.done!);
  // The same graph in words, the words apart (htm drops whitespace at line breaks).
  const words = page.getByRole('list', { name: 'Steps of Refund router, in words' });
  t.is(
    await words.locator('li[data-step="check"]').innerText(),
    'Check amount (condition); if true → Fan out, if false → Small refund',
  );
  t.is(
    await words.locator('li[data-step="fan"]').innerText(),
    'Fan out (parallel); after the branches → Close ticket, branch → Notify finance, branch → Cool off',
  );
  t.is(
    await words.locator('li[data-step="notify"]').innerText(),
    'Notify finance (webhook); on error → Page on-call',
  );
  t.is(
    await words.locator('li[data-step="done"]').innerText(),
    'Close ticket (webhook); ends its branch',
  );
  t.deepEqual(await seriousViolations(page), [], 'axe on the workflow page');
  await screenshots('workflow-graph');
});

test.serial(
  'a run page shows where the run is on the same graph, as the API reports it',
  async (t) => {
    const started = await api('POST', `/workflows/${flow}/execute`, { input: { amount: 500 } });
    t.is(started.status, 202);
    const run: string = started.body.data.execution_id;
    // The cool-off waits ten minutes on the sandbox clock; the other branch fails over to its handler.
    const waiting = await waitForExecution(api, flow, run, (execution) =>
      execution.step_results.some(
        (entry: { step_id: string; status: string }) =>
          entry.step_id === 'fallback' && entry.status === 'completed',
      ),
    );
    const statusOf = (execution: any, step: string) =>
      execution.step_results.filter((entry: { step_id: string }) => entry.step_id === step).at(-1)
        ?.status;
    t.is(statusOf(waiting, 'notify'), 'failed');
    t.is(statusOf(waiting, 'cool_off'), 'waiting');

    await page.goto(`${d.url}/ui/runs/${run}?ws=${ws}`);
    await page.locator('main h1', { hasText: run }).waitFor();
    const state = (step: string) =>
      page.locator(`svg.step-graph g.node[data-step="${step}"]`).getAttribute('data-state');
    await page
      .locator('svg.step-graph g.node[data-step="cool_off"][data-state="waiting"]')
      .waitFor();
    t.deepEqual(
      {
        check: await state('check'),
        fan: await state('fan'),
        notify: await state('notify'),
        fallback: await state('fallback'),
        cool_off: await state('cool_off'),
        small: await state('small'),
        done: await state('done'),
      },
      {
        check: 'completed',
        fan: 'running',
        notify: 'failed',
        fallback: 'completed',
        cool_off: 'waiting',
        small: 'ahead',
        done: 'ahead',
      },
    );
    t.is(
      await page.locator('.graph-words li[data-step="cool_off"]').innerText(),
      'Cool off (wait): waiting; ends its branch',
    );
    t.deepEqual(await seriousViolations(page), [], 'axe on the run page');
    await screenshots('run-graph-waiting');

    // Ten minutes later on the sandbox clock the run ends: the branch not taken reads as skipped.
    const advanced = await d.cli(['clock', 'advance', '10m']);
    t.is(advanced.code, 0, advanced.stderr);
    const ended = await waitForExecution(api, flow, run, (e) => e.status !== 'running');
    t.is(ended.status, 'completed');
    await page.locator('svg.step-graph g.node[data-step="done"][data-state="completed"]').waitFor();
    t.is(await state('cool_off'), statusOf(ended, 'cool_off'));
    t.is(await state('small'), 'skipped', 'the branch the condition did not take');
    t.is(await state('fan'), 'completed');
    t.is(statusOf(ended, 'fan'), 'completed');
    await screenshots('run-graph-ended');
  },
);

/** Runs a shell snippet as the page shows it (bash), answering its stdout. */
function shell(snippet: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('bash', ['-c', snippet], { timeout: 10_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

test.serial('a webhook trigger shows its URL and a curl that starts a run, signed', async (t) => {
  const secret = 'page-test-secret-1';
  const hooked = await createWorkflow(api, {
    name: 'Orders in',
    status: 'active',
    trigger: { type: 'webhook', config: { path: 'orders-in', secret } },
    steps: [call('record', 'Record', `${ok.url}/record`)],
  });
  await page.goto(`${d.url}/ui/workflows/${hooked}?ws=${ws}`);
  const url = page.locator('[data-field="hook_url"]');
  await url.waitFor();
  t.is(await url.innerText(), `${d.url}/v1/hooks/${ws}/orders-in`);
  const curl = await page.locator('[data-field="curl"]').innerText();
  t.regex(curl, /X-Svc-Signature: t=\$t,v1=\$sig/);
  t.false(curl.includes(secret), 'the secret is never shown');
  // The command as shown, with the secret the user knows: it starts a run with its body.
  const answer = JSON.parse(
    await shell(curl.replace(/^HOOK_SECRET=.*$/m, `HOOK_SECRET='${secret}'`)),
  );
  const started = await waitForExecution(
    api,
    hooked,
    answer.data.execution_id,
    (e) => e.status === 'completed',
  );
  t.deepEqual(started.input, { example: true });
  t.deepEqual(await seriousViolations(page), [], 'axe on a webhook-triggered workflow');
  await page.locator('#wf-trigger-h').scrollIntoViewIfNeeded();
  await screenshots('workflow-trigger');

  // Without a secret the command is one curl, and it works as shown.
  await api('PATCH', `/workflows/${hooked}`, {
    trigger: { type: 'webhook', config: { path: 'orders-in', secret: null } },
  });
  await page.reload();
  await page.locator('[data-field="curl"]', { hasNotText: 'HOOK_SECRET' }).waitFor();
  const plain = await page.locator('[data-field="curl"]').innerText();
  t.notRegex(plain, /\n/);
  const second = JSON.parse(await shell(plain));
  t.truthy((await api('GET', `/executions/${second.data.execution_id}`)).body.data);
});

test.serial(
  'a schedule shows its cron, and its next run only when the API sends one',
  async (t) => {
    const scheduled = await createWorkflow(api, {
      name: 'Nightly report',
      status: 'active',
      trigger: { type: 'schedule', config: { cron: '0 2 * * *', timezone: 'Europe/Paris' } },
      steps: [call('report', 'Report', `${ok.url}/report`)],
    });
    await page.goto(`${d.url}/ui/workflows/${scheduled}?ws=${ws}`);
    const facts = page.locator('dl.trigger-facts');
    await facts.waitFor();
    t.regex(await facts.innerText(), /Schedule\s+0 2 \* \* \* \(Europe\/Paris\)/);
    const stored = (await api('GET', `/workflows/${scheduled}`)).body.data;
    const next = stored.next_run_at ?? stored.trigger.next_run_at;
    const shown = page.locator('[data-field="next_run_at"]');
    if (next === undefined) t.is(await shown.count(), 0, 'no next run without the field');
    else t.regex(await shown.innerText(), new RegExp(next.slice(0, 16).replace('T', ' ')));
  },
);

test.serial('each version lists what it changed; a change appears live', async (t) => {
  await page.goto(`${d.url}/ui/workflows/${flow}?ws=${ws}`);
  const versions = page.getByRole('list', { name: 'Versions of Refund router' });
  await versions.locator('li[data-version="1"]').waitFor();
  t.regex(
    await versions.locator('li[data-version="1"]').innerText(),
    /^Version 1 current \S+ \S+ UTC · 7 steps\n+created$/,
  );
  const before = (await api('GET', `/workflows/${flow}`)).body.data;
  const patched = await api('PATCH', `/workflows/${flow}`, {
    name: 'Refund router v2',
    steps: [
      ...before.steps.map((step: Record<string, unknown>) =>
        step.id === 'done' ? { ...step, next_step_id: 'audit' } : step,
      ),
      call('audit', 'Audit', `${ok.url}/audit`),
    ],
  });
  t.is(patched.status, 200);
  const second = page.locator('ol.versions li[data-version="2"]');
  await second.waitFor();
  t.regex(await second.innerText(), /^Version 2 current .* · 8 steps$/m);
  t.is(
    await second.locator('.changes').innerText(),
    'renamed from "Refund router"; steps added: audit; steps changed: done',
  );
  // The older version's graph is the one runs started before the change keep.
  await page.getByText('Steps of version 1').click();
  t.is(await page.locator('ol.versions li[data-version="1"] svg g.node').count(), 7);
  t.deepEqual(await seriousViolations(page), [], 'axe with a version opened');
  await page.locator('#wf-versions-h').scrollIntoViewIfNeeded();
  await screenshots('workflow-versions');
});
