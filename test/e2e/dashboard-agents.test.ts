// The agents list and an agent's page, in a real Chromium: the list (status, type, autonomy,
// newest execution; filter, keyset pages, empty state) links to each agent; the agent's page
// shows what was seeded through the REST API and the CLI (a knowledge document and its
// passages, a stub, executions paged newest first, one awaiting approval, analytics), and an
// approval given there is the execution's decision through the REST API.
import test from 'ava';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { type TestDaemon } from '../helpers/daemon.js';
import { activeAgent, type Api } from '../helpers/workflows.js';
import {
  loggedInPage,
  screenshot,
  seriousViolations,
  startDashboardBench,
  stopDashboardBench,
} from '../helpers/browser.js';
import type { Receiver } from '../helpers/receiver.js';

const FAQ = fileURLToPath(new URL('../../fixtures/support-desk/faq.md', import.meta.url));

let d: TestDaemon;
let api: Api;
let ws: string;
let browser: Browser;
let page: Page;
let receiver: Receiver;
let agent: string;
let quiet: string;
let pending: string;
const answered: string[] = [];

async function screenshots(name: string): Promise<void> {
  await screenshot(page, `${name}-1280`);
  await page.setViewportSize({ width: 390, height: 800 });
  await screenshot(page, `${name}-390`);
  await page.setViewportSize({ width: 1280, height: 800 });
}

async function svc(...args: string[]): Promise<any> {
  const result = await d.cli([...args, '--workspace', ws, '--json']);
  if (result.code !== 0) throw new Error(`svc ${args.join(' ')}: ${result.stderr}`);
  return result.json();
}

test.before(async () => {
  ({ browser, d, ws, api, receiver } = await startDashboardBench());
  ({ id: agent } = await activeAgent(api, {
    name: 'Refund desk',
    guardrails: { require_approval_for: ['issue_refund'] },
  }));
  // Paused, and it never ran.
  const created = await api('POST', '/agents', {
    name: 'Quiet agent',
    ontology: 'retail-v1',
    type: 'sales',
    autonomy_level: 'L2',
  });
  quiet = created.body.data.id;
  await api('PATCH', `/agents/${quiet}`, { status: 'paused' });
  await svc('agents', 'knowledge', 'upload', agent, FAQ, '--type', 'faq');
  await svc(
    'agents',
    'stub',
    'add',
    agent,
    '--match',
    'refund',
    '--result',
    '{"action":"issue_refund","output":"Refunded order 17","confidence":0.9}',
  );
  // 21 answered at once (one page of 20 and one more), then one the guardrail holds.
  for (let i = 1; i <= 21; i += 1) {
    const done = await api('POST', `/agents/${agent}/execute`, {
      input: `Where is order ${i}?`,
      wait_for_completion: true,
    });
    if (done.status !== 200) throw new Error(`execute: ${JSON.stringify(done.body)}`);
    answered.push(done.body.data.execution_id);
  }
  const held = await api('POST', `/agents/${agent}/execute`, {
    input: 'Please refund order 17',
    wait_for_completion: true,
  });
  if (held.body.data?.status !== 'awaiting_approval') throw new Error(JSON.stringify(held.body));
  pending = held.body.data.execution_id;
  page = await loggedInPage(browser, d);
});

test.after.always(() => stopDashboardBench({ browser, receiver, d }));

test.serial(
  'the agents list: status, type, autonomy, newest execution; filter; pages; empty',
  async (t) => {
    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: 'Agents' })
      .click();
    await page.locator('main h1', { hasText: 'Agents' }).waitFor();
    const row = page.locator(`tr[data-agent="${agent}"]`);
    await row.waitFor();
    const cells = await row.locator('td').allInnerTexts();
    t.deepEqual(cells.slice(0, 4), [`Refund desk ${agent}`, 'active', 'customer-service', 'L3']);
    t.regex(cells[4]!, /^awaiting approval \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    t.is(
      await row.locator('td').nth(4).getByRole('link').getAttribute('href'),
      `/ui/executions/${pending}?ws=${ws}`,
    );
    const quietCells = await page.locator(`tr[data-agent="${quiet}"] td`).allInnerTexts();
    t.deepEqual(quietCells, [`Quiet agent ${quiet}`, 'paused', 'sales', 'L2', 'none yet']);
    t.is(
      await page.getByRole('link', { name: 'Agents', exact: true }).getAttribute('aria-current'),
      'page',
    );
    t.is(await page.locator('.pager .muted').innerText(), '2 in all');
    t.deepEqual(await seriousViolations(page), [], 'axe on the agents list');
    await screenshots('agents');

    // The status filter is the REST list's.
    await page.getByLabel('Status').selectOption('paused');
    await page.locator(`tr[data-agent="${agent}"]`).waitFor({ state: 'detached' });
    t.is(await page.locator('tbody tr').count(), 1);
    t.true(page.url().includes('status=paused'));

    // Pages come from the REST list's cursor: newest first, one at a time here.
    const pages = await page.evaluate(async (workspace) => {
      const first: any = await (
        await fetch(`/ui/api/agents?workspace=${workspace}&limit=1`)
      ).json();
      const second: any = await (
        await fetch(
          `/ui/api/agents?workspace=${workspace}&limit=1&starting_after=${first.next_cursor}`,
        )
      ).json();
      return [first, second].map((p: any) => ({
        ids: p.data.map((a: any) => a.id),
        more: p.has_more,
      }));
    }, ws);
    t.deepEqual(pages, [
      { ids: [quiet], more: true },
      { ids: [agent], more: false },
    ]);

    const empty = await d.createWorkspace('No agents here');
    await page.goto(`${d.url}/ui/agents?ws=${empty}`);
    t.is(
      await page.locator('main p.empty').innerText(),
      'No agents in this workspace. Create one with svc agents create.',
    );
    await page.goto(`${d.url}/ui/agents?ws=${ws}`);
    await page.getByRole('link', { name: 'Refund desk' }).click();
    await page.waitForURL(new RegExp(`/ui/agents/${agent}`));
    await page.locator('main h1', { hasText: 'Agent Refund desk' }).waitFor();

    // An unknown agent, or a bad query, is said as the API says it.
    await page.goto(`${d.url}/ui/agents/agt_nosuchagent?ws=${ws}`);
    t.regex(await page.getByRole('alert').innerText(), /agt_nosuchagent/);
    const refused = await page.evaluate(async (path) => {
      const answer = await fetch(path);
      return { status: answer.status, body: (await answer.json()) as any };
    }, `/ui/api/agents/${agent}/executions?workspace=${ws}&awaiting=perhaps`);
    t.is(refused.status, 400);
    t.is(refused.body.error.code, 'invalid_parameter');
    t.regex(refused.body.error.message, /^awaiting: /);
  },
);

test.serial(
  'the agent page: approvals, executions, knowledge, stubs, analytics; approve',
  async (t) => {
    await page.goto(`${d.url}/ui/agents/${agent}?ws=${ws}`);
    const card = page.locator(`li.card[data-execution="${pending}"]`);
    await card.waitFor();
    t.regex(await card.innerText(), /Please refund order 17/);
    t.regex(await card.innerText(), /issue_refund \(confidence 90%\)/);

    // Executions: newest first, 20 a page, each linking to its page.
    const rows = page.locator('table[aria-label="Executions"] tbody tr');
    await page.locator(`tr[data-execution="${pending}"]`).waitFor();
    t.is(await rows.count(), 20);
    t.deepEqual(await rows.first().locator('td').allInnerTexts(), [
      pending,
      'awaiting approval',
      'Please refund order 17',
      'issue_refund',
      '90%',
      'Refunded order 17',
      await rows.first().locator('td').nth(6).innerText(),
    ]);
    const second = await rows.nth(1).locator('td').allInnerTexts();
    t.is(second[0], answered[20]);
    t.is(second[2], 'Where is order 21?');
    t.regex(second[4]!, /^\d+%$/);
    t.is(
      await rows.first().getByRole('link').getAttribute('href'),
      `/ui/executions/${pending}?ws=${ws}`,
    );
    await page.getByRole('button', { name: 'Older' }).click();
    await page.locator(`tr[data-execution="${answered[0]}"]`).waitFor();
    t.deepEqual(
      await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-execution'))),
      [answered[1], answered[0]],
    );
    t.is(await page.locator('.pager .muted').first().innerText(), '22 in all');
    await page.getByRole('button', { name: 'Newest' }).click();
    await page.locator(`tr[data-execution="${pending}"]`).waitFor();

    // Knowledge: the document and, on demand, its passages as stored.
    const doc = page.locator('table[aria-label="Knowledge documents"] tbody tr').first();
    t.regex(await doc.innerText(), /faq\.md/);
    t.is(await doc.locator('td').nth(3).innerText(), '2');
    await doc.getByRole('button', { name: 'Show passages of faq.md' }).click();
    const passages = page.locator('ol.passages li');
    await passages.first().waitFor();
    t.is(await passages.count(), 2);
    t.regex(
      await passages.allInnerTexts().then((all) => all.join('\n')),
      /Standard shipping takes 2 to 4 business days/,
    );

    // The stub, as `svc agents stub list` has it.
    const stub = await page.locator('table[aria-label="Stubs"] tbody tr td').allInnerTexts();
    t.deepEqual(stub.slice(0, 3), [
      'refund',
      'issue_refund (confidence 90%): Refunded order 17',
      '—',
    ]);

    // Analytics of the last 7 days, from the REST analytics.
    const rest = await api('GET', `/agents/${agent}/analytics?period=7d`);
    const facts = page.locator('dl[aria-label="Analytics"]');
    await facts.waitFor();
    t.regex(
      await facts.innerText(),
      new RegExp(`Interactions\\s+${rest.body.data.metrics.total_interactions}\\b`),
    );
    t.regex(await facts.innerText(), /Actions\s+.*issue_refund × 1/);

    t.deepEqual(await seriousViolations(page), [], 'axe on the agent page');
    await screenshots('agent-sections');
    await page.locator('main h1').scrollIntoViewIfNeeded();
    await screenshots('agent');
    // At 390 px wide only the tables scroll sideways, not the page.
    await page.setViewportSize({ width: 390, height: 800 });
    const width = await page.evaluate<number>('document.documentElement.scrollWidth');
    t.log(`agent page at 390 px: scrollWidth ${width}`);
    t.true(width <= 390);
    await page.setViewportSize({ width: 1280, height: 800 });

    // Approve from the agent page: through the REST API the execution is approved.
    await card.getByRole('button', { name: `Approve ${pending}` }).click();
    await page.getByText('Nothing of this agent awaits approval.').waitFor();
    const stored = await api('GET', `/agents/${agent}/executions/${pending}`);
    t.is(stored.body.data.status, 'completed');
    t.is(stored.body.data.approval.decision, 'approve');
    await page
      .locator(`tr[data-execution="${pending}"] td`)
      .nth(1)
      .filter({ hasText: 'completed' })
      .waitFor();
    // Analytics are read again on Refresh (not on each execution): the approval counts now.
    const after = (await api('GET', `/agents/${agent}/analytics?period=7d`)).body.data.metrics;
    t.is(after.success_rate, 1);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await facts.getByText('100%', { exact: true }).first().waitFor();
    t.regex(await facts.innerText(), /Success rate\s+100%/);
  },
);

test.serial('with 100,000 executions the agent page answers at once', async (t) => {
  const { id: busy } = await activeAgent(api, { name: 'Busy agent' });
  // Written straight into the store (the REST API would take minutes): as the daemon stores
  // them, newest last, ten to a millisecond so that the cursor's id breaks ties.
  const db = new Database(join(d.dataDir, 'svc.db'));
  db.pragma('busy_timeout = 10000');
  const insert = db.prepare(
    `INSERT INTO agent_executions (id, agent_id, workspace_id, status, autonomy_level, input, context,
       action, output, confidence, execution_time_ms, created_at, completed_at)
     VALUES (?, ?, ?, 'completed', 'L3', ?, '{}', 'answer_question', 'An answer', 0.8, 5, ?, ?)`,
  );
  const start = Date.now() - 20_000;
  db.transaction(() => {
    for (let i = 0; i < 100_000; i += 1) {
      const at = start + Math.floor(i / 10);
      insert.run(`exec_bulk${String(i).padStart(6, '0')}`, busy, ws, `Question ${i}`, at, at);
    }
  })();
  db.close();

  // What the agent page reads that grows with the executions, each timed in the browser. The
  // first read after rows written by another connection reloads the daemon's page cache: it is
  // made once untimed. No named function inside: the test's TypeScript loader would wrap it in
  // a helper the page does not have.
  const base = `/ui/api/agents/${busy}`;
  const reads = await page.evaluate(
    async (paths) => {
      await fetch(paths[0]!);
      const answers = [];
      for (const path of paths) {
        const started = performance.now();
        const body: any = await (await fetch(path)).json();
        answers.push({ path, ms: performance.now() - started, body });
      }
      return answers;
    },
    [
      `${base}/executions?workspace=${ws}&limit=20`,
      `${base}/executions?workspace=${ws}&limit=20&starting_after=exec_bulk010000`,
      `${base}/executions?workspace=${ws}&awaiting=true&limit=20`,
      `${base}/analytics?workspace=${ws}`,
    ],
  );
  for (const read of reads)
    t.log(
      `${read.path.replace(base, '').replace(/workspace=\w+&?/, '')}: ${read.ms.toFixed(1)} ms`,
    );
  const [newest, deep, awaiting, analytics] = reads.map((read) => read.body);
  t.is(newest.total_count, 100_000);
  t.is(newest.data[0].execution_id, 'exec_bulk099999');
  t.is(deep.data[0].execution_id, 'exec_bulk009999');
  t.is(awaiting.total_count, 0);
  t.is(analytics.metrics.total_interactions, 100_000);
  // The times are logged, not asserted (a loaded machine's figure says nothing of the code): that
  // a page reads no more than its rows is unit agent-execution-pages' (query plans: no scan, no
  // sort).

  const started = performance.now();
  await page.goto(`${d.url}/ui/agents/${busy}?ws=${ws}`);
  await page.locator('tr[data-execution="exec_bulk099999"]').waitFor();
  const shown = performance.now() - started;
  t.log(`the agent page showed its newest execution after ${shown.toFixed(0)} ms`);
  t.is(await page.locator('.pager .muted').first().innerText(), '100000 in all');
});
