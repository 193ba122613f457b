// API keys and credentials through the real services (buildServices) on a temp data dir:
// hashing, revocation, rotation with a grace period, environments, the operator credential.
import test from 'ava';
import type { Services } from '../../daemon/app/services.js';
import { ApiError } from '../../daemon/domain/errors.js';
import { DEFAULT_ROTATION_GRACE_MS } from '../../daemon/keys/key.service.js';
import { hashKey } from '../../daemon/keys/key-material.js';
import { servicesFor } from '../helpers/services.js';

const HOUR = 3_600_000;

function invalidToken(t: import('ava').ExecutionContext, svc: Services, key: string): ApiError {
  const error = t.throws(() => svc.credentials.resolve(key));
  t.true(error instanceof ApiError, String(error));
  t.is((error as ApiError).code, 'invalid_token');
  t.is((error as ApiError).status, 401);
  return error as ApiError;
}

test('a created key resolves to its credential', (t) => {
  const svc = servicesFor(t);
  const { key, record } = svc.keys.create({ name: 'ci', scopes: ['agents:read', 'webhooks:read'] });
  t.regex(key, /^sk_test_[0-9A-Za-z]{32,}$/);
  t.regex(record.id, /^key_/);
  t.is(record.workspace_id, svc.workspaces.defaultWorkspaceId);
  t.is(record.hint, key.slice(-4));
  t.is(record.expires_at, null);
  const credential = svc.credentials.resolve(key);
  t.is(credential.type, 'api_key');
  t.is(credential.id, record.id);
  t.is(credential.workspaceId, svc.workspaces.defaultWorkspaceId);
  t.is(credential.userId, svc.workspaces.operatorUser.id);
  t.deepEqual([...credential.scopes].sort(), ['agents:read', 'webhooks:read']);
  t.is(credential.environment, 'sandbox');
  t.false(credential.scopes.has('admin'));
});

test('keys are made for the named workspace; an unknown one is refused', (t) => {
  const svc = servicesFor(t);
  const workspace = svc.workspaces.create('Team', 'free');
  const { key, record } = svc.keys.create({
    name: 'w',
    scopes: ['agents:read'],
    workspaceId: workspace.id,
  });
  t.is(record.workspace_id, workspace.id);
  t.is(svc.credentials.resolve(key).workspaceId, workspace.id);
  const error = t.throws(() =>
    svc.keys.create({ name: 'x', scopes: ['agents:read'], workspaceId: 'ws_nope' }),
  );
  t.is((error as ApiError).code, 'not_found');
  const noScopes = t.throws(() => svc.keys.create({ name: 'x', scopes: [] }));
  t.is((noScopes as ApiError).code, 'missing_required_field');
});

test('only the hash of a key is stored', (t) => {
  const svc = servicesFor(t);
  const { key, record } = svc.keys.create({ name: 'secret', scopes: ['admin'] });
  const operator = svc.keys.operatorCredential();
  const rows = svc.db.prepare('SELECT * FROM api_keys').all() as Record<string, unknown>[];
  t.true(rows.length >= 2);
  for (const row of rows) {
    for (const value of Object.values(row)) {
      if (typeof value !== 'string') continue;
      t.false(value.includes(key), 'no column holds the key');
      t.false(value.includes(operator), 'no column holds the operator key');
      t.false(value.includes(key.slice(8, 24)), 'nor a large part of it');
    }
  }
  const row = rows.find((r) => r.id === record.id)!;
  t.is(row.hash, hashKey(key));
  t.not(row.hash, key);
  // Nothing else in the database file holds it either (e.g. settings).
  const settings = svc.db.prepare('SELECT value FROM settings').all() as { value: string }[];
  t.false(settings.some((s) => s.value.includes(key) || s.value.includes(operator)));
});

test('unknown and malformed tokens are invalid_token', (t) => {
  const svc = servicesFor(t);
  invalidToken(t, svc, 'sk_test_' + 'A'.repeat(40));
  invalidToken(t, svc, 'not-a-key');
  invalidToken(t, svc, '');
  const { key } = svc.keys.create({ name: 'k', scopes: ['agents:read'] });
  invalidToken(t, svc, key.slice(0, -1) + (key.endsWith('a') ? 'b' : 'a'));
});

test('a revoked key is invalid_token at once', (t) => {
  const svc = servicesFor(t);
  const { key, record } = svc.keys.create({ name: 'k', scopes: ['agents:read'] });
  t.is(svc.credentials.resolve(key).id, record.id, 'cached while valid');
  const revoked = svc.keys.revoke(record.id);
  t.truthy(revoked.revoked_at);
  const error = invalidToken(t, svc, key);
  t.regex(error.message, /revoked/);
  t.is(error.extras.expires_at, undefined);
  const again = t.throws(() => svc.keys.revoke('key_unknown'));
  t.is((again as ApiError).code, 'not_found');
  const rotate = t.throws(() => svc.keys.rotate(record.id));
  t.is((rotate as ApiError).code, 'conflict', 'a revoked key cannot be rotated');
});

test('an expiring key works until its expiry on the daemon clock, then carries expires_at', (t) => {
  const svc = servicesFor(t);
  const { key, record } = svc.keys.create({
    name: 'short',
    scopes: ['agents:read'],
    expiresInMs: 2 * HOUR,
  });
  t.is(record.expires_at! - record.created_at, 2 * HOUR);
  t.truthy(svc.credentials.resolve(key));
  svc.clock.setOffset(HOUR);
  t.truthy(svc.credentials.resolve(key));
  svc.clock.setOffset(2 * HOUR + 1000);
  const error = invalidToken(t, svc, key);
  t.is(error.extras.expires_at, new Date(record.expires_at!).toISOString());
  t.regex(error.message, /expired/);
});

test('rotation: the old key stays valid for the grace period, then expires', (t) => {
  const svc = servicesFor(t);
  const { key: oldKey, record: old } = svc.keys.create({
    name: 'rotating',
    scopes: ['webhooks:read', 'agents:write'],
  });
  const { key: newKey, record, previous } = svc.keys.rotate(old.id);
  t.not(newKey, oldKey);
  t.not(record.id, old.id);
  t.is(record.name, 'rotating');
  t.deepEqual(record.scopes, old.scopes);
  t.is(record.workspace_id, old.workspace_id);
  t.is(previous.rotated_to, record.id);
  t.true(previous.expires_at! - svc.clock.now() <= DEFAULT_ROTATION_GRACE_MS);
  t.true(previous.expires_at! - svc.clock.now() > DEFAULT_ROTATION_GRACE_MS - 60_000);
  t.is(DEFAULT_ROTATION_GRACE_MS, 24 * HOUR);

  // Both work during the grace period.
  t.is(svc.credentials.resolve(oldKey).id, old.id);
  t.is(svc.credentials.resolve(newKey).id, record.id);
  svc.clock.setOffset(23 * HOUR);
  t.is(svc.credentials.resolve(oldKey).id, old.id);

  // After it, the old one is expired (with expires_at), the new one still works.
  svc.clock.setOffset(24 * HOUR + 1000);
  const error = invalidToken(t, svc, oldKey);
  t.is(error.extras.expires_at, new Date(previous.expires_at!).toISOString());
  t.true(error.message.includes(record.id), 'names the successor');
  t.is(svc.credentials.resolve(newKey).id, record.id);
});

test('rotation with a short grace period, and of an expiring key', (t) => {
  const svc = servicesFor(t);
  const { key, record } = svc.keys.create({
    name: 'exp',
    scopes: ['agents:read'],
    expiresInMs: 10 * HOUR,
  });
  const rotated = svc.keys.rotate(record.id, HOUR);
  // The successor gets the same lifetime; the old key's grace ends at the earlier time.
  t.is(rotated.record.expires_at! - rotated.record.created_at, 10 * HOUR);
  t.true(rotated.previous.expires_at! <= svc.clock.now() + HOUR);
  svc.clock.setOffset(HOUR + 1000);
  invalidToken(t, svc, key);
  t.truthy(svc.credentials.resolve(rotated.key));
});

test('a key of the other environment is invalid_token naming the environment', (t) => {
  const sandbox = servicesFor(t, 'sandbox');
  const production = servicesFor(t, 'production');
  const live = production.keys.create({ name: 'live', scopes: ['admin'] });
  t.regex(live.key, /^sk_live_/);
  t.is(production.credentials.resolve(live.key).environment, 'production');

  const onSandbox = invalidToken(t, sandbox, live.key);
  t.regex(onSandbox.message, /production/);
  t.regex(onSandbox.message, /sandbox/);
  t.regex(onSandbox.message, /sk_test_/);

  const test_ = sandbox.keys.create({ name: 'test', scopes: ['admin'] });
  const onProduction = invalidToken(t, production, test_.key);
  t.regex(onProduction.message, /production/);
  t.regex(onProduction.message, /sandbox/);

  // Even a made-up live key gets the environment message, not "unknown".
  const madeUp = invalidToken(t, sandbox, 'sk_live_' + 'b'.repeat(40));
  t.regex(madeUp.message, /production/);
});

test('the operator credential is admin on every workspace (workspaceId null)', (t) => {
  const svc = servicesFor(t);
  const operator = svc.keys.operatorCredential();
  t.regex(operator, /^sk_test_/);
  t.is(svc.keys.operatorCredential(), operator, 'stable within one run');
  const credential = svc.credentials.resolve(operator);
  t.is(credential.type, 'operator');
  t.is(credential.workspaceId, null);
  t.true(credential.scopes.has('admin'));
  t.is(credential.userId, svc.workspaces.operatorUser.id);
  t.is(credential.expiresAt, null);
  // It is not listed with the API keys and cannot be revoked as one.
  t.false(svc.keys.list().some((record) => record.id === credential.id));
  const error = t.throws(() => svc.keys.revoke(credential.id));
  t.is((error as ApiError).code, 'not_found');
});

test('list shows keys newest first, optionally per workspace', (t) => {
  const svc = servicesFor(t);
  const workspace = svc.workspaces.create('Other', 'starter');
  const a = svc.keys.create({ name: 'a', scopes: ['agents:read'] });
  svc.clock.setOffset(1000);
  const b = svc.keys.create({ name: 'b', scopes: ['agents:read'], workspaceId: workspace.id });
  t.deepEqual(
    svc.keys.list().map((record) => record.id),
    [b.record.id, a.record.id],
  );
  t.deepEqual(
    svc.keys.list(workspace.id).map((record) => record.id),
    [b.record.id],
  );
  for (const record of svc.keys.list()) t.false('hash' in record, 'records carry no hash');
});
