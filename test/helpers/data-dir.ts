// What the daemon leaves on disk, read as an attacker with the files would: for "no plaintext
// secret in the data dir" checks.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every file of the data dir except the key file, as one latin1 string. */
export function dataDirBytes(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name !== 'secret.key')
    .map((entry) => readFileSync(join(entry.parentPath, entry.name)).toString('latin1'))
    .join('\n');
}
