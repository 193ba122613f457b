// Every template in templates/ is a valid workflow: its shape, its roles, its trigger and its
// step graph pass the same checks as POST /v1/workflows, once its roles are given agents.
import test from 'ava';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTemplates } from '../../daemon/templates/template.loader.js';
import { validateSteps } from '../../daemon/workflows/graph.js';
import { parseTrigger } from '../../daemon/triggers/trigger-rules.js';
import { WorkflowCreateBody } from '../../shared/schemas/workflows.js';
import { unmappedRoles, workflowFromTemplate } from '../../shared/templates.js';

const templates = loadTemplates();

test('at least eight templates across several industries, each with derived steps_count', (t) => {
  t.true(templates.length >= 8);
  t.true(new Set(templates.map((template) => template.industry)).size >= 6);
  for (const template of templates) {
    t.regex(template.id, /^tmpl_/);
    t.is(template.steps_count, template.steps.length);
    t.true(template.avg_duration_seconds > 0, template.id);
  }
  const triggers = new Set<string>(templates.map((template) => template.trigger.type));
  for (const type of ['webhook', 'schedule', 'event', 'manual']) t.true(triggers.has(type), type);
});

for (const template of templates) {
  test(`template ${template.id} is a valid workflow once its roles have agents`, (t) => {
    const agents = Object.fromEntries(
      template.roles.map((role) => [role.name, `agt_${role.name}`]),
    );
    t.deepEqual(unmappedRoles(template, agents), []);
    const body = WorkflowCreateBody.parse(
      workflowFromTemplate(template, { name: template.name, agents }),
    );
    const known = new Set(Object.values(agents));
    t.notThrows(() => validateSteps(body.steps, { agentExists: (id) => known.has(id) }));
    t.notThrows(() => parseTrigger(body.trigger));
    // Every agent step got the agent of its role.
    for (const step of template.steps.filter((s) => s.type === 'agent_action')) {
      const made = body.steps.find((s) => s.id === step.id)!;
      t.is(made.agent_id, agents[step.role!]);
    }
  });
}

test('a template whose step names an unknown role is refused at load', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-templates-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'broken.json'),
    JSON.stringify({
      id: 'tmpl_broken',
      name: 'Broken',
      description: 'x',
      industry: 'all',
      avg_duration_seconds: 1,
      roles: [{ name: 'worker', description: 'x', agent_type: 'custom' }],
      steps: [{ id: 'a', name: 'A', type: 'agent_action', role: 'ghost', config: { action: 'x' } }],
    }),
  );
  t.throws(() => loadTemplates(dir), { message: /steps\[0\]\.role/ });
});

test('customizations lay settings and step config over the template', (t) => {
  const incident = templates.find((template) => template.id === 'tmpl_incident_response')!;
  const body = workflowFromTemplate(incident, {
    name: 'Pager',
    agents: { on_call: 'agt_1', follow_up: 'agt_2' },
    settings: { retry_policy: { max_attempts: 5 } },
    steps: { page: { url: 'http://127.0.0.1:9999/page' } },
  });
  t.deepEqual(body.settings.retry_policy, { max_attempts: 5, backoff_multiplier: 2 });
  const page = body.steps.find((step) => step.id === 'page') as {
    config: { url: string; method: string };
  };
  t.is(page.config.url, 'http://127.0.0.1:9999/page');
  t.is(page.config.method, 'POST');
  // The template itself is left as it was.
  t.is(
    (incident.steps[1]!.config as { url: string }).url,
    'https://pager.example.com/v1/incidents',
  );
});
