// Templates with the real daemon and CLI: the catalogue, POST /v1/workflows/from-template and its
// errors, every template created and run to completion with stubbed agents, and `svc workflows
// init` by flags, without a terminal, and once interactively in a real pseudo-terminal.
import test from 'ava';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { SVC_BIN, startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { inTerminal } from '../helpers/terminal.js';
import { startReceiver } from '../helpers/receiver.js';
import {
  activeAgent,
  allExecutions,
  apiFor,
  waitForExecution,
  type Api,
} from '../helpers/workflows.js';

let d: TestDaemon;
let dir: string;

test.before(async () => {
  d = await startDaemon();
  dir = mkdtempSync(join(tmpdir(), 'svc-init-'));
});

test.after.always(async () => {
  await d?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function workspace(name: string): Promise<{ api: Api; ws: string }> {
  const ws = await d.createWorkspace(name);
  return { api: await apiFor(d, ws), ws };
}

test('GET /v1/workflows/templates lists the catalogue and filters by industry', async (t) => {
  const { api } = await workspace('catalogue');
  const all = await api('GET', '/workflows/templates');
  t.is(all.status, 200);
  t.true(all.body.data.length >= 8);
  t.is(all.body.total_count, all.body.data.length);
  for (const template of all.body.data) {
    t.regex(template.id, /^tmpl_/);
    t.is(template.steps_count, template.steps.length);
    t.true(template.roles.length > 0);
    for (const key of ['name', 'description', 'industry', 'avg_duration_seconds'])
      t.not(template[key], undefined, `${template.id}.${key}`);
  }
  const finance = await api('GET', '/workflows/templates?industry=finance');
  t.deepEqual(
    finance.body.data.map((template: { id: string }) => template.id),
    ['tmpl_invoice_processing'],
  );
  const cli = await d.cli(['workflows', 'templates', '--industry', 'sales']);
  t.is(cli.code, 0);
  t.regex(cli.stdout, /tmpl_lead_qualification/);
  t.notRegex(cli.stdout, /tmpl_invoice_processing/);
});

test('from-template refuses an unmapped role, a foreign agent and an unknown template', async (t) => {
  const { api } = await workspace('from-template-errors');
  const other = await workspace('from-template-other');
  const mine = await activeAgent(api);
  const theirs = await activeAgent(other.api);
  const unmapped = await api('POST', '/workflows/from-template', {
    template_id: 'tmpl_lead_qualification',
    name: 'Leads',
    customizations: { agents: { qualifier: mine.id } },
  });
  t.is(unmapped.status, 400);
  t.is(unmapped.body.error.code, 'missing_required_field');
  t.deepEqual(unmapped.body.error.required_fields, [
    'customizations.agents.account_executive',
    'customizations.agents.nurturer',
  ]);
  const foreign = await api('POST', '/workflows/from-template', {
    template_id: 'tmpl_lead_qualification',
    name: 'Leads',
    customizations: {
      agents: { qualifier: mine.id, account_executive: theirs.id, nurturer: mine.id },
    },
  });
  t.is(foreign.status, 400);
  t.is(foreign.body.error.code, 'invalid_step_config');
  t.is(foreign.body.error.param, 'customizations.agents.account_executive');
  const unknown = await api('POST', '/workflows/from-template', {
    template_id: 'tmpl_nope',
    name: 'Nope',
    customizations: { agents: {} },
  });
  t.is(unknown.status, 404);
});

test('every template creates a workflow that runs to completion with stubbed agents', async (t) => {
  const { api } = await workspace('every-template');
  const receiver = await startReceiver(t);
  const templates = (await api('GET', '/workflows/templates')).body.data as any[];
  const agentsByType = new Map<string, string>();
  for (const type of new Set(templates.flatMap((tpl) => tpl.roles.map((r: any) => r.agent_type)))) {
    const agent = await activeAgent(api, { type, name: `Stubbed ${type}` });
    const stub = await d.cli([
      'agents',
      'stub',
      'add',
      agent.id,
      '--match',
      '/.*/',
      '--result',
      '{"action":"done","output":"Handled by the stub","confidence":0.95}',
      '--workspace',
      (await api('GET', '/auth/me')).body.data.workspace_id,
    ]);
    t.is(stub.code, 0, stub.stderr);
    agentsByType.set(type as string, agent.id);
  }
  const runs: { workflowId: string; executionId: string; template: string }[] = [];
  for (const template of templates) {
    const webhookSteps = template.steps.filter((step: any) => step.type === 'webhook');
    const created = await api('POST', '/workflows/from-template', {
      template_id: template.id,
      name: `From ${template.id}`,
      customizations: {
        agents: Object.fromEntries(
          template.roles.map((role: any) => [role.name, agentsByType.get(role.agent_type)]),
        ),
        steps: Object.fromEntries(
          webhookSteps.map((step: any) => [step.id, { url: `${receiver.url}/${template.id}` }]),
        ),
      },
    });
    t.is(created.status, 201, JSON.stringify(created.body));
    t.is(created.body.data.status, 'draft');
    t.is(created.body.data.steps.length, template.steps_count);
    const started = await api('POST', `/workflows/${created.body.data.id}/execute`, {
      input: {
        subject: 'Order late',
        body: 'Where is my order?',
        amount: 250,
        order_id: 'A-1',
        service: 'checkout',
        alert: 'latency',
        name: 'Ada',
        text: 'hello',
      },
    });
    t.is(started.status, 202, JSON.stringify(started.body));
    runs.push({
      workflowId: created.body.data.id,
      executionId: started.body.data.execution_id,
      template: template.id,
    });
  }
  // Waits end on the daemon clock: the incident's 15 minutes first (its run must end before its
  // own one-hour timeout is due), then onboarding's day.
  const settle = async (exclude: string[]) => {
    for (const run of runs.filter((r) => !exclude.includes(r.template))) {
      const execution = await waitForExecution(
        api,
        run.workflowId,
        run.executionId,
        (e) => !['running', 'awaiting_approval'].includes(e.status),
        30_000,
      );
      t.is(execution.status, 'completed', `${run.template}: ${JSON.stringify(execution)}`);
    }
  };
  const ready = async (template: string, stepId: string) => {
    const run = runs.find((r) => r.template === template)!;
    await waitForExecution(api, run.workflowId, run.executionId, (e) =>
      e.step_results.some((step: any) => step.step_id === stepId && step.status === 'waiting'),
    );
  };
  await ready('tmpl_incident_response', 'wait_ack');
  await ready('tmpl_employee_onboarding', 'first_day');
  // The clock over the control channel, as `svc clock advance` moves it (tested in cli-operator).
  await d.advance('20m');
  await settle(['tmpl_employee_onboarding']);
  await d.advance('1d');
  await settle([]);
  t.true(receiver.requests.some((request) => request.path.includes('tmpl_incident_response')));
});

test('svc workflows init by flags writes a file that svc workflows create accepts', async (t) => {
  const { api, ws } = await workspace('init-flags');
  const env = { SVC_WORKSPACE: ws };
  const [a, b, c] = [await activeAgent(api), await activeAgent(api), await activeAgent(api)];
  const file = join(dir, 'leads.yaml');
  const initLeads = (name: string, ...more: string[]) =>
    d.cli(
      ['workflows', 'init', file, '--template', 'tmpl_lead_qualification', '--name', name, ...more],
      { env },
    );
  const init = await initLeads(
    'Inbound leads',
    '--agent',
    `qualifier=${a.id}`,
    '--agent',
    `account_executive=${b.id}`,
    '--agent',
    `nurturer=${c.id}`,
  );
  t.is(init.code, 0, init.stderr);
  const written = parseYaml(readFileSync(file, 'utf8'));
  t.is(written.name, 'Inbound leads');
  t.deepEqual(written.trigger, { type: 'webhook', config: { path: 'new-leads' } });
  t.is(written.steps.find((step: any) => step.id === 'score').agent_id, a.id);
  const created = await d.cli(['workflows', 'create', '-f', file, '--json'], { env });
  t.is(created.code, 0, created.stderr);
  t.is(created.json().name, 'Inbound leads');

  // Again: the file exists, and without a terminal nothing is asked.
  const again = await initLeads('X', '--create-agents');
  t.is(again.code, 2);
  t.regex(again.stderr, /--force/);
  const created2 = await d.cli(
    [
      'workflows',
      'init',
      join(dir, 'leads2.json'),
      '--template',
      'lead_qualification',
      '--name',
      'Y',
      '--create-agents',
      '--json',
    ],
    { env },
  );
  t.is(created2.code, 0, created2.stderr);
  t.is(
    new Set(Object.values(created2.json().workflow.steps.map((s: any) => s.agent_id))).size >= 3,
    true,
  );
  t.is((await allExecutions(api, created.json().id)).length, 0);
});

test('svc workflows init without a terminal names the missing flag', async (t) => {
  // Each case adds one more flag than the one before and is told about the next one missing.
  const cases: [string[], RegExp][] = [
    [[], /--template/],
    [['--template', 'tmpl_support_triage'], /--name/],
    [['--template', 'tmpl_support_triage', '--name', 'Triage'], /--agent triager=agt_/],
    [
      ['--template', 'tmpl_support_triage', '--name', 'Triage', '--agent', 'janitor=agt_1'],
      /no role "janitor"/,
    ],
  ];
  for (const [flags, told] of cases) {
    const result = await d.cli(['workflows', 'init', join(dir, 'x.yaml'), ...flags]);
    t.is(result.code, 2, flags.join(' '));
    t.regex(result.stderr, told);
  }
});

test('svc workflows init asks in a terminal and can create a missing agent', async (t) => {
  const { api, ws } = await workspace('init-terminal');
  const existing = await activeAgent(api, { type: 'custom', name: 'Existing moderator' });
  const file = join(dir, 'moderation.yaml');
  const down = '\u001b[B';
  const screen = await inTerminal(
    `node ${SVC_BIN} workflows init ${file}`,
    [
      // The first template (content moderation) is highlighted: take it.
      ['Which template', '\r'],
      ['Workflow name', 'Community moderation\r'],
      // Role moderator: the existing custom agent comes first.
      ['Agent for role "moderator"', '\r'],
      // Role reviewer: go past the existing agent to "Create a new custom agent".
      ['Agent for role "reviewer"', `${down}\r`],
      ['Name of the new custom agent', '\r'],
    ],
    { ...d.env, SVC_WORKSPACE: ws },
  );
  t.regex(screen, /Wrote .*moderation\.yaml/);
  const written = parseYaml(readFileSync(file, 'utf8'));
  t.is(written.name, 'Community moderation');
  const byId = new Map(written.steps.map((step: any) => [step.id, step.agent_id]));
  t.is(byId.get('screen'), existing.id);
  const reviewer = byId.get('second_look') as string;
  t.regex(reviewer, /^agt_/);
  t.not(reviewer, existing.id);
  const agent = await api('GET', `/agents/${reviewer}`);
  t.is(agent.body.data.type, 'custom');
  t.is(agent.body.data.name, 'Content moderation: reviewer');
  const created = await d.cli(['workflows', 'create', '-f', file, '--json'], {
    env: { SVC_WORKSPACE: ws },
  });
  t.is(created.code, 0, created.stderr);
});

test('svc workflows init --create-agents makes each role an active agent of its autonomy: the refund approver is L2', async (t) => {
  const { api, ws } = await workspace('init-autonomy');
  const init = await d.cli(
    [
      'workflows',
      'init',
      join(dir, 'refunds.json'),
      '--template',
      'tmpl_refund_approval',
      '--name',
      'Refunds',
      '--create-agents',
      '--json',
    ],
    { env: { SVC_WORKSPACE: ws } },
  );
  t.is(init.code, 0, init.stderr);
  const steps = init.json().workflow.steps as { id: string; agent_id?: string }[];
  const autonomyOf = async (stepId: string) => {
    const agentId = steps.find((step) => step.id === stepId)!.agent_id!;
    const agent = await api('GET', `/agents/${agentId}`);
    t.is(agent.status, 200, JSON.stringify(agent.body));
    // Deployed by init, so a run right after does not meet an agent still training.
    t.is(agent.body.data.status, 'active');
    return agent.body.data.autonomy_level;
  };
  t.is(await autonomyOf('approve_large'), 'L2');
  t.is(await autonomyOf('issue_small'), 'L3');
});
