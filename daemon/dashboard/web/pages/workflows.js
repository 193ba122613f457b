// The workspace's workflows, newest first, a page at a time (the server's cursor, as the runs
// page): status, trigger, last run and success rate, each linking to its page.
import {
  ErrorNote,
  Link,
  Loading,
  Pager,
  Status,
  get,
  href,
  html,
  time,
  useLoad,
  useState,
} from '../lib.js';
import { TableHead } from '../parts/table-head.js';

const PAGE_SIZE = 25;

export function Workflows() {
  const [cursors, setCursors] = useState(/** @type {(string | null)[]} */ ([]));
  const cursor = cursors.at(-1);
  const { data, error } = useLoad(
    () => get('/workflows', { query: { starting_after: cursor, limit: PAGE_SIZE } }),
    [cursor],
    (type, message) => type === 'run' || (type === 'event' && message.type.startsWith('workflow.')),
  );
  return html`
    <h1>Workflows</h1>
    <${ErrorNote} error=${error} />
    ${!data && !error && html`<${Loading} what="workflows" />`}
    ${
      data &&
      (data.data.length === 0
        ? html`<p class="empty">
            No workflows in this workspace. Create one with <code>svc workflows create</code> or
            from a template.
          </p>`
        : html`<div class="table-scroll">
            <table class="list" aria-label="Workflows">
              <${TableHead}
                labels=${['Workflow', 'Status', 'Trigger', 'Steps', 'Last run', 'Success rate']}
              />
              <tbody>
                ${data.data.map(
                  (wf) =>
                    html`<tr data-workflow=${wf.id}>
                      <td>
                        <${Link} to=${href(`/workflows/${wf.id}`)}>${wf.name}<//>${' '}
                        <code class="muted">${wf.id}</code>
                      </td>
                      <td><${Status} value=${wf.status} /></td>
                      <td>${wf.trigger.type}</td>
                      <td>${wf.steps.length}</td>
                      <td>${time(wf.last_executed_at)}</td>
                      <td>
                        ${wf.stats.total_executions === 0 ? '—' : `${Math.round(wf.stats.success_rate * 100)}% of ${wf.stats.total_executions}`}
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`)
    }
    <${Pager}
      page=${data}
      cursors=${cursors}
      onNext=${() => setCursors([...cursors, data?.next_cursor ?? null])}
      onFirst=${() => setCursors([])}
    />
  `;
}
