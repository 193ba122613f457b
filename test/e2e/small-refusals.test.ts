// The small refusals of issue 51, row 8, as a user reaches them: a blank name says it is blank
// (REST and the CLI), the dashboard's Trigger on another workspace's workflow is 404, secret names
// every object has (`{{secrets.constructor}}`, `{{secrets.__proto__}}`) are refused when the
// workflow is written and by `svc secrets set`, and `credentials: {}` is stored as none.
// (`svc state export` into the data dir: state-export-overwrite.test.ts.) One daemon for the file.
import test from 'ava';
import { assertExit } from '../helpers/daemon.js';
import { sharedDaemon } from '../helpers/setup.js';
import { apiFor, createWorkflow, type Api } from '../helpers/workflows.js';

const d = sharedDaemon(test);
let ws: string;
let api: Api;

test.before(async () => {
  ws = await d.createWorkspace('small-refusals');
  api = await apiFor(d, ws);
});

const condition = (name = 'Check') => ({
  id: 'check',
  name,
  type: 'condition',
  config: { condition: 'true', if_true: null, if_false: null },
});

test('a blank or spaces-only name reads "is blank", wherever names are checked', async (t) => {
  for (const name of ['', '   ', '\t \n']) {
    const agent = await api('POST', '/agents', {
      name,
      ontology: 'retail-v1',
      type: 'customer-service',
      autonomy_level: 'L3',
    });
    t.is(agent.status, 400, JSON.stringify(agent.body));
    t.like(agent.body.error, { code: 'invalid_parameter', param: 'name' });
    t.is(
      agent.body.error.message,
      "The field 'name' is blank: it takes at least 1 character other than spaces.",
    );
    // Workflow and step names were not trimmed at all: a name of spaces was stored.
    const workflow = await api('POST', '/workflows', { name, steps: [condition()] });
    t.is(workflow.status, 400, JSON.stringify(workflow.body));
    t.regex(workflow.body.error.message, /^The field 'name' is blank/);
    const step = await api('POST', '/workflows', { name: 'Fine', steps: [condition(name)] });
    t.is(step.status, 400, JSON.stringify(step.body));
    t.regex(step.body.error.message, /^The field 'steps\.0\.name' is blank/);
  }
  // The CLI (control channel) says it the same way.
  const cli = await d.cli(['workspaces', 'create', '--name', '   ', '--tier', 'free', '--json']);
  assertExit(t, cli, 1);
  t.is(
    cli.json().error.message,
    "The field 'name' is blank: it takes at least 1 character other than spaces.",
  );
  // A name with spaces around it is stored trimmed.
  const spaced = await api('POST', '/workflows', { name: '  Refunds  ', steps: [condition()] });
  t.is(spaced.status, 201, JSON.stringify(spaced.body));
  t.is(spaced.body.data.name, 'Refunds');
});

test("the dashboard's Trigger on another workspace's workflow is 404, whatever its trigger", async (t) => {
  const other = await d.createWorkspace('small-refusals-other');
  const otherApi = await apiFor(d, other);
  const hooked = await createWorkflow(otherApi, {
    name: 'Hooked elsewhere',
    status: 'active',
    trigger: { type: 'webhook', config: { path: 'elsewhere' } },
    steps: [condition()],
  });
  const manual = await createWorkflow(otherApi, { name: 'Manual elsewhere', steps: [condition()] });
  const link = await d.cli(['dashboard', '--no-open', '--json']);
  assertExit(t, link, 0);
  const login = await fetch(link.json().login_url, { redirect: 'manual' });
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const session = await fetch(`${d.url}/ui/api/session`, { headers: { cookie } });
  const csrf = ((await session.json()) as { csrf_token: string }).csrf_token;
  const trigger = async (workflowId: string, workspace: string) => {
    const response = await fetch(
      `${d.url}/ui/api/workflows/${workflowId}/trigger?workspace=${workspace}`,
      {
        method: 'POST',
        headers: {
          cookie,
          origin: d.url,
          'x-csrf-token': csrf,
          'content-type': 'application/json',
        },
        body: '{}',
      },
    );
    return { status: response.status, body: (await response.json()) as any };
  };
  for (const workflowId of [hooked, manual]) {
    const answer = await trigger(workflowId, ws);
    t.is(answer.status, 404, JSON.stringify(answer.body));
    t.is(answer.body.error.code, 'workflow_not_found');
    t.notRegex(answer.body.error.message, /webhook trigger/);
  }
  // In its own workspace the hook runs, and a manual one says it has no webhook trigger.
  const ran = await trigger(hooked, other);
  t.is(ran.status, 200, JSON.stringify(ran.body));
  t.regex(ran.body.execution_id, /^wex_/);
  const own = await trigger(manual, other);
  t.is(own.status, 400, JSON.stringify(own.body));
  t.regex(own.body.error.message, /has no webhook trigger/);
});

test('secrets.constructor and secrets.__proto__ are refused when written, not at run time', async (t) => {
  for (const name of ['constructor', '__proto__', 'toString']) {
    const created = await api('POST', '/workflows', {
      name: `Uses ${name}`,
      steps: [
        {
          id: 'call',
          name: 'Call',
          type: 'webhook',
          config: {
            url: 'http://127.0.0.1:9/hook',
            method: 'POST',
            headers: { authorization: `Bearer {{secrets.${name}}}` },
          },
        },
      ],
    });
    t.is(created.status, 400, JSON.stringify(created.body));
    t.is(created.body.error.code, 'invalid_step_config');
    t.true(
      created.body.error.message.includes(`'${name}' cannot name a secret`),
      created.body.error.message,
    );
    const set = await d.cli(['secrets', 'set', name, 'value', '--workspace', ws, '--json']);
    assertExit(t, set, 1);
    t.regex(set.json().error.message, /cannot name a secret/);
  }
  // An ordinary name is written, and set.
  const fine = await api('POST', '/workflows', {
    name: 'Uses a key',
    steps: [
      {
        id: 'call',
        name: 'Call',
        type: 'webhook',
        config: {
          url: 'http://127.0.0.1:9/hook',
          method: 'POST',
          headers: { authorization: 'Bearer {{secrets.API_KEY}}' },
        },
      },
    ],
  });
  t.is(fine.status, 201, JSON.stringify(fine.body));
  assertExit(t, await d.cli(['secrets', 'set', 'API_KEY', 'value', '--workspace', ws]), 0);
});

test('credentials: {} is stored as none (has_credentials false)', async (t) => {
  const empty = await api('POST', '/integrations', { provider: 'slack', credentials: {} });
  t.is(empty.status, 201, JSON.stringify(empty.body));
  t.false(empty.body.data.has_credentials);
  const shown = await api('GET', `/integrations/${empty.body.data.id}`);
  t.false(shown.body.data.has_credentials);
  const some = await api('POST', '/integrations', {
    provider: 'zendesk',
    credentials: { token: 't0k' },
  });
  t.is(some.status, 201, JSON.stringify(some.body));
  t.true(some.body.data.has_credentials);
});
