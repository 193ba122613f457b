// The secret key of a sandbox: the key file that seals its secrets at rest (SecretBox), checked
// against a verifier the sandbox keeps (settings: a MAC of a fixed label under the key). A
// sandbox in PostgreSQL is opened by whoever has its URL, but its secrets only with its key: a
// daemon given another key, or none, stops at start saying what to do, rather than failing on
// each secret later (or sealing new ones under a key the others do not have).
import { existsSync, rmSync } from 'node:fs';
import { SecretBox } from '../platform/secret-box.js';
import type { SettingsRepository } from '../store/settings.repository.js';
import { SECRET_KEY_VERIFIER } from '../store/snapshot.js';

/** The settings key of the verifier, which snapshots leave out. */
const VERIFIER_SETTING = SECRET_KEY_VERIFIER;
const VERIFIER_LABEL = 'svc secret key verifier v1';

export class SecretKeyError extends Error {}

export interface SecretKey {
  box: SecretBox;
  file: string;
  /** The file was made just now (the first start of a sandbox, or a key that is missing). */
  created: boolean;
}

/**
 * Reads the key file, creating it (0600) when missing: the store's migrations may need the box
 * before the store can say whether it has a key already (checkSecretKey, once it is open).
 */
export function loadSecretKey(file: string): SecretKey {
  const created = !existsSync(file);
  return { box: SecretBox.fromKeyFile(file), file, created };
}

/**
 * Checks the key against the sandbox's verifier. A sandbox without one (a new one, or a store
 * made before verifiers existed) takes this key and stores its verifier. A sandbox with one
 * needs the same key: a key file made just now (there was none) is removed again, and either
 * case is a SecretKeyError naming the file, the sandbox and what to do.
 */
export function checkSecretKey(
  key: SecretKey,
  settings: SettingsRepository,
  sandbox: string,
): void {
  const stored = settings.get(VERIFIER_SETTING);
  const verifier = `hmac-sha256:${key.box.mac(VERIFIER_LABEL)}`;
  if (stored === undefined) {
    settings.set(VERIFIER_SETTING, verifier);
    return;
  }
  if (stored === verifier) return;
  if (key.created) {
    rmSync(key.file, { force: true });
    throw new SecretKeyError(
      `${sandbox} keeps its secrets sealed with a key, and there is no key file at ${key.file}. Give its key: copy the key file of the daemon that created it there, or point --secret-key-file (SVC_SECRET_KEY_FILE) at it.`,
    );
  }
  throw new SecretKeyError(
    `The secret key ${key.file} is not the key of ${sandbox}: its secrets were sealed with another one. Give the sandbox's own key with --secret-key-file (SVC_SECRET_KEY_FILE), e.g. a copy of the key file of the daemon that created it.`,
  );
}
