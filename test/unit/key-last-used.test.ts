// When a key was last used costs authentication no write: a use is held in memory, the held
// times are stored together on a flush (the housekeeping minute, and the daemon's stop), and
// what is read is the newer of the held and the stored time. A stored time never moves back.
import test from 'ava';
import { CredentialService } from '../../daemon/auth/credential.service.js';
import { generateKey, hashKey } from '../../daemon/keys/key-material.js';
import { KeyRepository, type KeyRow } from '../../daemon/keys/key.repository.js';
import { KeyUsage } from '../../daemon/keys/key-usage.js';
import { openDatabase } from '../../daemon/store/database.js';

function bench() {
  const db = openDatabase(':memory:');
  db.pragma('foreign_keys = OFF');
  const repo = new KeyRepository(db);
  const key = generateKey('sandbox');
  const row: KeyRow = {
    id: 'key_used',
    kind: 'standard',
    user_id: 'usr_1',
    workspace_id: 'ws_1',
    name: 'used',
    hash: hashKey(key),
    hint: key.slice(-4),
    scopes: 'workflows:read',
    environment: 'sandbox',
    created_at: 1_000,
    expires_at: null,
    revoked_at: null,
    rotated_to: null,
    last_used_at: null,
  };
  repo.insert(row);
  let now = 5_000;
  const clock = { now: () => now, iso: () => new Date(now).toISOString() };
  const usage = new KeyUsage(db, repo);
  const credentials = new CredentialService({ keys: repo, clock, environment: 'sandbox', usage });
  let writes = 0;
  const markUsed = repo.markUsed.bind(repo);
  repo.markUsed = (id, at) => {
    writes += 1;
    markUsed(id, at);
  };
  const stored = () => repo.byId('key_used')!.last_used_at;
  return { key, usage, credentials, stored, writes: () => writes, at: (ms: number) => (now = ms) };
}

test('a thousand authentications write nothing; a flush stores the last use once', (t) => {
  const { key, usage, credentials, stored, writes, at } = bench();
  t.is(usage.lastUsed('key_used', stored()), null, 'never used');
  for (let i = 0; i < 1000; i += 1) {
    at(5_000 + i);
    credentials.resolve(key);
  }
  t.is(writes(), 0, 'no write per request');
  t.is(stored(), null);
  t.is(usage.lastUsed('key_used', stored()), 5_999, 'shown at once, from memory');
  t.is(usage.flush(), 1);
  t.is(writes(), 1, 'one write for the key');
  t.is(stored(), 5_999);
  t.is(usage.flush(), 0, 'nothing held: nothing written');
  t.is(writes(), 1);
});

test('a stored time never moves back (a use held before the clock moved back)', (t) => {
  const { key, usage, credentials, stored, at } = bench();
  at(9_000);
  credentials.resolve(key);
  usage.flush();
  at(7_000);
  credentials.resolve(key);
  t.is(usage.lastUsed('key_used', stored()), 9_000);
  usage.flush();
  t.is(stored(), 9_000);
});

test('a refused key is not recorded as used', (t) => {
  const { usage, credentials, stored } = bench();
  t.throws(() => credentials.resolve(generateKey('sandbox')), { message: /not known/ });
  t.is(usage.flush(), 0);
  t.is(stored(), null);
});
