// svc state import|reset: prepares the new store beside the live one (a copy of the snapshot,
// checked and migrated, so a bad snapshot never stops the daemon), then has the host swap it in.
import { renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { VERSION } from '../../shared/package-info.js';
import { dataDirFiles } from '../../shared/paths.js';
import type { StoreSwap } from '../control/deps.js';
import { SecretBox } from '../platform/secret-box.js';
import { MIGRATIONS } from '../store/migrations.js';
import { prepareImport } from '../store/snapshot.js';
import type { AppHost } from './app-host.js';

export function storeSwap(dataDir: string, databaseFile: string, host: () => AppHost): StoreSwap {
  return {
    async importSnapshot({ file, drop_secrets: dropSecrets }) {
      const staging = join(dataDir, 'svc.db.importing');
      const prepared = prepareImport(file, staging, {
        migrations: MIGRATIONS,
        secretBox: SecretBox.fromKeyFile(dataDirFiles(dataDir).secretKey),
        svcVersion: VERSION,
        dropSecrets: dropSecrets === true,
      });
      try {
        await host().swap(() => renameSync(staging, databaseFile));
      } finally {
        rmSync(staging, { force: true });
      }
      const latest = MIGRATIONS.at(-1)?.version ?? 0;
      return {
        imported: file,
        snapshot: prepared.info,
        schema_version: latest,
        migrated: prepared.from_schema_version < latest,
        dropped_secrets: prepared.unreadable
          .filter((item) => item.table === 'secrets' || item.table === 'integrations')
          .map((item) => item.what),
        new_secrets: prepared.replaced_secrets,
      };
    },
    async reset() {
      // The swap moves the old store aside; the app then starts on no store, as on a first start.
      await host().swap(() => undefined);
      return { reset: true as const, data_dir: dataDir };
    },
  };
}
