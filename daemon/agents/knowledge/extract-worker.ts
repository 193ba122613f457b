// The body of a knowledge extraction worker thread: extracts the text of one document and
// splits it into passages, within the caps of limits.ts, and posts back the passages or the
// API error to answer with. Run by extractor.ts; the event loop of the daemon stays free.
import { parentPort, workerData } from 'node:worker_threads';
import { ApiError } from '../../domain/errors.js';
import { chunkText, type Chunk } from './chunk.js';
import { extractText, type KnowledgeFormat } from './extract.js';
import { MAX_EXTRACTED_CHARS, MAX_PASSAGES } from './limits.js';

export interface ExtractJob {
  format: KnowledgeFormat;
  filename: string;
  content: Uint8Array;
}

export type ExtractOutcome =
  | { type: 'passages'; passages: Chunk[] }
  | { type: 'refused'; code: ApiError['code']; message: string; param?: string | undefined };

async function run(job: ExtractJob): Promise<ExtractOutcome> {
  try {
    const content = Buffer.from(job.content.buffer, job.content.byteOffset, job.content.byteLength);
    const text = await extractText(job.format, content, job.filename);
    if (text.length > MAX_EXTRACTED_CHARS) {
      throw new ApiError(
        'payload_too_large',
        `'${job.filename}' extracts to ${text.length} characters of text, over the ${MAX_EXTRACTED_CHARS} kept per document. Split it into smaller documents.`,
        { param: 'file' },
      );
    }
    const passages = chunkText(text);
    if (passages.length > MAX_PASSAGES) {
      throw new ApiError(
        'payload_too_large',
        `'${job.filename}' splits into ${passages.length} passages, over the ${MAX_PASSAGES} kept per document. Split it into smaller documents.`,
        { param: 'file' },
      );
    }
    return { type: 'passages', passages };
  } catch (error) {
    if (error instanceof ApiError) {
      return { type: 'refused', code: error.code, message: error.message, param: error.param };
    }
    return {
      type: 'refused',
      code: 'invalid_parameter',
      message: `'${job.filename}' could not be read as ${job.format.toUpperCase()}: the file looks damaged.`,
      param: 'file',
    };
  }
}

parentPort!.postMessage(await run(workerData as ExtractJob));
