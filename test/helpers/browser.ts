// Browser tests: Debian's Chromium driven by playwright-core (its own browser download cannot
// work offline), axe-core run inside the page, and 1280x800 screenshots for reviewers. Without
// Chromium the tests fail, naming the install command: they never skip silently. The gate
// (scripts/test.mjs) sets SVC_SCREENSHOTS=0: the screenshots are for a person to look at.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { control } from './api.js';
import { ROOT, startDaemon, type TestDaemon } from './daemon.js';
import { startReceiver, type Receiver } from './receiver.js';
import { HANG_TIMEOUT_MS } from './waiting.js';
import { activeAgent, apiFor, createWorkflow, type Api } from './workflows.js';

export const SCREENSHOT_DIR = join(ROOT, 'test-results', 'dashboard');
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

export function chromiumPath(): string {
  const found = [process.env.SVC_CHROMIUM, ...CANDIDATES].find(
    (path): path is string => Boolean(path) && existsSync(path!),
  );
  if (!found) {
    throw new Error(
      'No Chromium found for the browser tests. Install it with: sudo apt-get install -y chromium ' +
        '(or set SVC_CHROMIUM to a Chromium or Chrome binary).',
    );
  }
  return found;
}

/** A headless Chromium that never reaches the network on its own. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

const axeSource = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * axe-core's serious and critical findings on the page as it is now. The script is evaluated
 * through the debugging protocol, so the page's Content-Security-Policy stays as it is.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as any).axe;
    const result = await axe.run((globalThis as any).document, { resultTypes: ['violations'] });
    return result.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n: any) => ({ target: n.target })),
    }));
  });
  return (violations as AxeViolation[]).filter(
    (v) => v.impact === 'serious' || v.impact === 'critical',
  );
}

/** Whether screenshot() saves anything: not when SVC_SCREENSHOTS=0 (the gate sets it). */
export function screenshotsWanted(): boolean {
  return process.env.SVC_SCREENSHOTS !== '0';
}

/** Saves the page as test-results/dashboard/NAME.png, unless SVC_SCREENSHOTS=0 (the gate). */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (!screenshotsWanted()) return;
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`) });
}

/**
 * A one-time login link for the dashboard, asked over the control channel as `svc dashboard
 * --no-open --json` asks it (without a CLI process, ~0.8 CPU-s; the command itself is tested in
 * dashboard.test.ts, dashboard-links.test.ts and small-refusals.test.ts).
 */
export async function dashboardLoginUrl(d: TestDaemon): Promise<string> {
  const link = await control<{ login_url: string }>(
    { url: d.url, dataDir: d.dataDir },
    'dashboard.login',
    {},
  );
  return link.login_url;
}

/** A 1280x800 page logged in through a one-time login link, on the Overview. */
export async function loggedInPage(browser: Browser, d: TestDaemon): Promise<Page> {
  const loginUrl = await dashboardLoginUrl(d);
  const page = await (
    await browser.newContext({ viewport: { width: 1280, height: 800 } })
  ).newPage();
  await page.goto(loginUrl);
  await page.locator('main h1', { hasText: 'Overview' }).waitFor();
  return page;
}

/** What a dashboard browser test starts before its tests, as most of them need it. */
export interface DashboardBench {
  browser: Browser;
  d: TestDaemon;
  /** The operator's workspace, which the logged-in dashboard shows. */
  ws: string;
  api: Api;
  receiver: Receiver;
}

/** Chromium, a daemon, the operator's workspace and its API, a webhook receiver. */
export async function startDashboardBench(): Promise<DashboardBench> {
  const started: Partial<DashboardBench> = {};
  try {
    started.browser = await launchChromium();
    started.d = await startDaemon();
    started.ws = (await started.d.operator()).workspaceId;
    started.api = await apiFor(started.d, started.ws);
    started.receiver = await startReceiver();
    return started as DashboardBench;
  } catch (error) {
    await stopDashboardBench(started);
    throw error;
  }
}

/** Stops what startDashboardBench started, however far it got. */
export async function stopDashboardBench(bench: Partial<DashboardBench>): Promise<void> {
  await bench.browser?.close();
  await bench.receiver?.close();
  await bench.d?.stop();
}

/** The objects a page loop shows, one of each kind that has a page: their ids. */
export interface PageObjects {
  agt: string;
  wfl: string;
  wex: string;
  exec: string;
  hook: string;
  del: string;
}

/**
 * Puts one object of each kind that has a page into the bench's workspace, for a test that
 * visits every page with data on it: an L2 agent "Refund approver" and one execution of it, the
 * workflow `workflow` (active) and one run of it with `input`, a webhook to `hookUrl` for the run's
 * start, and that webhook's first delivery (waited for, bounded by the hang guard).
 */
export async function seedPageObjects(
  api: Api,
  options: { workflow: Record<string, unknown>; input: Record<string, unknown>; hookUrl: string },
): Promise<PageObjects> {
  const agent = await activeAgent(api, { autonomy_level: 'L2', name: 'Refund approver' });
  const wfl = await createWorkflow(api, { ...options.workflow, status: 'active' });
  const hook = await api('POST', '/webhooks', {
    url: options.hookUrl,
    events: ['workflow.execution.started'],
  });
  const run = await api('POST', `/workflows/${wfl}/execute`, { input: options.input });
  const execution = await api('POST', `/agents/${agent.id}/execute`, {
    input: 'Refund order 42, please',
  });
  const objects = {
    agt: agent.id,
    wfl,
    wex: run.body.data.execution_id as string,
    exec: execution.body.data.execution_id as string,
    hook: hook.body.data.id as string,
    del: '',
  };
  // Until the run's delivery is listed: bounded by the hang guard, not a count of polls.
  const until = Date.now() + HANG_TIMEOUT_MS;
  while (!objects.del && Date.now() < until) {
    const deliveries = await api('GET', `/webhooks/${objects.hook}/deliveries`);
    objects.del = deliveries.body.data[0]?.id ?? '';
    if (!objects.del) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (!objects.del) throw new Error(`No delivery of ${objects.hook} was listed in time.`);
  return objects;
}

/**
 * Every page of the dashboard, with the seeded objects on it: its path, a text of its heading
 * (`workflowHeading`: of the workflow's name), and its name (screenshots, test titles). A
 * function of names known before the data exists, so a file can make one test a page.
 */
export function dashboardPages(
  ids: Partial<PageObjects>,
  workflowHeading: string,
): [path: string, heading: string, name: string][] {
  return [
    ['', 'Overview', 'overview'],
    ['/workflows', 'Workflows', 'workflows'],
    [`/workflows/${ids.wfl}`, workflowHeading, 'workflow'],
    ['/runs', 'Workflow runs', 'runs'],
    [`/runs/${ids.wex}`, 'Run', 'run'],
    [`/agents/${ids.agt}`, 'Refund approver', 'agent'],
    [`/executions/${ids.exec}`, 'Agent execution', 'execution'],
    ['/approvals', 'Approvals', 'approvals'],
    ['/webhooks', 'Webhooks', 'webhooks'],
    [`/webhooks/${ids.hook}`, 'Webhooks', 'webhook'],
    [`/webhooks/${ids.hook}/deliveries/${ids.del}`, 'Webhooks', 'delivery'],
    ['/events', 'Events', 'events'],
    ['/clock', 'Clock', 'clock'],
    ['/keys', 'API keys', 'keys'],
    ['/secrets', 'Secrets', 'secrets'],
    ['/faults', 'Fault rules', 'faults'],
    ['/agents', 'Agents', 'agents'],
    ['/templates', 'Templates', 'templates'],
  ];
}

/** Opens a dashboard page of workspace `ws` and waits until it shows its data. */
export async function openDashboardPage(
  page: Page,
  d: TestDaemon,
  ws: string,
  [path, heading]: [path: string, heading: string, ...rest: unknown[]],
): Promise<void> {
  await page.goto(`${d.url}/ui${path}?ws=${ws}`);
  await page.locator('main h1', { hasText: heading }).first().waitFor();
  await page.locator('main .loading').first().waitFor({ state: 'detached' });
}
