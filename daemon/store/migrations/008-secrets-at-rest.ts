import { SecretBox } from '../../platform/secret-box.js';
import type { Migration } from './migration.js';

export const secretsAtRest: Migration = {
  version: 8,
  name: 'secrets at rest',
  sql: '',
  // Webhook signing secrets and integration credentials stored before they were encrypted are
  // sealed in place. secure_delete overwrites the plaintext the updates leave behind in the
  // database pages; the caller then truncates the WAL that still holds the old pages.
  run: (db, { secretBox }) => {
    const plain = <T>(rows: T[], value: (row: T) => string | null) =>
      rows.filter((row) => {
        const text = value(row);
        return text !== null && !SecretBox.isSealed(text);
      });
    const hooks = plain(
      db.prepare<[], { id: string; secret: string }>('SELECT id, secret FROM webhooks').all(),
      (row) => row.secret,
    );
    const integrations = plain(
      db
        .prepare<[], { id: string; credentials: string | null }>(
          'SELECT id, credentials FROM integrations',
        )
        .all(),
      (row) => row.credentials,
    );
    if (hooks.length === 0 && integrations.length === 0) return;
    if (!secretBox) throw new Error('sealing stored secrets needs the data dir secret key');
    db.pragma('secure_delete = ON');
    const sealHook = db.prepare('UPDATE webhooks SET secret = ? WHERE id = ?');
    for (const row of hooks) sealHook.run(secretBox.seal(row.secret), row.id);
    const sealIntegration = db.prepare('UPDATE integrations SET credentials = ? WHERE id = ?');
    for (const row of integrations) sealIntegration.run(secretBox.seal(row.credentials!), row.id);
  },
};
