// svc fixtures apply: the two example fixtures set a sandbox up whose objects work through the
// REST API (the fixed webhook secret verifies a real delivery); applying again creates nothing
// twice; --dry-run changes nothing; broken files name the entry and field and change nothing.
import test from 'ava';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { verifySignature } from '../../shared/signature.js';
import { ROOT } from '../helpers/daemon.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { sharedDaemon } from '../helpers/setup.js';
import { tempDir } from '../helpers/temp-dir.js';

const d = sharedDaemon(test);
const FIXED_SECRET = 'whsec_supportDeskFixtureSecret0123456789';
let dir: string;
let receiver: Receiver;
let desk: string;

test.before(async () => {
  receiver = await startReceiver();
  // The examples as shipped, with the webhook pointed at this test's receiver.
  dir = tempDir('svc-fixtures-');
  cpSync(join(ROOT, 'fixtures'), dir, { recursive: true });
  desk = join(dir, 'support-desk.yaml');
  writeFileSync(
    desk,
    readFileSync(desk, 'utf8').replace('http://127.0.0.1:4242/webhooks', receiver.url),
  );
});
test.after.always(() => receiver?.close());

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

async function workspaceCount(): Promise<number> {
  return (await d.cli(['workspaces', 'list', '--json'])).json<{ data: unknown[] }>().data.length;
}

test.serial('the support desk applies, and its objects work through the REST API', async (t) => {
  const applied = await d.cli(['fixtures', 'apply', desk, '--json']);
  t.is(applied.code, 0, applied.stderr);
  const result = applied.json();
  t.true(result.plan.every((entry: { action: string }) => entry.action === 'create'));
  const { workspaces, agents, workflows, webhooks } = result.ids;
  const ws = workspaces.acme;
  const key = result.secrets.find((s: { name: string }) => s.name === 'ci').value as string;
  t.regex(key, /^sk_test_/);
  const auth = { key, tenant: ws };

  const support = await d.callJson('GET', `/v1/agents/${agents.support}`, undefined, auth);
  t.is(support.status, 200, support.text);
  t.is(support.body.data.status, 'active', 'deploy: true');
  const docs = await d.callJson('GET', `/v1/agents/${agents.support}/knowledge`, undefined, auth);
  t.is(docs.body.data.length, 1);
  t.is(docs.body.data[0].filename, 'faq.md');

  const refund = await d.callJson('GET', `/v1/workflows/${workflows.refund}`, undefined, auth);
  t.is(refund.body.data.status, 'active');
  const analyst = refund.body.data.steps.find((step: { id: string }) => step.id === 'assess');
  t.is(analyst.agent_id, agents.support, 'template role mapped by reference');
  const triage = await d.callJson('GET', `/v1/workflows/${workflows.triage}`, undefined, auth);
  t.is(triage.body.data.steps[0].agent_id, agents.support, 'reference inside a workflow file');

  const secrets = await d.cli(['secrets', 'list', '--workspace', ws, '--json']);
  t.deepEqual(
    secrets.json().data.map((s: { name: string }) => s.name),
    ['CRM_TOKEN'],
  );

  // A run ends, its event is delivered, and the fixed secret verifies the signature.
  const run = await d.callJson(
    'POST',
    `/v1/workflows/${workflows.refund}/execute`,
    { input: { order_id: 'A-1', amount: 20, reason: 'refund please' }, wait_for_completion: true },
    auth,
  );
  t.true([200, 500].includes(run.status), run.text);
  const [delivery] = await receiver.waitForCount(1);
  t.is(delivery!.header('x-svc-delivery-id')?.startsWith('del_'), true);
  t.true(
    verifySignature(delivery!.rawBody, delivery!.header('x-svc-signature'), FIXED_SECRET).valid,
  );
  const hook = await d.callJson('GET', `/v1/webhooks/${webhooks.ops}`, undefined, auth);
  t.is(hook.status, 200);
});

test.serial(
  'applying again creates nothing twice; --dry-run plans and changes nothing',
  async (t) => {
    const before = await workspaceCount();
    const again = await d.cli(['fixtures', 'apply', desk, '--json']);
    t.is(again.code, 0, again.stderr);
    t.true(again.json().plan.every((entry: { action: string }) => entry.action === 'unchanged'));
    t.deepEqual(again.json().secrets, [], 'no secret shown again: nothing was created');
    t.is(await workspaceCount(), before);
    const ws = again.json().ids.workspaces.acme;
    const { key } = await d.operator();
    const agents = await d.callJson('GET', '/v1/agents?limit=100', undefined, { key, tenant: ws });
    t.is(agents.body.data.length, 3);

    const changed = write(
      'support-desk-renamed.yaml',
      readFileSync(desk, 'utf8').replace('name: Support agent', 'name: Support agent v2'),
    );
    const plan = await d.cli(['fixtures', 'apply', changed, '--dry-run', '--json']);
    t.is(plan.code, 0, plan.stderr);
    const support = plan.json().plan.find((entry: { name: string }) => entry.name === 'support');
    t.like(support, { action: 'update', changes: ['name'] });
    const agentId = support.id;
    const still = await d.callJson('GET', `/v1/agents/${agentId}`, undefined, { key, tenant: ws });
    t.is(still.body.data.name, 'Support agent', 'the dry run changed nothing');

    const applied = await d.cli(['fixtures', 'apply', changed, '--json']);
    t.is(applied.code, 0, applied.stderr);
    const renamed = await d.callJson('GET', `/v1/agents/${agentId}`, undefined, {
      key,
      tenant: ws,
    });
    t.is(renamed.body.data.name, 'Support agent v2');
    t.is(applied.json().ids.agents.support, agentId, 'updated in place');
  },
);

test.serial(
  'applying with a new webhook secret: the next delivery is signed with it',
  async (t) => {
    const replaced = 'whsec_supportDeskReplacedSecret9876543210';
    const file = write(
      'support-desk-new-secret.yaml',
      readFileSync(desk, 'utf8').replace(FIXED_SECRET, replaced),
    );
    const applied = await d.cli(['fixtures', 'apply', file, '--json']);
    t.is(applied.code, 0, applied.stderr);
    const ops = applied.json().plan.find((entry: { name: string }) => entry.name === 'ops');
    t.like(ops, { action: 'update', changes: ['secret'] });

    const { workspaces, workflows } = applied.json().ids;
    const { key } = await d.operator();
    receiver.clear();
    const run = await d.callJson(
      'POST',
      `/v1/workflows/${workflows.refund}/execute`,
      {
        input: { order_id: 'A-2', amount: 20, reason: 'refund please' },
        wait_for_completion: true,
      },
      { key, tenant: workspaces.acme },
    );
    t.true([200, 500].includes(run.status), run.text);
    const [delivery] = await receiver.waitForCount(1);
    const signature = delivery!.header('x-svc-signature');
    t.true(
      verifySignature(delivery!.rawBody, signature, replaced).valid,
      'the new secret verifies',
    );
    t.false(verifySignature(delivery!.rawBody, signature, FIXED_SECRET).valid, 'the old one not');
  },
);

test.serial(
  'the OAuth example: an app with a client secret, and a key for its backend',
  async (t) => {
    const envFile = join(dir, 'oauth.env');
    const applied = await d.cli([
      'fixtures',
      'apply',
      join(dir, 'oauth-app.yaml'),
      '--json',
      '--env-out',
      envFile,
    ]);
    t.is(applied.code, 0, applied.stderr);
    const { ids, secrets } = applied.json();
    t.regex(ids.oauth_apps.portal, /^app_/);
    const clientSecret = secrets.find((s: { field: string }) => s.field === 'client_secret').value;
    const apps = await d.cli(['oauth', 'apps', 'list', '--json']);
    const portal = apps
      .json()
      .data.find((app: { client_id: string }) => app.client_id === ids.oauth_apps.portal);
    t.is(portal.client_secret_hint, `...${clientSecret.slice(-4)}`);
    t.true(
      apps
        .json()
        .data.some(
          (app: { client_id: string; public: boolean }) =>
            app.client_id === ids.oauth_apps.mobile && app.public,
        ),
    );
    const key = secrets.find((s: { name: string }) => s.name === 'portal_backend').value;
    const me = await d.callJson('GET', '/v1/auth/me', undefined, { key });
    t.is(me.status, 200, me.text);
    const env = readFileSync(envFile, 'utf8');
    t.true(env.includes(`SVC_OAUTH_APP_PORTAL_ID=${ids.oauth_apps.portal}`));
    t.true(env.includes(`SVC_KEY_PORTAL_BACKEND_KEY=${key}`));
  },
);

test.serial('broken files name the entry and field and leave the sandbox unchanged', async (t) => {
  write('not-a-document.pdf', 'this is not a PDF at all');
  const cases: [string, string, RegExp][] = [
    [
      'unknown-reference.yaml',
      'workspaces:\n  w: {name: Fresh, tier: free}\nagents:\n  a: {name: A, ontology: retail-v1, workspace: "${workspaces.nope.id}"}\n',
      /agents\.a\.workspace: .*no workspaces\.nope/,
    ],
    [
      'cycle.yaml',
      'workspaces:\n  w: {name: Fresh, tier: free}\nagents:\n  a: {name: A, ontology: retail-v1, description: "${workflows.w.id}"}\nworkflows:\n  w:\n    name: W\n    steps: [{id: s, name: S, type: agent_action, agent_id: "${agents.a.id}"}]\n',
      /agents\.a\.description: the references form a cycle \(agents\.a -> workflows\.w -> agents\.a\)/,
    ],
    [
      'bad-field.yaml',
      'workspaces:\n  w: {name: Fresh, tier: free}\nagents:\n  a: {name: A, ontology: retail-v1, autonomy_level: L9}\n',
      /agents\.a\.autonomy_level: /,
    ],
    [
      'missing-knowledge.yaml',
      'workspaces:\n  w: {name: Fresh, tier: free}\nagents:\n  a: {name: A, ontology: retail-v1, knowledge: [nowhere.md]}\n',
      /agents\.a\.knowledge\[0\]: no file nowhere\.md/,
    ],
    [
      'unsupported-knowledge.yaml',
      'workspaces:\n  w: {name: Fresh, tier: free}\nagents:\n  a: {name: A, ontology: retail-v1, knowledge: [not-a-document.pdf]}\n',
      /agents\.a\.knowledge\[0\]: .*not-a-document\.pdf/,
    ],
  ];
  const before = await workspaceCount();
  for (const [name, text, message] of cases) {
    const result = await d.cli(['fixtures', 'apply', write(name, text), '--json']);
    t.is(result.code, 1, `${name}: ${result.stdout}`);
    t.regex(result.stdout + result.stderr, message, name);
  }
  t.is(await workspaceCount(), before, 'nothing was created');
});

test('svc fixtures schema prints the JSON Schema of the format', async (t) => {
  const result = await d.cli(['fixtures', 'schema']);
  t.is(result.code, 0, result.stderr);
  const schema = JSON.parse(result.stdout);
  t.is(schema.title, 'svc fixture file');
  t.truthy(schema.properties.agents);
  t.truthy(schema.properties.webhooks);
});
