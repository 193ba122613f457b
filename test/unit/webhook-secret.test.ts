import test from 'ava';
import { servicesFor } from '../helpers/services.js';

test('a webhook signs with its current secret: opened once, and anew once a fixture replaces it', (t) => {
  const svc = servicesFor(t);
  const workspaceId = svc.workspaces.defaultWorkspaceId;
  const created = svc.webhooks.create(workspaceId, {
    url: 'https://hooks.example.com/svc',
    events: ['agent.created'],
  });
  const row = () => svc.webhooks.row(workspaceId, created.id);
  const shown = created.secret ?? '';
  t.true(shown.startsWith('whsec_'), 'the secret is shown once, at creation');

  t.is(svc.webhooks.signingSecret(row()), shown);
  t.is(svc.webhooks.signingSecret(row()), shown, 'the same again, from the cache');

  svc.webhooks.setSecret(workspaceId, created.id, 'whsec_replaced');
  t.is(svc.webhooks.signingSecret(row()), 'whsec_replaced', 'the new secret, not the cached one');
});
