// Secrets at rest (issue 10, item 8): webhook signing secrets and integration credentials are
// stored sealed (AES-256-GCM, key in <data dir>/secret.key, mode 0600), so the database files
// (svc.db and its WAL) hold no plaintext secret; deliveries still verify with the secret shown
// at create. A database written before (plaintext rows) is sealed by a migration at start.
import test, { type ExecutionContext } from 'ava';
import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { verifySignature } from '../../shared/signature.js';
import { runCli, startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { downgradeTo } from '../helpers/schema.js';
import { dataDirBytes } from '../helpers/data-dir.js';
import { startReceiver } from '../helpers/receiver.js';
import { MIGRATIONS } from '../../daemon/store/migrations.js';

async function auth(d: TestDaemon) {
  const operator = await d.operator();
  return { key: operator.key, tenant: operator.workspaceId };
}

/** A daemon of the test's own, its operator's auth, and a webhook on agent.created to a receiver. */
async function daemonWithHook(t: ExecutionContext) {
  const receiver = await startReceiver(t);
  const d = await startDaemon();
  t.teardown(() => d.stop());
  const a = await auth(d);
  const hook = await d.callJson(
    'POST',
    '/v1/webhooks',
    { url: receiver.url, events: ['agent.created'] },
    a,
  );
  return { receiver, d, a, hook };
}

test('the database holds no plaintext webhook secret or credentials; deliveries verify with the secret from create', async (t) => {
  const { receiver, d, a, hook } = await daemonWithHook(t);
  t.is(hook.status, 201, hook.text);
  const secret = hook.body.data.secret as string;
  t.regex(secret, /^whsec_/);
  const integration = await d.callJson(
    'POST',
    '/v1/integrations',
    { provider: 'slack', credentials: { bot_token: 'xoxb-plaintext-credential-4242' } },
    a,
  );
  t.is(integration.status, 201, integration.text);
  t.true(integration.body.data.has_credentials);

  const triggered = await d.cli(['events', 'trigger', 'agent.created', '--json']);
  t.is(triggered.code, 0, triggered.stderr);
  const [delivery] = await receiver.waitForCount(1);
  const check = verifySignature(delivery!.rawBody, delivery!.header('x-svc-signature'), secret);
  t.true(check.valid, JSON.stringify(check));

  const stored = dataDirBytes(d.dataDir);
  t.true(stored.length > 0);
  t.false(stored.includes(secret.slice(6)), 'the signing secret is in the data dir');
  t.false(stored.includes('xoxb-plaintext-credential-4242'), 'the credential is in the data dir');
  t.is(statSync(join(d.dataDir, 'secret.key')).mode & 0o777, 0o600);
  const listed = await d.callJson('GET', `/v1/webhooks/${hook.body.data.id}`, undefined, a);
  t.false(listed.text.includes(secret), 'the secret is shown again');
});

test('a database with plaintext secrets (written before encryption) is sealed at start; deliveries still verify', async (t) => {
  const { receiver, d, a, hook } = await daemonWithHook(t);
  const integration = await d.callJson(
    'POST',
    '/v1/integrations',
    { provider: 'github', credentials: { token: 'placeholder' } },
    a,
  );
  t.is(integration.status, 201, integration.text);
  const stopped = await runCli(['daemon', 'stop'], { env: d.env });
  t.is(stopped.code, 0, stopped.stderr);

  // What an older svc stored: plaintext values, at the schema version before the sealing one.
  const plainSecret = 'whsec_OlderPlaintextSecretValue0123456789';
  const plainCredentials = JSON.stringify({ token: 'ghp_older_plaintext_token_777' });
  const db = new Database(join(d.dataDir, 'svc.db'));
  db.prepare('UPDATE webhooks SET secret = ? WHERE id = ?').run(plainSecret, hook.body.data.id);
  db.prepare('UPDATE integrations SET credentials = ? WHERE id = ?').run(
    plainCredentials,
    integration.body.data.id,
  );
  const sealing = MIGRATIONS.find((migration) => migration.name === 'secrets at rest')!;
  downgradeTo(db, sealing.version - 1);
  db.close();
  t.true(
    dataDirBytes(d.dataDir).includes('ghp_older_plaintext_token_777'),
    'the setup wrote plaintext',
  );

  const restarted = await runCli(['daemon', 'start', '--port', '0', '--json'], { env: d.env });
  t.is(restarted.code, 0, restarted.stderr);
  const stored = dataDirBytes(d.dataDir);
  t.false(
    stored.includes('OlderPlaintextSecretValue0123456789'),
    'the old secret is still readable',
  );
  t.false(stored.includes('ghp_older_plaintext_token_777'), 'the old credential is still readable');

  const triggered = await d.cli(['events', 'trigger', 'agent.created', '--json']);
  t.is(triggered.code, 0, triggered.stderr);
  const [delivery] = await receiver.waitForCount(1);
  t.true(
    verifySignature(delivery!.rawBody, delivery!.header('x-svc-signature'), plainSecret).valid,
  );
});
