// When each API key was last used, on the Keys page and in `svc keys list`, in a real Chromium:
// a key used against the REST API shows the time of that use, a fresh key "never"; the time
// survives a daemon restart (stored when the daemon stops). axe-core, screenshots at 1280 and 390.
import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { launchChromium, loggedInPage, screenshot, seriousViolations } from '../helpers/browser.js';

let d: TestDaemon;
let ws: string;
let browser: Browser;
let page: Page;

test.before(async () => {
  browser = await launchChromium();
  d = await startDaemon();
  ws = (await d.operator()).workspaceId;
  page = await loggedInPage(browser, d);
});

test.after.always(async () => {
  await browser?.close();
  await d?.stop();
});

async function createKey(name: string): Promise<{ id: string; key: string }> {
  const created = await d.cli([
    'keys',
    'create',
    '--name',
    name,
    '--scopes',
    'workflows:read',
    '--workspace',
    ws,
    '--json',
  ]);
  if (created.code !== 0) throw new Error(created.stderr);
  return created.json();
}

async function listed(): Promise<Map<string, string | null>> {
  const answer = await d.cli(['keys', 'list', '--workspace', ws, '--json']);
  if (answer.code !== 0) throw new Error(answer.stderr);
  const keys = answer.json().data as { id: string; last_used_at: string | null }[];
  return new Map(keys.map((key) => [key.id, key.last_used_at]));
}

test.serial(
  'a key used shows when; a fresh key shows never, on the page and the CLI',
  async (t) => {
    const used = await createKey('Used by CI');
    const fresh = await createKey('Never used');
    // The daemon clock of a fresh sandbox is real time (never advanced here).
    const before = Date.now() - 1000;
    for (let i = 0; i < 3; i += 1) {
      const answer = await d.callJson('GET', '/v1/workflows', undefined, {
        key: used.key,
        tenant: ws,
      });
      t.is(answer.status, 200);
    }

    const cli = await listed();
    const usedAt = cli.get(used.id);
    t.truthy(usedAt, 'svc keys list --json: last_used_at of the used key');
    t.true(Date.parse(usedAt!) >= before, `${usedAt} is the time of the use`);
    t.is(cli.get(fresh.id), null, 'a fresh key: null');

    await page.goto(`${d.url}/ui/keys?ws=${ws}`);
    const usedRow = page.locator(`tr[data-key="${used.id}"]`);
    await usedRow.waitFor();
    const shown = await usedRow.locator('[data-field="last-used"]').innerText();
    t.is(shown, usedAt!.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'), 'the time the CLI lists');
    t.is(
      await page.locator(`tr[data-key="${fresh.id}"] [data-field="last-used"]`).innerText(),
      'never',
    );
    t.regex(
      await page.locator('table[aria-label="API keys"] thead').innerText(),
      /Expires\s+Last used/,
    );
    t.deepEqual(await seriousViolations(page), [], 'axe on the Keys page');
    await screenshot(page, 'keys-last-used-1280');
    await page.setViewportSize({ width: 390, height: 800 });
    t.true((await page.evaluate<number>('document.documentElement.scrollWidth')) <= 390);
    await screenshot(page, 'keys-last-used-390');
    await page.setViewportSize({ width: 1280, height: 800 });

    // Held in memory until the minute's flush: a stop stores it, a restart shows it.
    t.is((await d.cli(['daemon', 'stop'])).code, 0);
    t.is((await d.cli(['daemon', 'start', '--port', '0', '--json'])).code, 0);
    const after = await listed();
    t.is(after.get(used.id), usedAt, 'stored when the daemon stopped');
    t.is(after.get(fresh.id), null);
  },
);
