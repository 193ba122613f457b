// Runs prepareImport on a worker thread (import-worker.ts): a big snapshot takes seconds to copy,
// check and migrate, and the daemon answers requests meanwhile. The store is swapped only after.
import { Worker } from 'node:worker_threads';
import { ApiError } from '../domain/errors.js';
import { workerScript } from '../platform/worker-script.js';
import type { ImportJob, ImportOutcome } from './import-worker.js';
import type { PreparedImport } from './snapshot.js';

export function prepareImportOffThread(job: ImportJob): Promise<PreparedImport> {
  return new Promise((resolve, reject) => {
    const { script, eval: isEval } = workerScript('import-worker', import.meta.url);
    const worker = new Worker(script, { eval: isEval, workerData: job });
    let settled = false;
    const settle = (outcome: ImportOutcome | Error) => {
      if (settled) return;
      settled = true;
      if (outcome instanceof Error) reject(outcome);
      else if (outcome.type === 'prepared') resolve(outcome.prepared);
      else if (outcome.type === 'refused') {
        const { code, message, param, extras } = outcome;
        reject(new ApiError(code, message, { param, extras }));
      } else {
        const error = new Error(outcome.message);
        error.stack = outcome.stack;
        reject(error);
      }
    };
    worker.once('message', settle);
    worker.once('error', settle);
    worker.once('exit', (code) =>
      settle(new Error(`the snapshot import thread ended (exit code ${code}) without an answer`)),
    );
  });
}
