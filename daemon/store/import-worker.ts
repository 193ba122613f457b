// The body of the thread that prepares an import (snapshot.ts prepareImport): copying the file,
// checking its schema, integrity and JSON values, opening its secrets and migrating it are all
// synchronous and grow with the snapshot, so they run here while the daemon keeps serving.
// Posts back what was prepared, or the API error to answer with.
import { parentPort, workerData } from 'node:worker_threads';
import { ApiError } from '../domain/errors.js';
import { SecretBox } from '../platform/secret-box.js';
import { MIGRATIONS } from './migrations.js';
import { prepareImport, type PreparedImport } from './snapshot.js';

export interface ImportJob {
  file: string;
  staging: string;
  /** The data dir's secret.key: the thread opens its own SecretBox (a key is not posted). */
  secretKeyFile: string;
  svcVersion: string;
  dropSecrets: boolean;
}

export type ImportOutcome =
  | { type: 'prepared'; prepared: PreparedImport }
  | {
      type: 'refused';
      code: ApiError['code'];
      message: string;
      param: string | undefined;
      extras: Record<string, unknown>;
    }
  | { type: 'failed'; message: string; stack: string | undefined };

function run(job: ImportJob): ImportOutcome {
  try {
    const prepared = prepareImport(job.file, job.staging, {
      migrations: MIGRATIONS,
      secretBox: SecretBox.fromKeyFile(job.secretKeyFile),
      svcVersion: job.svcVersion,
      dropSecrets: job.dropSecrets,
    });
    return { type: 'prepared', prepared };
  } catch (error) {
    if (error instanceof ApiError) {
      const { code, message, param, extras } = error;
      return { type: 'refused', code, message, param, extras };
    }
    const failure = error as Error;
    return { type: 'failed', message: failure.message, stack: failure.stack };
  }
}

parentPort?.postMessage(run(workerData as ImportJob));
