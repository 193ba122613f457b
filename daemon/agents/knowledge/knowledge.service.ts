// Knowledge documents of an agent: checked by content, text extracted and chunked in a worker
// thread (extractor.ts, bounded by limits.ts) and indexed (FTS5); retrieval finds the passages
// that best cover an input. A rejected file stores nothing.
import { newId } from '../../../shared/ids.js';
import type { KnowledgeDocumentView } from '../../../shared/schemas/agents.js';
import { toIso, type Clock } from '../../time/clock.js';
import { ApiError } from '../../domain/errors.js';
import { pick } from '../../domain/views.js';
import { TeamCache } from '../../store/team-cache.js';
import { ALONE, type TeamNotices } from '../../store/team-notices.js';
import { mapPage, type ListQueryInput, type Page } from '../../domain/pages.js';
import type { Passage } from '../brains/brain.js';
import type { DocumentRow, KnowledgeRepository } from './knowledge.repository.js';
import { searchTerms, type Chunk } from './chunk.js';
import { detectFormat } from './extract.js';
import type { KnowledgeExtractor } from './extractor.js';
import { MAX_KNOWLEDGE_BYTES } from './limits.js';

export { MAX_KNOWLEDGE_BYTES };

export interface UploadInput {
  filename: string;
  content: Buffer;
  type: DocumentRow['type'];
  description?: string | undefined;
}

/** A document checked and split into passages, not stored yet. */
export interface PreparedDocument {
  input: UploadInput;
  format: DocumentRow['format'];
  chunks: Chunk[];
}

export class KnowledgeService {
  /**
   * Whether an agent has any document, asked on every execution: kept until it changes, on any
   * daemon of the sandbox (team mode).
   */
  private readonly hasDocuments: TeamCache<boolean>;

  constructor(
    private readonly repo: KnowledgeRepository,
    private readonly clock: Clock,
    /** Extraction and splitting run in worker threads, bounded in time, memory and output. */
    private readonly extractor: KnowledgeExtractor,
    notices: Pick<TeamNotices, 'notify' | 'on' | 'onResync'> = ALONE,
  ) {
    this.hasDocuments = new TeamCache('knowledge', notices);
  }

  async upload(
    agent: { id: string; workspace_id: string },
    input: UploadInput,
  ): Promise<KnowledgeDocumentView> {
    return this.store(agent, await this.prepare(input));
  }

  /**
   * Checks a document and extracts its passages, storing nothing: fixtures prepare every document
   * before they create anything, so an unsupported file fails the apply with nothing created.
   */
  async prepare(input: UploadInput): Promise<PreparedDocument> {
    if (input.content.length > MAX_KNOWLEDGE_BYTES) {
      throw new ApiError(
        'payload_too_large',
        'The file is over 10 MiB. Split it into smaller documents.',
        { param: 'file' },
      );
    }
    const format = detectFormat(input.filename, input.content);
    const chunks = await this.extractor.passages(format, input.content, input.filename);
    if (chunks.length === 0) {
      throw new ApiError(
        'invalid_parameter',
        `'${input.filename}' contains no text to learn from.`,
        { param: 'file' },
      );
    }
    return { input, format, chunks };
  }

  /** Stores a prepared document for the agent. */
  store(
    agent: { id: string; workspace_id: string },
    prepared: PreparedDocument,
  ): KnowledgeDocumentView {
    const { input, format, chunks } = prepared;
    const row: DocumentRow = {
      id: newId('document'),
      agent_id: agent.id,
      workspace_id: agent.workspace_id,
      filename: safeFilename(input.filename),
      format,
      type: input.type,
      description: input.description ?? null,
      size_bytes: input.content.length,
      chunk_count: chunks.length,
      characters: chunks.reduce(
        (sum, chunk) => sum + chunk.text.length + (chunk.heading?.length ?? 0),
        0,
      ),
      created_at: this.clock.now(),
    };
    this.repo.insert(row, chunks);
    this.hasDocuments.changed(agent.id);
    return toDocumentView(row);
  }

  list(agentId: string, query: ListQueryInput): Page<KnowledgeDocumentView> {
    return mapPage(this.repo.page({ ...query, agentId }), toDocumentView);
  }

  get(agentId: string, id: string): KnowledgeDocumentView {
    return toDocumentView(this.row(agentId, id));
  }

  /**
   * A document's passages as stored (after the passage numbered `after`, -1 for the first), in
   * the document's order: what retrieval searches and quotes from.
   */
  passages(agentId: string, id: string, query: { after: number; limit: number }) {
    this.row(agentId, id);
    const rows = this.repo.passages(id, query.after, query.limit + 1);
    const page = rows.slice(0, query.limit);
    return {
      data: page,
      has_more: rows.length > query.limit,
      next_after: rows.length > query.limit ? page.at(-1)!.seq : null,
    };
  }

  delete(agentId: string, id: string): { id: string; deleted: true } {
    this.row(agentId, id);
    this.repo.delete(id);
    this.hasDocuments.changed(agentId);
    return { id, deleted: true };
  }

  /**
   * The passages that cover the most of the input's terms, best first. Terms match word forms
   * (the index stems: "ship" finds "shipping") and prefixes; a passage's heading counts.
   */
  retrieve(agentId: string, input: string, limit = 3): Passage[] {
    if (!this.agentHasDocuments(agentId)) return [];
    const terms = searchTerms(input);
    if (terms.length === 0) return [];
    return this.repo.search(agentId, terms, limit).map((match) => ({
      text: match.text,
      heading: match.heading,
      documentId: match.document_id,
      coverage: Math.round((match.covered / terms.length) * 100) / 100,
    }));
  }

  private agentHasDocuments(agentId: string): boolean {
    return this.hasDocuments.read(agentId, () => this.repo.hasDocuments(agentId));
  }

  private row(agentId: string, id: string): DocumentRow {
    const row = this.repo.get(agentId, id);
    if (!row)
      throw new ApiError('not_found', `No knowledge document ${id} for agent ${agentId}.`, {
        param: 'document_id',
      });
    return row;
  }
}

/** Keeps only the base name, without control characters or path separators. */
function safeFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? 'file';
  // eslint-disable-next-line no-control-regex
  return base.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 255) || 'file';
}

function toDocumentView(row: DocumentRow): KnowledgeDocumentView {
  return {
    ...pick(row, [
      'id',
      'agent_id',
      'filename',
      'format',
      'type',
      'description',
      'size_bytes',
      'chunk_count',
      'characters',
    ]),
    created_at: toIso(row.created_at),
  };
}
