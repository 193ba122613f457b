// `svc workflows init` and the values a template leaves to its user (issue 41, "`workflows init`
// writes a workflow that fails its first run"): each placeholder is asked for in a terminal or
// given as --set steps.STEP.KEY=VALUE; without a terminal a missing one is a usage error naming
// its --set; and the first run of what init wrote succeeds against a local receiver.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { assertExit, SVC_BIN } from '../helpers/daemon.js';
import { sharedDaemon } from '../helpers/setup.js';
import { startReceiver } from '../helpers/receiver.js';
import { inTerminal } from '../helpers/terminal.js';
import { tempDir } from '../helpers/temp-dir.js';
import { apiFor, waitForExecution } from '../helpers/workflows.js';

const d = sharedDaemon(test);
const dir = tempDir('svc-init-set-');

const INCIDENT = ['--template', 'tmpl_incident_response', '--name', 'Pager', '--create-agents'];

test('without a terminal a missing placeholder is a usage error naming its --set flag', async (t) => {
  const file = join(dir, 'missing.yaml');
  const result = await d.cli(['workflows', 'init', file, ...INCIDENT]);
  assertExit(t, result, 2);
  t.is(
    result.stderr,
    [
      "Error: Missing --set steps.page.url=URL: the URL that pages the on-call engineer, your pager's incident webhook (e.g. https://pager.example.com/v1/incidents).",
      'Template tmpl_incident_response leaves this value to you: its example does not work as is. (No prompt is shown without a terminal or with CI=true.)',
      '',
    ].join('\n'),
  );
  t.is(result.stdout, '');
  // Nothing was made: no file, and no agent (the roles' agents come last).
  t.throws(() => readFileSync(file));
  const agents = await (await apiFor(d, (await d.operator()).workspaceId))('GET', '/agents');
  t.is(agents.body.data.length, 0);
});

test('--set is checked: its form, the step, and a placeholder value', async (t) => {
  const file = join(dir, 'checked.yaml');
  const cases: [string, string][] = [
    [
      'page.url=http://127.0.0.1:1/x',
      'Error: --set takes steps.STEP.KEY=VALUE, e.g. --set steps.page.url=http://127.0.0.1:9000/page (got "page.url=http://127.0.0.1:1/x"). Template tmpl_incident_response leaves to you: steps.page.url.',
    ],
    [
      'steps.pager.url=http://127.0.0.1:1/x',
      'Error: --set steps.pager.url: template tmpl_incident_response has no step "pager". Its steps: assess, page, wait_ack, status_update.',
    ],
    [
      'steps.page.url=ftp://127.0.0.1/x',
      'Error: --set steps.page.url: "ftp://127.0.0.1/x" is not an http(s) URL, e.g. https://pager.example.com/v1/incidents.',
    ],
    [
      'steps.page.url=https://pager.example.com/v1/incidents',
      "Error: --set steps.page.url: https://pager.example.com/v1/incidents is the template's example; give your own (a local receiver works: http://127.0.0.1:PORT/...).",
    ],
  ];
  for (const [set, told] of cases) {
    const result = await d.cli(['workflows', 'init', file, ...INCIDENT, '--set', set]);
    assertExit(t, result, 2);
    t.is(result.stderr, `${told}\n`, set);
  }
});

test('the template says how to give its values in CLI terms', async (t) => {
  const api = await apiFor(d, (await d.operator()).workspaceId);
  const templates = (await api('GET', '/workflows/templates')).body.data as {
    id: string;
    description: string;
    placeholders: { path: string; format: string; example: string }[];
  }[];
  const incident = templates.find((template) => template.id === 'tmpl_incident_response')!;
  t.regex(incident.description, /--set steps\.page\.url=URL/);
  t.notRegex(incident.description, /customizations|config\.url/);
  t.like(incident.placeholders, [
    { path: 'steps.page.url', format: 'url', example: 'https://pager.example.com/v1/incidents' },
  ]);
  const report = templates.find((template) => template.id === 'tmpl_daily_report')!;
  t.regex(report.description, /--set steps\.post\.url=URL/);
  t.like(report.placeholders, [{ path: 'steps.post.url', format: 'url' }]);
});

test.serial(
  'the first run of what init wrote with --set, created and activated with the CLI, succeeds against a local receiver',
  async (t) => {
    const ws = await d.createWorkspace('init-set-first-run');
    const env = { SVC_WORKSPACE: ws };
    const api = await apiFor(d, ws);
    const receiver = await startReceiver(t);
    const file = join(dir, 'pager.yaml');
    const init = await d.cli(
      ['workflows', 'init', file, ...INCIDENT, '--set', `steps.page.url=${receiver.url}/page`],
      { env },
    );
    assertExit(t, init, 0);
    t.is(
      init.stdout,
      `Wrote ${file} from tmpl_incident_response (4 steps, trigger webhook).\nReview it, then create the workflow with: svc workflows create -f ${file}\n`,
    );
    const written = parseYaml(readFileSync(file, 'utf8'));
    t.is(
      written.steps.find((step: { id: string }) => step.id === 'page').config.url,
      `${receiver.url}/page`,
    );

    const created = await d.cli(['workflows', 'create', '-f', file, '--json'], { env });
    assertExit(t, created, 0);
    const workflowId = created.json().id as string;
    assertExit(t, await d.cli(['workflows', 'activate', workflowId], { env }), 0);

    const posted = await fetch(`${d.url}/v1/hooks/${ws}/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ alert: 'error rate 12%', service: 'checkout' }),
    });
    t.is(posted.status, 202, await posted.clone().text());
    const executionId = ((await posted.json()) as { data: { execution_id: string } }).data
      .execution_id;
    await waitForExecution(api, workflowId, executionId, (run) =>
      run.step_results.some(
        (step: { step_id: string; status: string }) =>
          step.step_id === 'wait_ack' && step.status === 'waiting',
      ),
    );
    // The clock over the control channel, as `svc clock advance` moves it (tested in cli-operator).
    await d.advance('15m');
    const run = await waitForExecution(api, workflowId, executionId, (e) => e.status !== 'running');
    t.is(run.status, 'completed', JSON.stringify(run));
    t.is(receiver.requests.length, 1);
    t.is(receiver.requests[0]!.path, '/hooks/page');
    t.like(receiver.requests[0]!.json(), { service: 'checkout', execution: executionId });
  },
);

test('in a terminal init asks for the placeholder, refusing what is not a URL', async (t) => {
  const ws = await d.createWorkspace('init-set-terminal');
  const file = join(dir, 'asked.yaml');
  const screen = await inTerminal(
    `node ${SVC_BIN} workflows init ${file} ${INCIDENT.join(' ')}`,
    [
      ['the URL that pages the on-call engineer', 'not a url\r'],
      ['is not an http(s) URL', '\u0015http://127.0.0.1:9/page\r'],
    ],
    { ...d.env, SVC_WORKSPACE: ws },
  );
  t.regex(screen, /\(steps\.page\.url, e\.g\. https:\/\/pager\.example\.com\/v1\/incidents\)/);
  t.regex(screen, /"not a url" is not an http\(s\) URL/);
  t.regex(screen, /Wrote .*asked\.yaml/);
  const written = parseYaml(readFileSync(file, 'utf8'));
  t.is(
    written.steps.find((step: { id: string }) => step.id === 'page').config.url,
    'http://127.0.0.1:9/page',
  );
});
