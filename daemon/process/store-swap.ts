// svc state import|reset: prepares the new store beside the live one (a copy of the snapshot,
// checked and migrated on a worker thread, so a bad or big snapshot never stops the daemon), then
// has the host swap it in. Either one replaces the whole sandbox: the daemon log says so at
// `warn` (counts only: the answer's new secrets and keys are never logged).
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { VERSION } from '../../shared/package-info.js';
import type { ImportAnswer, StoreSwap } from '../control/deps.js';
import { ApiError } from '../domain/errors.js';
import type { StoreSetting } from '../../shared/store-url.js';
import { MIGRATIONS } from '../store/migrations.js';
import { fillPostgresSandbox } from '../store/store-copy.js';
import { prepareImportOffThread } from '../store/import-thread.js';
import { removeStaged, type PreparedImport } from '../store/snapshot.js';
import { checkSnapshotWorkflows } from '../workflows/snapshot-check.js';
import type { AppHost } from './app-host.js';

/** Where a swap is said (the daemon's logger). */
export interface SwapLog {
  warn(fields: object, message: string): void;
}

/** The daemon's store as the swap needs it. */
export interface SwapStore {
  dataDir: string;
  databaseFile: string;
  /** The sandbox's key: an imported snapshot's secrets must open with it. */
  secretKeyFile: string;
  /** Where the sandbox lives: a PostgreSQL sandbox takes the snapshot's rows in place. */
  store: StoreSetting;
}

export function storeSwap(
  { dataDir, databaseFile, secretKeyFile, store }: SwapStore,
  host: () => AppHost,
  log?: SwapLog,
): StoreSwap {
  // One import at a time: both would prepare the same staging file, and the thread leaves the
  // event loop free to take a second request meanwhile.
  let importing = false;
  return {
    async importSnapshot(input) {
      if (importing) {
        throw new ApiError(
          'conflict',
          'Another import is under way; try again when it has finished.',
        );
      }
      importing = true;
      try {
        const answer = await importSnapshot(input);
        log?.warn(
          {
            file: answer.imported,
            schema_version: answer.schema_version,
            migrated: answer.migrated,
            dropped_secrets: answer.dropped_secrets.length,
            new_secrets: answer.new_secrets.length,
            keys: answer.keys.length,
            dropped_operator_keys: answer.dropped_operator_keys,
          },
          'state imported: the whole sandbox was replaced by the snapshot',
        );
        return answer;
      } finally {
        importing = false;
      }
    },
    async reset() {
      // The swap moves the old store aside; the app then starts on no store, as on a first start.
      // A PostgreSQL sandbox is emptied in place: the rows of a new, empty store, copied in.
      await host().swap(() => {
        if (store.kind !== 'postgres') return;
        fillPostgresSandbox({ url: store.url, schema: store.sandbox }, undefined);
      });
      log?.warn(
        { data_dir: dataDir },
        'state reset: the whole sandbox was replaced by an empty one',
      );
      return { reset: true as const, data_dir: dataDir };
    },
  };

  async function importSnapshot({
    file,
    drop_secrets: dropSecrets,
  }: Parameters<StoreSwap['importSnapshot']>[0]): Promise<ImportAnswer> {
    const staging = join(dataDir, 'svc.db.importing');
    let prepared: PreparedImport;
    // Nothing staged stays in the data dir, imported or refused (also when the thread died).
    try {
      prepared = await prepareImportOffThread({
        file,
        staging,
        secretKeyFile,
        svcVersion: VERSION,
        dropSecrets: dropSecrets === true,
      });
      // Its workflows as a create checks them; one that breaks a rule refuses the whole import.
      await checkSnapshotWorkflows(staging);
      await host().swap(() => {
        if (store.kind !== 'postgres') return renameSync(staging, databaseFile);
        // The checked, migrated snapshot's rows replace the sandbox's, in one transaction.
        fillPostgresSandbox({ url: store.url, schema: store.sandbox }, staging);
      });
    } finally {
      removeStaged(staging);
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
      keys: prepared.keys,
      dropped_operator_keys: prepared.dropped_operator_keys,
    };
  }
}
