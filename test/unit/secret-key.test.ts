import test from 'ava';
import { copyFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { checkSecretKey, loadSecretKey, SecretKeyError } from '../../daemon/app/secret-key.js';
import { openDatabase } from '../../daemon/store/database.js';
import { SettingsRepository } from '../../daemon/store/settings.repository.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Opens the store with the key file as services.ts does; answers the error, if any. */
function open(store: string, keyFile: string): Error | undefined {
  const key = loadSecretKey(keyFile);
  const db = openDatabase(store);
  try {
    checkSecretKey(key, new SettingsRepository(db), 'the sandbox qa');
    return undefined;
  } catch (error) {
    return error as Error;
  } finally {
    db.close();
  }
}

test('a new sandbox takes the key (made 0600) and opens with it again', (t) => {
  const dir = tempDir();
  const key = join(dir, 'secret.key');
  t.is(open(join(dir, 'svc.db'), key), undefined);
  t.is(statSync(key).mode & 0o777, 0o600);
  const before = readFileSync(key, 'utf8');
  t.is(open(join(dir, 'svc.db'), key), undefined);
  t.is(readFileSync(key, 'utf8'), before);
  // Another copy of the same key opens it too (the key is what counts, not its path).
  copyFileSync(key, join(dir, 'copy.key'));
  t.is(open(join(dir, 'svc.db'), join(dir, 'copy.key')), undefined);
});

test('another key is refused, naming the file, the sandbox and the option', (t) => {
  const dir = tempDir();
  const store = join(dir, 'svc.db');
  t.is(open(store, join(dir, 'a.key')), undefined);
  t.is(open(join(dir, 'other.db'), join(dir, 'b.key')), undefined);
  const error = open(store, join(dir, 'b.key'));
  t.true(error instanceof SecretKeyError);
  t.regex(error!.message, /The secret key .*b\.key is not the key of the sandbox qa/);
  t.regex(error!.message, /--secret-key-file \(SVC_SECRET_KEY_FILE\)/);
});

test('no key file for a sandbox that has a key: refused, and no new key file is left', (t) => {
  const dir = tempDir();
  const store = join(dir, 'svc.db');
  t.is(open(store, join(dir, 'a.key')), undefined);
  const missing = join(dir, 'elsewhere.key');
  const error = open(store, missing);
  t.true(error instanceof SecretKeyError);
  t.regex(
    error!.message,
    /the sandbox qa keeps its secrets sealed with a key, and there is no key file at .*elsewhere\.key/,
  );
  t.false(existsSync(missing));
  // The sandbox still opens with its own key.
  t.is(open(store, join(dir, 'a.key')), undefined);
});

test('a store made before verifiers existed takes the key it opens with', (t) => {
  const dir = tempDir();
  const store = join(dir, 'svc.db');
  openDatabase(store).close();
  t.is(open(store, join(dir, 'a.key')), undefined);
  t.true(open(store, join(dir, 'b.key')) instanceof SecretKeyError);
});
