// A webhook trigger's secret with the real daemon (issues 8 and 10): it is never returned (create,
// GET, list, workflow.* events, from-template show has_secret: true), no file of the data dir
// holds it in plain text, and a PATCH that leaves it out keeps it: a correctly signed hook is
// still accepted and a wrongly signed one refused; secret: null removes it.
import test from 'ava';
import { dataDirBytes } from '../helpers/data-dir.js';
import { signatureHeader } from '../../shared/signature.js';
import { sharedDaemon } from '../helpers/setup.js';
import {
  activeAgent,
  allExecutions,
  answerStep,
  apiFor,
  createWorkflow,
  hookPoster,
} from '../helpers/workflows.js';

const d = sharedDaemon(test);

test('the secret is never returned nor stored in plain text; a PATCH without it keeps it', async (t) => {
  const ws = await d.createWorkspace('hook-secret');
  const api = await apiFor(d, ws);
  const agent = await activeAgent(api);
  const secret = 'whsec_hook_plain_secret_4711';
  const created = await api('POST', '/workflows', {
    name: 'Signed orders',
    status: 'active',
    trigger: { type: 'webhook', config: { path: 'orders', secret } },
    steps: answerStep(agent.id),
  });
  t.is(created.status, 201, JSON.stringify(created.body));
  const id = created.body.data.id as string;
  t.deepEqual(created.body.data.trigger, {
    type: 'webhook',
    config: { path: 'orders', has_secret: true },
  });

  // A PATCH of the name and of the trigger's path alone, without the secret: it is kept.
  const renamed = await api('PATCH', `/workflows/${id}`, {
    name: 'Signed orders v2',
    trigger: { type: 'webhook', config: { path: 'orders-v2' } },
  });
  t.is(renamed.status, 200, JSON.stringify(renamed.body));
  t.deepEqual(renamed.body.data.trigger.config, { path: 'orders-v2', has_secret: true });

  const body = JSON.stringify({ order: 1 });
  const post = hookPoster(d, ws, 'orders-v2', body);
  const wrong = await post({ 'x-svc-signature': signatureHeader('whsec_not_the_secret', body) });
  t.is(wrong.status, 401);
  t.is((await allExecutions(api, id)).length, 0, 'a wrongly signed hook started a run');
  const unsigned = await post({});
  t.is(unsigned.status, 401);
  const signed = await post({ 'x-svc-signature': signatureHeader(secret, body) });
  t.is(signed.status, 202, await signed.clone().text());
  t.regex(((await signed.json()) as any).data.execution_id, /^wex_/);

  // Nowhere to be read back: GET, list, the workflow.* events, the CLI.
  const got = await api('GET', `/workflows/${id}`);
  t.is(got.body.data.trigger.config.has_secret, true);
  const listed = await api('GET', '/workflows');
  const events = await api('GET', '/events?limit=100');
  const workflowEvents = (events.body.data as any[]).filter((e) => e.type.startsWith('workflow.'));
  t.true(workflowEvents.length >= 2);
  const shown = await d.cli(['workflows', 'get', id, '--json', '--workspace', ws]);
  t.is(shown.code, 0, shown.stderr);
  t.is(shown.json().trigger.config.has_secret, true);
  const triggerUrl = await d.cli(['workflows', 'trigger-url', id, '--json', '--workspace', ws]);
  t.is(triggerUrl.code, 0, triggerUrl.stderr);
  t.true(triggerUrl.json().signed);
  for (const [what, text] of [
    ['create', JSON.stringify(created.body)],
    ['PATCH', JSON.stringify(renamed.body)],
    ['GET', JSON.stringify(got.body)],
    ['list', JSON.stringify(listed.body)],
    ['events', JSON.stringify(events.body)],
    ['svc workflows get', shown.stdout + shown.stderr],
  ] as const) {
    t.false(text.includes(secret), `${what} shows the secret`);
  }

  // No file of the data dir (svc.db, its WAL, logs) holds it in plain text.
  const stored = dataDirBytes(d.dataDir);
  t.true(stored.length > 0);
  t.false(stored.includes(secret), 'the trigger secret is in the data dir');
  t.false(stored.includes('hook_plain_secret_4711'));

  // A new secret replaces it; null removes it.
  const replaced = await api('PATCH', `/workflows/${id}`, {
    trigger: { type: 'webhook', config: { path: 'orders-v2', secret: 'whsec_second_secret_99' } },
  });
  t.is(replaced.status, 200, JSON.stringify(replaced.body));
  t.is((await post({ 'x-svc-signature': signatureHeader(secret, body) })).status, 401);
  t.is(
    (await post({ 'x-svc-signature': signatureHeader('whsec_second_secret_99', body) })).status,
    202,
  );
  const removed = await api('PATCH', `/workflows/${id}`, {
    trigger: { type: 'webhook', config: { path: 'orders-v2', secret: null } },
  });
  t.is(removed.status, 200, JSON.stringify(removed.body));
  t.deepEqual(removed.body.data.trigger.config, { path: 'orders-v2' });
  t.is((await post({})).status, 202);
});

test('a status change keeps the secret, and from-template never shows it', async (t) => {
  const ws = await d.createWorkspace('hook-secret-template');
  const api = await apiFor(d, ws);
  const secret = 'whsec_template_plain_secret_31';
  const moderator = await activeAgent(api, { type: 'custom' });
  const reviewer = await activeAgent(api, { type: 'custom' });
  const made = await api('POST', '/workflows/from-template', {
    template_id: 'tmpl_content_moderation',
    name: 'Moderation',
    customizations: {
      agents: { moderator: moderator.id, reviewer: reviewer.id },
      trigger: { type: 'webhook', config: { path: 'posts', secret } },
    },
  });
  t.is(made.status, 201, JSON.stringify(made.body));
  t.false(JSON.stringify(made.body).includes(secret));
  t.deepEqual(made.body.data.trigger.config, { path: 'posts', has_secret: true });
  const id = made.body.data.id as string;

  const activated = await api('PATCH', `/workflows/${id}`, { status: 'active' });
  t.is(activated.status, 200, JSON.stringify(activated.body));
  t.is(activated.body.data.trigger.config.has_secret, true);
  const body = JSON.stringify({ text: 'hello', author_id: 'u1' });
  const postTo = hookPoster(d, ws, 'posts', body);
  const post = (signingSecret: string) =>
    postTo({ 'x-svc-signature': signatureHeader(signingSecret, body) });
  t.is((await post('whsec_wrong_template_secret')).status, 401);
  t.is((await post(secret)).status, 202);
  t.false(dataDirBytes(d.dataDir).includes(secret), 'the trigger secret is in the data dir');
  // A trigger read back from GET can be sent again as is: has_secret is ignored, the secret kept.
  const roundTrip = await api('PATCH', `/workflows/${id}`, {
    trigger: activated.body.data.trigger,
  });
  t.is(roundTrip.status, 200, JSON.stringify(roundTrip.body));
  // Signed anew (another t): a copy of the request accepted above would be 409 webhook_replayed.
  const resigned = signatureHeader(secret, body, Math.floor(Date.now() / 1000) + 1);
  t.is((await postTo({ 'x-svc-signature': resigned })).status, 202);
  t.is((await post('whsec_wrong_template_secret')).status, 401);
});

test('a webhook trigger without a secret shows no has_secret', async (t) => {
  const ws = await d.createWorkspace('hook-no-secret');
  const api = await apiFor(d, ws);
  const agent = await activeAgent(api);
  const id = await createWorkflow(api, {
    name: 'Open intake',
    trigger: { type: 'webhook', config: { path: 'open' } },
    steps: answerStep(agent.id),
  });
  const got = await api('GET', `/workflows/${id}`);
  t.deepEqual(got.body.data.trigger, { type: 'webhook', config: { path: 'open' } });
});
