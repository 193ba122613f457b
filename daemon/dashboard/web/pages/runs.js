// Workflow runs of the workspace, newest first, filtered by workflow, status and time; pages
// come from the server's pager. New runs and status changes arrive live.
import {
  ErrorNote,
  get,
  href,
  html,
  Link,
  navigate,
  Pager,
  Status,
  duration,
  time,
  useLoad,
  useState,
} from '../lib.js';

const STATUSES = ['running', 'awaiting_approval', 'completed', 'failed', 'cancelled', 'timeout'];

export function Runs({ query }) {
  const filters = {
    workflow_id: query.get('workflow') ?? '',
    status: query.get('status') ?? '',
    from: query.get('from') ?? '',
    to: query.get('to') ?? '',
  };
  const [cursors, setCursors] = useState([]);
  const cursor = cursors.at(-1);
  const workflows = useLoad(() => get('/workflows'), []);
  const runs = useLoad(
    () =>
      get('/runs', {
        workflow_id: filters.workflow_id,
        status: filters.status,
        from: filters.from && new Date(filters.from).toISOString(),
        to: filters.to && new Date(filters.to).toISOString(),
        starting_after: cursor,
        limit: 25,
      }),
    [query.toString(), cursor],
    (type, data) =>
      type === 'run' || (type === 'event' && data.type.startsWith('workflow.execution.')),
  );

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
    <form class="filters" onSubmit=${(event) => event.preventDefault()}>
      <label
        >Workflow
        <select
          value=${filters.workflow_id}
          onChange=${(e) => setFilter('workflow', e.target.value)}
        >
          <option value="">All workflows</option>
          ${(workflows.data?.data ?? []).map((wf) => html`<option value=${wf.id}>${wf.name}</option>`)}
        </select>
      </label>
      <label
        >Status
        <select value=${filters.status} onChange=${(e) => setFilter('status', e.target.value)}>
          <option value="">Any status</option>
          ${STATUSES.map((status) => html`<option value=${status}>${status.replace('_', ' ')}</option>`)}
        </select>
      </label>
      <label
        >From
        <input
          type="datetime-local"
          value=${filters.from}
          onChange=${(e) => setFilter('from', e.target.value)}
        />
      </label>
      <label
        >To
        <input
          type="datetime-local"
          value=${filters.to}
          onChange=${(e) => setFilter('to', e.target.value)}
        />
      </label>
    </form>
    <${ErrorNote} error=${runs.error} />
    <table class="list" aria-label="Workflow runs" aria-busy=${runs.loading ? 'true' : 'false'}>
      <thead>
        <tr>
          <th scope="col">Run</th>
          <th scope="col">Workflow</th>
          <th scope="col">Status</th>
          <th scope="col">Steps</th>
          <th scope="col">Started</th>
          <th scope="col">Duration</th>
          <th scope="col">Trigger</th>
        </tr>
      </thead>
      <tbody>
        ${(runs.data?.data ?? []).map(
          (run) =>
            html`<tr data-run=${run.execution_id}>
              <td>
                <${Link} to=${href(`/runs/${run.execution_id}`)}
                  ><code>${run.execution_id}</code><//
                >
              </td>
              <td>${run.workflow_name ?? names.get(run.workflow_id) ?? run.workflow_id}</td>
              <td><${Status} value=${run.status} /></td>
              <td>${run.steps_completed} / ${run.steps_total}</td>
              <td>${time(run.created_at)}</td>
              <td>
                ${run.duration_seconds === null ? '—' : duration(run.duration_seconds * 1000)}
              </td>
              <td>${run.trigger.type}</td>
            </tr>`,
        )}
        ${
          runs.data &&
          runs.data.data.length === 0 &&
          html`<tr>
            <td colspan="7" class="muted">
              No runs match. Start one with <code>svc workflows run ID</code>.
            </td>
          </tr>`
        }
      </tbody>
    </table>
    <${Pager}
      page=${runs.data}
      cursors=${cursors}
      onNext=${() => setCursors([...cursors, runs.data.next_cursor])}
      onFirst=${() => setCursors([])}
    />
  `;
}
