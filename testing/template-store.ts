// A migrated empty store, made once per process and written into each sandbox's data dir before
// its daemon starts: the daemon finds the schema current and runs no migration (all of them,
// from the first, took a sixth of a sandbox's create+stop). The store is only the schema: the
// workspace, keys and secret key are the sandbox's own, made when its daemon starts. No
// migration's code step has anything to seal in an empty store, so none needs a secret key.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../daemon/store/database.js';

let template: Buffer | undefined;

/** Writes the migrated empty store to `file` (a new sandbox's svc.db). */
export function writeMigratedStore(file: string): void {
  template ??= migratedStore();
  writeFileSync(file, template, { mode: 0o600 });
}

function migratedStore(): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'svc-store-template-'));
  try {
    const file = join(dir, 'svc.db');
    const db = openDatabase(file);
    // Everything into the main file: the copy is that file alone.
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    return readFileSync(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
