// One authenticated cipher for every secret the daemon keeps at rest (integration credentials,
// webhook signing secrets, workflow secrets): AES-256-GCM under a 32-byte key kept in the data
// dir (mode 0600). The key never leaves that file; a database copied without it reveals nothing.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { ApiError } from '../domain/errors.js';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error('the secret key must be 32 bytes');
  }

  /** Reads the key file, creating it (0600, never overwritten) on first use. */
  static fromKeyFile(file: string): SecretBox {
    try {
      writeFileSync(file, randomBytes(KEY_BYTES).toString('base64') + '\n', {
        mode: 0o600,
        flag: 'wx',
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    return new SecretBox(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64'));
  }

  /** `v1:<base64 iv|tag|ciphertext>`; a fresh IV each time, so equal values seal differently. */
  seal(plain: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  /**
   * Throws when the text was not sealed with this key or was altered: an ApiError whose message
   * says how to recover (the request that needed the secret answers it, not a bare 500).
   */
  open(sealed: string): string {
    try {
      if (!SecretBox.isSealed(sealed)) throw new Error('not a sealed value');
      const raw = Buffer.from(sealed.slice(VERSION.length + 1), 'base64');
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([
        decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new ApiError(
        'internal_server_error',
        "A secret stored in the data dir cannot be decrypted with the data dir's secret.key (the key file was replaced, or the stored value altered). Put the original secret.key back, or set the secret again: svc secrets set, or a new secret on the webhook or trigger.",
      );
    }
  }

  /**
   * HMAC-SHA256 of `text` under a key derived from this one (never the key itself): a value
   * that tells whether two boxes hold the same key without revealing it (daemon/app/secret-key.ts).
   */
  mac(text: string): string {
    const derived = createHmac('sha256', this.key).update('svc mac key').digest();
    return createHmac('sha256', derived).update(text).digest('hex');
  }

  static isSealed(text: string): boolean {
    return text.startsWith(`${VERSION}:`);
  }
}
