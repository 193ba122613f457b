// Runs knowledge extraction off the main thread: one worker thread per document (extract-worker),
// with a time budget and a heap limit, a few at a time. A document that takes too long or too
// much memory ends in 413 and the worker is stopped; the daemon keeps answering meanwhile.
import { Worker } from 'node:worker_threads';
import { ApiError } from '../../domain/errors.js';
import { workerScript } from '../../platform/worker-script.js';
import type { Chunk } from './chunk.js';
import type { KnowledgeFormat } from './extract.js';
import type { ExtractJob, ExtractOutcome } from './extract-worker.js';
import { MAX_CONCURRENT_EXTRACTIONS, WORKER_HEAP_MB } from './limits.js';

export class KnowledgeExtractor {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    /** Real time one extraction may take (it is CPU work, not daemon-clock time). */
    private readonly budgetMs: number,
  ) {}

  /** The passages of a document, or the ApiError to answer with (400 damaged, 413 too big). */
  async passages(format: KnowledgeFormat, content: Buffer, filename: string): Promise<Chunk[]> {
    await this.turn();
    try {
      const outcome = await this.runWorker({ format, filename, content: new Uint8Array(content) });
      if (outcome.type === 'refused') {
        throw new ApiError(outcome.code, outcome.message, { param: outcome.param });
      }
      return outcome.passages;
    } finally {
      this.running -= 1;
      this.waiting.shift()?.();
    }
  }

  private async turn(): Promise<void> {
    if (this.running >= MAX_CONCURRENT_EXTRACTIONS) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.running += 1;
  }

  private runWorker(job: ExtractJob): Promise<ExtractOutcome> {
    return new Promise((resolve, reject) => {
      const { script, eval: isEval } = workerScript('extract-worker', import.meta.url);
      const worker = new Worker(script, {
        eval: isEval,
        workerData: job,
        resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
      });
      let settled = false;
      const finish = (result: ExtractOutcome | ApiError) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        void worker.terminate();
        if (result instanceof ApiError) reject(result);
        else resolve(result);
      };
      const timer = setTimeout(
        () =>
          finish(
            new ApiError(
              'payload_too_large',
              `'${job.filename}' could not be processed within ${Math.round(this.budgetMs / 1000)} s. Split it into smaller documents.`,
              { param: 'file' },
            ),
          ),
        this.budgetMs,
      );
      worker.once('message', (outcome: ExtractOutcome) => finish(outcome));
      worker.once('error', (error: Error & { code?: string }) =>
        finish(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new ApiError(
                'payload_too_large',
                `'${job.filename}' needs more than ${WORKER_HEAP_MB} MiB of memory to read. Split it into smaller documents.`,
                { param: 'file' },
              )
            : new ApiError(
                'invalid_parameter',
                `'${job.filename}' could not be read as ${job.format.toUpperCase()}: the file looks damaged.`,
                { param: 'file' },
              ),
        ),
      );
      worker.once('exit', () =>
        finish(
          new ApiError(
            'invalid_parameter',
            `'${job.filename}' could not be read as ${job.format.toUpperCase()}.`,
            { param: 'file' },
          ),
        ),
      );
    });
  }
}
