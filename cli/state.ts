// Small CLI state kept with lowdb in the data dir (cli-state.json, mode 0600): the signing
// secret `svc listen` uses, stable across sessions so a receiver can keep it configured.
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBase62 } from '../shared/ids.js';

interface CliState {
  listen_secret?: string;
}

export async function listenSecret(dataDir: string): Promise<string> {
  // Not JSONFilePreset: it keeps data in memory only when NODE_ENV=test (a user's test runner).
  const [{ Low }, { JSONFile }] = await Promise.all([import('lowdb'), import('lowdb/node')]);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, 'cli-state.json');
  const isNew = !existsSync(file);
  const db = new Low<CliState>(new JSONFile<CliState>(file), {});
  await db.read();
  if (!db.data.listen_secret) {
    db.data.listen_secret = `whsec_${randomBase62(32)}`;
    await db.write();
  }
  if (isNew) chmodSync(file, 0o600);
  return db.data.listen_secret;
}
