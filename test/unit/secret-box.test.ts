import test from 'ava';
import type { ApiError } from '../../daemon/domain/errors.js';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SecretBox } from '../../daemon/platform/secret-box.js';
import { tempDir } from '../helpers/temp-dir.js';

test('seals and opens; equal values seal differently; the plain text is not in the sealed form', (t) => {
  const box = SecretBox.fromKeyFile(join(tempDir('svc-box-'), 'secret.key'));
  const a = box.seal('whsec_abc');
  const b = box.seal('whsec_abc');
  t.not(a, b);
  t.false(a.includes('whsec_abc'));
  t.true(SecretBox.isSealed(a));
  t.is(box.open(a), 'whsec_abc');
  t.is(box.open(b), 'whsec_abc');
});

test('the key file is created 0600 once and reused', (t) => {
  const file = join(tempDir('svc-box-'), 'secret.key');
  const sealed = SecretBox.fromKeyFile(file).seal('value');
  t.is(statSync(file).mode & 0o777, 0o600);
  const before = readFileSync(file, 'utf8');
  t.is(SecretBox.fromKeyFile(file).open(sealed), 'value');
  t.is(readFileSync(file, 'utf8'), before);
});

test('another key or an altered value cannot be opened', (t) => {
  const dir = tempDir('svc-box-');
  const sealed = SecretBox.fromKeyFile(join(dir, 'a.key')).seal('value');
  const wrongKey = t.throws(() => SecretBox.fromKeyFile(join(dir, 'b.key')).open(sealed));
  t.is((wrongKey as ApiError).code, 'internal_server_error');
  t.regex(
    wrongKey!.message,
    /cannot be decrypted.*Put the original secret\.key back, or set the secret again/,
  );
  const box = SecretBox.fromKeyFile(join(dir, 'a.key'));
  const tampered = sealed.slice(0, -4) + (sealed.endsWith('AAAA') ? 'BBBB' : 'AAAA');
  t.throws(() => box.open(tampered));
  t.throws(() => box.open('plain'));
});
