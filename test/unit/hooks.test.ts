// The reactions between modules (daemon/domain/hooks.ts): every listener registered runs, in
// registration order; an 'inside' hook's listener that throws refuses the change that fired it.
import test from 'ava';
import { EventEmitter } from 'node:events';
import { HOOKS, Hooks, type HookName } from '../../daemon/domain/hooks.js';
import { servicesFor } from '../helpers/services.js';

const WEBHOOK = {
  url: 'https://example.com/hook',
  events: ['agent.created' as const],
};

test('two listeners of one hook both run, in the order they were added', (t) => {
  const hooks = new Hooks();
  const heard: string[] = [];
  hooks.add('webhookResumed', (id, at) => heard.push(`first ${id} ${at}`));
  const removeSecond = hooks.add('webhookResumed', (id) => heard.push(`second ${id}`));
  hooks.run('webhookResumed', 'webhook_a', 5);
  t.deepEqual(heard, ['first webhook_a 5', 'second webhook_a']);

  removeSecond();
  hooks.run('webhookResumed', 'webhook_b', 6);
  t.deepEqual(heard.slice(2), ['first webhook_b 6'], 'a removed listener hears nothing more');
  t.true(hooks.has('webhookResumed'));
  t.false(hooks.has('stepRetrying'));
});

test('a listener that throws stops the hook there and reaches the caller', (t) => {
  const hooks = new Hooks();
  const heard: string[] = [];
  hooks.add('workflowDeleted', () => {
    throw new Error('refused');
  });
  hooks.add('workflowDeleted', (workflow) => heard.push(workflow.id));
  t.throws(() => hooks.run('workflowDeleted', { id: 'workflow_a', workspace_id: 'ws' }), {
    message: 'refused',
  });
  t.deepEqual(heard, []);
});

test('every hook of the list says when it runs and who fires and hears it', (t) => {
  const names = Object.keys(HOOKS) as HookName[];
  t.true(names.length >= 14);
  for (const name of names) {
    t.true(['inside', 'after', 'awaited'].includes(HOOKS[name].when), name);
    t.true(HOOKS[name].doc.length > 40, name);
  }
});

test("webhookResumed: a second listener beside the delivery module's, and both run", (t) => {
  const svc = servicesFor(t);
  const workspaceId = svc.workspaces.defaultWorkspaceId;
  const webhook = svc.webhooks.create(workspaceId, WEBHOOK);
  // A pending delivery (the timers do not run here), held once the webhook is paused.
  svc.events.publish(workspaceId, 'agent.created', { id: 'agent_x' });
  svc.webhooks.update(workspaceId, webhook.id, { status: 'paused' });
  const timersBefore = svc.timers.pending();

  const heard: [string, string][] = [];
  svc.hooks.add('webhookResumed', (id) => heard.push(['first', id]));
  svc.hooks.add('webhookResumed', (id) => heard.push(['second', id]));
  svc.webhooks.update(workspaceId, webhook.id, { status: 'active' });

  t.deepEqual(heard, [
    ['first', webhook.id],
    ['second', webhook.id],
  ]);
  t.is(
    svc.timers.pending(),
    timersBefore + 1,
    "the delivery module's listener scheduled the held one again",
  );
});

test('an inside listener that throws refuses the change: the webhook stays paused', (t) => {
  const svc = servicesFor(t);
  const workspaceId = svc.workspaces.defaultWorkspaceId;
  const webhook = svc.webhooks.create(workspaceId, WEBHOOK);
  svc.webhooks.update(workspaceId, webhook.id, { status: 'paused' });
  svc.hooks.add('webhookResumed', () => {
    throw new Error('not now');
  });
  t.throws(() => svc.webhooks.update(workspaceId, webhook.id, { status: 'active' }), {
    message: 'not now',
  });
  t.is(svc.webhooks.row(workspaceId, webhook.id).status, 'paused');
});

test('an awaited hook runs its listeners one after the other, and its caller waits for all', async (t) => {
  const hooks = new Hooks();
  const heard: string[] = [];
  let releaseFirst!: () => void;
  const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
  hooks.add('clockMoved', async () => {
    heard.push('first starts');
    await firstHeld;
    heard.push('first ends');
  });
  hooks.add('clockMoved', () => void heard.push('second'));
  let done = false;
  const running = hooks.runAwaited('clockMoved').then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  t.deepEqual(heard, ['first starts'], 'the second waits for the first');
  t.false(done);
  releaseFirst();
  await running;
  t.deepEqual(heard, ['first starts', 'first ends', 'second']);
});

test('no service is an event emitter: what others hear of them goes through the hooks', (t) => {
  const svc = servicesFor(t);
  const emitters = Object.entries(svc)
    .filter(([, service]) => service instanceof EventEmitter)
    .map(([name]) => name);
  t.deepEqual(emitters, []);
});

test('credentialsChanged: a revoked key is refused at once, its cached credential dropped', (t) => {
  const svc = servicesFor(t);
  const { key, record } = svc.keys.create({ name: 'script', scopes: ['agents:read'] });
  t.is(svc.credentials.resolve(key).id, record.id, 'resolved, and now cached');
  let told = 0;
  svc.hooks.add('credentialsChanged', () => void (told += 1));
  svc.keys.revoke(record.id);
  t.is(told, 1);
  t.throws(() => svc.credentials.resolve(key), { message: /revoked/ });
});

test('clockMoved: a clock advance fires what fell due and answers once its listeners are done', async (t) => {
  const svc = servicesFor(t);
  // Frozen: a ticking clock moves on between the hook's reading and advance's answer, by as much
  // as the machine is slow (failed so under load, issue 52); only the advance may move it here.
  svc.clockService.freeze();
  const heard: string[] = [];
  svc.hooks.add('clockMoved', async () => {
    await new Promise((resolve) => setImmediate(resolve));
    heard.push(svc.clock.iso());
  });
  const state = await svc.clockService.advance(3_600_000);
  t.deepEqual(heard, [state.now], 'heard once, at the new time, before advance answered');
});
