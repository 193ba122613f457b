// Workflow runs of the workspace, newest first, filtered by workflow, status and time; pages
// come from the server's pager. New runs and status changes arrive live.
import {
  ErrorNote,
  Pager,
  get,
  html,
  navigate,
  noSubmit,
  onValue,
  useLoad,
  useState,
} from '../lib.js';
import { RunTable } from '../parts/run-table.js';

const STATUSES = ['running', 'awaiting_approval', 'completed', 'failed', 'cancelled', 'timeout'];

/** @param {import('../lib.js').PageProps} props */
export function Runs({ query }) {
  const filters = {
    workflow_id: query.get('workflow') ?? '',
    status: query.get('status') ?? '',
    from: query.get('from') ?? '',
    to: query.get('to') ?? '',
  };
  const [cursors, setCursors] = useState(/** @type {(string | null)[]} */ ([]));
  const cursor = cursors.at(-1);
  const workflows = useLoad(() => get('/workflows'), []);
  const runs = useLoad(
    () =>
      get('/runs', {
        query: {
          workflow_id: filters.workflow_id,
          status: filters.status,
          from: filters.from && new Date(filters.from).toISOString(),
          to: filters.to && new Date(filters.to).toISOString(),
          starting_after: cursor,
          limit: 25,
        },
      }),
    [query.toString(), cursor],
    (type, data) =>
      type === 'run' || (type === 'event' && data.type.startsWith('workflow.execution.')),
  );

  /**
   * @param {string} name
   * @param {string} value
   */
  const setFilter = (name, value) => {
    const next = new URLSearchParams(query);
    if (value) next.set(name, value);
    else next.delete(name);
    setCursors([]);
    navigate(`/ui/runs?${next}`);
  };
  const names = new Map((workflows.data?.data ?? []).map((wf) => [wf.id, wf.name]));

  return html`
    <h1>Workflow runs</h1>
    <form class="filters" onSubmit=${noSubmit}>
      <label
        >Workflow
        <select
          value=${filters.workflow_id}
          onChange=${onValue((value) => setFilter('workflow', value))}
        >
          <option value="">All workflows</option>
          ${(workflows.data?.data ?? []).map((wf) => html`<option value=${wf.id}>${wf.name}</option>`)}
        </select>
      </label>
      <label
        >Status
        <select value=${filters.status} onChange=${onValue((value) => setFilter('status', value))}>
          <option value="">Any status</option>
          ${STATUSES.map((status) => html`<option value=${status}>${status.replace('_', ' ')}</option>`)}
        </select>
      </label>
      <label
        >From
        <input
          type="datetime-local"
          value=${filters.from}
          onChange=${onValue((value) => setFilter('from', value))}
        />
      </label>
      <label
        >To
        <input
          type="datetime-local"
          value=${filters.to}
          onChange=${onValue((value) => setFilter('to', value))}
        />
      </label>
    </form>
    <${ErrorNote} error=${runs.error} />
    <${RunTable}
      runs=${runs}
      label="Workflow runs"
      names=${names}
      empty=${html`No runs match. Start one with <code>svc workflows run ID</code>.`}
    />
    <${Pager}
      page=${runs.data}
      cursors=${cursors}
      onNext=${() => setCursors([...cursors, runs.data?.next_cursor ?? null])}
      onFirst=${() => setCursors([])}
    />
  `;
}
