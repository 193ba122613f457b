// Small CLI state kept with lowdb in the data dir (cli-state.json, mode 0600): the signing
// secret `svc listen` uses, stable across sessions so a receiver can keep it configured.
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBase62 } from '../shared/ids.js';

interface CliState {
  listen_secret?: string;
}

export async function listenSecret(dataDir: string): Promise<string> {
  const { JSONFilePreset } = await import('lowdb/node');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, 'cli-state.json');
  const isNew = !existsSync(file);
  const db = await JSONFilePreset<CliState>(file, {});
  if (!db.data.listen_secret) {
    db.data.listen_secret = `whsec_${randomBase62(32)}`;
    await db.write();
  }
  if (isNew) chmodSync(file, 0o600);
  return db.data.listen_secret;
}
