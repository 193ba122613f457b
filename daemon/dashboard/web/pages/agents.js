// The workspace's agents, newest first, a page at a time (the server's cursor): status, type,
// autonomy and the newest execution, each agent linking to its page.
import {
  ErrorNote,
  Link,
  Loading,
  Pager,
  Status,
  get,
  href,
  html,
  navigate,
  noSubmit,
  onValue,
  time,
  useLoad,
  useState,
} from '../lib.js';
import { TableHead } from '../parts/table-head.js';

const STATUSES = ['active', 'training', 'paused', 'archived'];
const COLUMNS = ['Agent', 'Status', 'Type', 'Autonomy', 'Last execution'];

/** @param {import('../lib.js').PageProps} props */
export function Agents({ query }) {
  const status = query.get('status') ?? '';
  const [cursors, setCursors] = useState(/** @type {(string | null)[]} */ ([]));
  const cursor = cursors.at(-1);
  const agents = useLoad(
    () => get('/agents', { query: { status, starting_after: cursor, limit: 25 } }),
    [status, cursor],
    (type, message) => type === 'event' && message.type.startsWith('agent.'),
  );
  /** @param {string} value */
  const setStatus = (value) => {
    const next = new URLSearchParams(query);
    if (value) next.set('status', value);
    else next.delete('status');
    setCursors([]);
    navigate(`/ui/agents?${next}`);
  };
  const rows = agents.data?.data ?? [];
  return html`
    <h1>Agents</h1>
    <form class="filters" onSubmit=${noSubmit}>
      <label
        >Status
        <select value=${status} onChange=${onValue(setStatus)}>
          <option value="">Any status</option>
          ${STATUSES.map((value) => html`<option value=${value}>${value}</option>`)}
        </select>
      </label>
    </form>
    <${ErrorNote} error=${agents.error} />
    ${!agents.data && !agents.error && html`<${Loading} what="agents" />`}
    ${
      agents.data &&
      rows.length === 0 &&
      html`<p class="empty">
        No agents${status ? ` ${status}` : ''} in this workspace. Create one with${' '}
        <code>svc agents create</code>.
      </p>`
    }
    ${
      rows.length > 0 &&
      html`<div class="table-scroll">
        <table class="list" aria-label="Agents" aria-busy=${agents.loading ? 'true' : 'false'}>
          <${TableHead} labels=${COLUMNS} />
          <tbody>
            ${rows.map(
              (agent) =>
                html`<tr data-agent=${agent.id}>
                  <td>
                    <${Link} to=${href(`/agents/${agent.id}`)}>${agent.name}<//>${' '}
                    <code class="muted">${agent.id}</code>
                  </td>
                  <td><${Status} value=${agent.status} /></td>
                  <td>${agent.type}</td>
                  <td>${agent.autonomy_level}</td>
                  <td><${LastExecution} execution=${agent.last_execution} /></td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>`
    }
    <${Pager}
      page=${agents.data}
      cursors=${cursors}
      onNext=${() => setCursors([...cursors, agents.data?.next_cursor ?? null])}
      onFirst=${() => setCursors([])}
    />
  `;
}

/** @param {{ execution: import('../lib.js').AgentExecution | null }} props */
function LastExecution({ execution }) {
  if (!execution) return html`<span class="muted">none yet</span>`;
  return html`<${Status} value=${execution.status} />${' '}
    <${Link} to=${href(`/executions/${execution.execution_id}`)}>${time(execution.created_at)}<//>`;
}
