// An agent's knowledge documents (name, type, size, passages) and, on demand, a document's
// passages as stored: what the agent's retrieval searches and quotes from.
import {
  ErrorNote,
  Loading,
  get,
  html,
  time,
  useEffect,
  useId,
  useLoad,
  useState,
} from '../lib.js';
import { TableHead } from './table-head.js';

const COLUMNS = ['Document', 'Type', 'Size', 'Passages', 'Added', ''];

/** @param {{ agentId: string }} props */
export function AgentKnowledge({ agentId }) {
  const documents = useLoad(
    () =>
      get('/agents/:agent_id/knowledge', { params: { agent_id: agentId }, query: { limit: 100 } }),
    [agentId],
  );
  // One document's passages at a time, under the table: at the page's width, not the table's.
  const [shown, setShown] = useState(/** @type {string | null} */ (null));
  const region = useId();
  if (!documents.data && !documents.error) return html`<${Loading} what="knowledge documents" />`;
  const rows = documents.data?.data ?? [];
  if (documents.error) return html`<${ErrorNote} error=${documents.error} />`;
  if (rows.length === 0) {
    return html`<p class="empty">
      No knowledge documents. Upload one with${' '}
      <code>svc agents knowledge upload ${agentId} FILE --type faq</code>.
    </p>`;
  }
  const shownDoc = rows.find((doc) => doc.id === shown);
  return html`<div class="table-scroll">
      <table class="list" aria-label="Knowledge documents">
        <${TableHead} labels=${COLUMNS} />
        <tbody>
          ${rows.map(
            (doc) =>
              html`<${DocumentRow}
                key=${doc.id}
                doc=${doc}
                open=${doc.id === shown}
                region=${region}
                onToggle=${() => setShown(doc.id === shown ? null : doc.id)}
              />`,
          )}
        </tbody>
      </table>
    </div>
    ${documents.data?.has_more && html`<p class="muted">Showing the newest 100 of ${documents.data.total_count}.</p>`}
    <div id=${region}>
      ${shownDoc && html`<${Passages} key=${shownDoc.id} agentId=${agentId} doc=${shownDoc} />`}
    </div>`;
}

/**
 * @param {{ doc: import('../lib.js').KnowledgeDocument, open: boolean, region: string, onToggle: () => void }} props
 */
function DocumentRow({ doc, open, region, onToggle }) {
  return html`<tr data-document=${doc.id}>
    <td>
      ${doc.filename}${' '}<code class="muted">${doc.id}</code>
      ${doc.description && html`<br /><span class="muted">${doc.description}</span>`}
    </td>
    <td>${doc.type} (${doc.format})</td>
    <td>${size(doc.size_bytes)}</td>
    <td>${doc.chunk_count}</td>
    <td>${time(doc.created_at)}</td>
    <td>
      <button
        type="button"
        class="secondary"
        aria-expanded=${open ? 'true' : 'false'}
        aria-controls=${region}
        aria-label=${`${open ? 'Hide' : 'Show'} passages of ${doc.filename}`}
        onClick=${onToggle}
      >
        ${open ? 'Hide passages' : 'Show passages'}
      </button>
    </td>
  </tr>`;
}

/** The passages of one document, 20 at a time. */
/** @param {{ agentId: string, doc: import('../lib.js').KnowledgeDocument }} props */
function Passages({ agentId, doc }) {
  const [pages, setPages] = useState(
    /** @type {import('../lib.js').GetAnswer<'/agents/:agent_id/knowledge/:document_id/passages'>[]} */ ([]),
  );
  const [error, setError] = useState(/** @type {Error | null} */ (null));
  const [busy, setBusy] = useState(false);
  const next = pages.at(-1)?.next_after ?? -1;
  const load = async () => {
    setBusy(true);
    try {
      const page = await get('/agents/:agent_id/knowledge/:document_id/passages', {
        params: { agent_id: agentId, document_id: doc.id },
        query: { after: next },
      });
      setPages((old) => [...old, page]);
      setError(null);
    } catch (failure) {
      setError(/** @type {Error} */ (failure));
    } finally {
      setBusy(false);
    }
  };
  // The first page once; later ones on "More passages" (a live reload would repeat pages).
  useEffect(() => void load(), [doc.id]);
  const passages = pages.flatMap((page) => page.data);
  return html`<h3>Passages of ${doc.filename}</h3>
    <ol class="passages" aria-label=${`Passages of ${doc.filename}`}>
      ${passages.map(
        (passage) =>
          html`<li data-seq=${passage.seq}>
            ${passage.heading && html`<strong>${passage.heading}</strong><br />`}${passage.text}
          </li>`,
      )}
    </ol>
    ${busy && html`<${Loading} what="passages" />`}
    <${ErrorNote} error=${error} />
    ${
      pages.at(-1)?.has_more &&
      html`<button type="button" class="secondary" disabled=${busy} onClick=${load}>
        More passages
      </button>`
    }`;
}

/**
 * Bytes in the units a person reads: 812 B, 14.2 KB, 3.1 MB.
 * @param {number} bytes
 */
function size(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
